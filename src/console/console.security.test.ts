// The console's doors: off (404) without ADMIN_TOKEN, the token form and one-time links, a wrong
// token refused, audited and rate-limited, the cookie's attributes, sessions that expire, CSRF on
// every form and the refusal of a form sent from another site.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INHERITED_NAMES } from '../domain/own-entry.js';
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../testing/app.js';
import { consoleSignIn } from '../testing/console.js';
import { csrfOf, form, postForm, setCookieLine, tokenOf } from '../testing/panel.js';

describe('the console without ADMIN_TOKEN', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ config: { adminToken: undefined } });
  });
  afterAll(() => app.dispose());

  it('answers 404 on every console address, like the admin API', async () => {
    for (const [method, url] of [
      ['GET', '/console'],
      ['GET', '/console/login'],
      ['POST', '/console/login'],
      ['GET', '/console/accounts'],
      ['GET', '/console/assets/panel.css'],
    ] as const) {
      const res = await app.http.inject({
        method,
        url,
        ...(method === 'POST' ? form({ admin_token: 'x'.repeat(20) }) : {}),
      });
      expect(res.statusCode, url).toBe(404);
    }
    await expect(app.ctx.operator.sessions.createLink({ actor: 'cli' })).rejects.toThrow(/ADMIN_TOKEN/);
  });
});

describe('console sign-in and sessions', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ config: { publicUrl: 'https://gw.example.com' } });
  });
  afterAll(() => app.dispose());

  const audit = (action: string) =>
    app.ctx.storage.db.selectFrom('operator_audit').selectAll().where('action', '=', action).execute();

  it('a signed-out page shows the sign-in form (401)', async () => {
    const res = await app.http.inject({ method: 'GET', url: '/console/accounts' });
    expect(res.statusCode).toBe(401);
    expect(res.body).toContain('name="admin_token"');
  });

  it('the admin token opens a session: HttpOnly, SameSite=Strict, Path=/console, Secure on https', async () => {
    const { payload, headers } = form({ admin_token: ADMIN_TOKEN });
    const res = await app.http.inject({
      method: 'POST',
      url: '/console/login',
      payload,
      headers,
      remoteAddress: '10.0.0.1',
    });
    expect(res.statusCode).toBe(303);
    const line = setCookieLine(res.headers, 'gengate_console');
    expect(line).toMatch(/; Path=\/console; HttpOnly; SameSite=Strict; Max-Age=43200; Secure$/);
    const cookie = line.split(';')[0];
    const page = await app.http.inject({ method: 'GET', url: '/console/accounts', headers: { cookie } });
    expect(page.statusCode).toBe(200);
    expect((await audit('console.signed_in')).length).toBeGreaterThan(0);
  });

  it('a wrong token is refused and audited, and attempts are rate-limited per address', async () => {
    const ip = '10.9.9.9';
    const wrong = form({ admin_token: 'not-the-admin-token-at-all' });
    const first = await app.http.inject({
      method: 'POST',
      url: '/console/login',
      ...wrong,
      remoteAddress: ip,
    });
    expect(first.statusCode).toBe(401);
    expect(first.body).toContain('That token is not right.');
    expect(setCookieLine(first.headers, 'gengate_console')).toBe('');
    expect((await audit('console.sign_in_refused')).some((r) => r.ip === ip)).toBe(true);
    let status = 401;
    for (let i = 0; i < 12 && status !== 429; i++)
      status = (await app.http.inject({ method: 'POST', url: '/console/login', ...wrong, remoteAddress: ip }))
        .statusCode;
    expect(status).toBe(429);
    // Even the right token waits out the window from that address.
    const right = await app.http.inject({
      method: 'POST',
      url: '/console/login',
      ...form({ admin_token: ADMIN_TOKEN }),
      remoteAddress: ip,
    });
    expect(right.statusCode).toBe(429);
    expect(right.headers['retry-after']).toBeDefined();
  });

  it('a console link works once; its GET and HEAD change nothing', async () => {
    const { token } = await app.ctx.operator.sessions.createLink({ actor: 'cli' });
    const url = `/console/login?token=${token}`;
    expect((await app.http.inject({ method: 'HEAD', url })).statusCode).toBe(200);
    const confirm = await app.http.inject({ method: 'GET', url });
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('name="link"');
    const spend = () =>
      app.http.inject({
        method: 'POST',
        url: '/console/login',
        ...form({ link: tokenOf(url) }),
        remoteAddress: '10.1.1.1',
      });
    const used = await spend();
    expect(used.statusCode).toBe(303);
    expect(setCookieLine(used.headers, 'gengate_console')).toContain('SameSite=Strict');
    const again = await spend();
    expect(again.statusCode).toBe(401);
    expect(again.body).toContain('already used or has expired');
  });

  it('a session expires: past its time the page asks to sign in again', async () => {
    const cookie = await consoleSignIn(app, '10.2.2.2');
    await app.ctx.storage.db
      .updateTable('console_tokens')
      .set({ expires_at: Date.now() - 1 })
      .where('kind', '=', 'session')
      .execute();
    const res = await app.http.inject({ method: 'GET', url: '/console/accounts', headers: { cookie } });
    expect(res.statusCode).toBe(401);
    expect(res.body).toContain('name="admin_token"');
  });

  it('CSRF: a form without the token, or sent from another site, is refused and changes nothing', async () => {
    const cookie = await consoleSignIn(app, '10.3.3.3');
    const before = await app.ctx.maintenance.isEnabled();
    const noToken = await postForm(app, '/console/maintenance', cookie, { enabled: '1' });
    expect(noToken.statusCode).toBe(403);
    const page = await app.http.inject({ method: 'GET', url: '/console/maintenance', headers: { cookie } });
    const csrf = csrfOf(page.body);
    const crossSite = await app.http.inject({
      method: 'POST',
      url: '/console/maintenance',
      ...form({ enabled: '1', _csrf: csrf }),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie,
        origin: 'https://evil.example',
      },
    });
    expect(crossSite.statusCode).toBe(403);
    expect(crossSite.body).toContain('another site');
    expect(await app.ctx.maintenance.isEnabled()).toBe(before);
    // The panel's session token is no console session, and the console's CSRF is not the panel's.
    const wrongCsrf = await postForm(app, '/console/maintenance', cookie, {
      enabled: '1',
      _csrf: 'x'.repeat(43),
    });
    expect(wrongCsrf.statusCode).toBe(403);
    expect(await app.ctx.maintenance.isEnabled()).toBe(before);
  });

  it('signing out ends the session', async () => {
    const cookie = await consoleSignIn(app, '10.4.4.4');
    const page = await app.http.inject({ method: 'GET', url: '/console/accounts', headers: { cookie } });
    const out = await postForm(app, '/console/logout', cookie, { _csrf: csrfOf(page.body) });
    expect(out.statusCode).toBe(200);
    expect(setCookieLine(out.headers, 'gengate_console')).toContain('Max-Age=0');
    const after = await app.http.inject({ method: 'GET', url: '/console/accounts', headers: { cookie } });
    expect(after.statusCode).toBe(401);
  });
});

describe('names every object inherits, in the console', () => {
  let app: TestApp;
  let cookie: string;
  beforeAll(async () => {
    app = await createTestApp();
    cookie = await consoleSignIn(app, '10.5.5.5');
  });
  afterAll(() => app.dispose());

  const get = (url: string) => app.http.inject({ method: 'GET', url, headers: { cookie } });

  it.each(INHERITED_NAMES)('?done=%s shows no message, and /console/assets/%s is 404', async (name) => {
    for (const page of ['/console/maintenance', '/console/webhooks', '/console/models']) {
      const res = await get(`${page}?done=${encodeURIComponent(name)}`);
      expect(res.statusCode, page).toBe(200);
      expect(res.body).not.toContain('flash-ok');
    }
    expect((await get('/console/maintenance?done=maintenance_on')).body).toContain('Maintenance is on.');
    expect((await get(`/console/assets/${encodeURIComponent(name)}`)).statusCode).toBe(404);
  });
});
