// Panel sign-in: one-time links (GET/HEAD change nothing, POST spends), cookies, sign-out, CSRF,
// rate limits, two-factor sign-in, and the CLI's login-link.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base32Decode, totp } from '../../domain/panel/totp.js';
import { createTestApp, type TestApp, type TestKey } from '../../testing/app.js';
import { ENGINES } from '../../testing/db.js';
import {
  cookieFrom,
  csrfOf,
  form,
  getPage,
  loginLink,
  postForm,
  setCookieLine,
  signIn,
  tokenOf,
} from '../../testing/panel.js';

describe('panel sign-in', () => {
  let app: TestApp;
  let owner: TestKey;
  let stranger: TestKey;

  beforeAll(async () => {
    app = await createTestApp();
    owner = await app.newKey({ balanceRub: 123.45, restrictions: { name: '<script>alert(1)</script>' } });
    stranger = await app.newKey({ balanceRub: 7 });
  });
  afterAll(() => app.dispose());

  const linkRows = () =>
    app.ctx.storage.db.selectFrom('panel_tokens').selectAll().where('kind', '=', 'login_link').execute();

  it('GET and HEAD of a link show a confirmation and change nothing; only the POST spends it', async () => {
    const link = await loginLink(app, owner.messagingId);
    const before = await linkRows();
    const head = await app.http.inject({ method: 'HEAD', url: link });
    expect(head.statusCode).toBe(200);
    expect(head.headers['set-cookie']).toBeUndefined();
    const get = await app.http.inject({ method: 'GET', url: link });
    expect(get.statusCode).toBe(200);
    expect(get.headers['set-cookie']).toBeUndefined();
    expect(get.body).toContain('method="post" action="/panel/login"');
    expect(get.body).toContain(String(owner.messagingId));
    expect(await linkRows()).toEqual(before);

    const { payload, headers } = form({ token: tokenOf(link) });
    const post = await app.http.inject({ method: 'POST', url: '/panel/login', payload, headers });
    expect(post.statusCode).toBe(303);
    expect(post.headers.location).toBe('/panel');
    const line = setCookieLine(post.headers, 'gengate_session');
    expect(line).toMatch(/HttpOnly/);
    expect(line).toMatch(/SameSite=Lax/);
    expect(line).toMatch(/Path=\/panel/);
    expect(line).not.toMatch(/Secure/);

    const again = await app.http.inject({ method: 'POST', url: '/panel/login', payload, headers });
    expect(again.statusCode).toBe(401);
    expect((await app.http.inject({ method: 'GET', url: link })).statusCode).toBe(401);

    const cookie = cookieFrom(post.headers, 'gengate_session') ?? '';
    const overview = await getPage(app, '/panel', cookie);
    expect(overview).toContain('123.45');
    expect(overview).toContain(`${owner.secret.slice(0, 12)}…${owner.secret.slice(-4)}`);
    expect(overview).not.toContain(owner.secret);
    expect(overview).not.toContain(stranger.secret.slice(-4));
    expect(overview).not.toContain('<script>alert(1)</script>');
    expect(overview).toContain('&#60;script&#62;');
  });

  it('answers pages with a strict CSP and no caching', async () => {
    const cookie = await signIn(app, owner.messagingId);
    const res = await app.http.inject({ method: 'GET', url: '/panel', headers: { cookie } });
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).not.toContain('telegram');
    expect(res.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('same-origin');
  });

  it('refuses unknown, malformed and expired links, and pages without a session', async () => {
    for (const token of ['nope', 'a'.repeat(43)]) {
      expect((await app.http.inject({ method: 'GET', url: `/panel/login?token=${token}` })).statusCode).toBe(
        401,
      );
      const { payload, headers } = form({ token });
      expect(
        (await app.http.inject({ method: 'POST', url: '/panel/login', payload, headers })).statusCode,
      ).toBe(401);
    }
    const link = await loginLink(app, owner.messagingId);
    await app.ctx.storage.db
      .updateTable('panel_tokens')
      .set({ expires_at: Date.now() - 1 })
      .where('kind', '=', 'login_link')
      .execute();
    expect((await app.http.inject({ method: 'GET', url: link })).statusCode).toBe(401);
    const { payload, headers } = form({ token: tokenOf(link) });
    expect(
      (await app.http.inject({ method: 'POST', url: '/panel/login', payload, headers })).statusCode,
    ).toBe(401);
    const signedOut = await app.http.inject({ method: 'GET', url: '/panel' });
    expect(signedOut.statusCode).toBe(401);
    expect(signedOut.body).toContain('gengate login-link');
    const forged = await app.http.inject({
      method: 'GET',
      url: '/panel',
      headers: { cookie: 'gengate_session=forged' },
    });
    expect(forged.statusCode).toBe(401);
  });

  it('audits a failed sign-in', async () => {
    const { payload, headers } = form({ token: 'b'.repeat(43) });
    await app.http.inject({
      method: 'POST',
      url: '/panel/login',
      payload,
      headers,
      remoteAddress: '10.9.9.9',
    });
    const failed = await app.ctx.storage.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'panel.login_failed')
      .where('ip', '=', '10.9.9.9')
      .execute();
    expect(failed).toHaveLength(1);
    expect(JSON.parse(failed[0].details ?? '{}')).toEqual({ reason: 'link_invalid' });
  });

  it('stores only token hashes; sign-out with the form ends the session, and the old cookie is refused', async () => {
    const cookie = await signIn(app, owner.messagingId);
    const value = cookie.split('=')[1];
    const rows = await app.ctx.storage.db.selectFrom('panel_tokens').selectAll().execute();
    expect(rows.some((r) => r.token_hash.includes(value))).toBe(false);

    const page = await getPage(app, '/panel', cookie);
    const out = await postForm(app, '/panel/logout', cookie, { _csrf: csrfOf(page) });
    expect(out.statusCode).toBe(200);
    expect(setCookieLine(out.headers, 'gengate_session')).toMatch(/Max-Age=0/);
    expect((await app.http.inject({ method: 'GET', url: '/panel', headers: { cookie } })).statusCode).toBe(
      401,
    );
  });

  it('refuses a form without its CSRF token, with a wrong one or with another session’s, and changes nothing', async () => {
    const cookie = await signIn(app, owner.messagingId);
    const other = await signIn(app, stranger.messagingId);
    const otherToken = csrfOf(await getPage(app, '/panel', other));
    const before = await app.ctx.storage.accounts.byId(owner.accountId);
    const attempts: Record<string, string>[] = [{}, { _csrf: 'wrong' }, { _csrf: otherToken }];
    for (const fields of attempts) {
      const res = await postForm(app, '/panel/webhooks/rotate', cookie, fields);
      expect(res.statusCode).toBe(403);
      expect(res.body).toContain('security token');
    }
    const json = await app.http.inject({
      method: 'POST',
      url: '/panel/logout',
      headers: { cookie, 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(json.statusCode).toBe(403);
    expect((await app.ctx.storage.accounts.byId(owner.accountId))?.webhook_secret).toBe(
      before?.webhook_secret,
    );
    // Sign-out without the token leaves the session open.
    expect((await postForm(app, '/panel/logout', cookie, {})).statusCode).toBe(403);
    expect((await app.http.inject({ method: 'GET', url: '/panel', headers: { cookie } })).statusCode).toBe(
      200,
    );
  });

  it('refuses a POST from another site (sign-in forms included) before anything runs', async () => {
    const link = await loginLink(app, owner.messagingId);
    const { payload, headers } = form({ token: tokenOf(link) });
    for (const origin of ['https://evil.example', 'null']) {
      const res = await app.http.inject({
        method: 'POST',
        url: '/panel/login',
        payload,
        headers: { ...headers, origin },
      });
      expect(res.statusCode).toBe(403);
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    // The link was not spent: from the panel's own origin it still signs in.
    const own = await app.http.inject({
      method: 'POST',
      url: '/panel/login',
      payload,
      headers: { ...headers, origin: 'http://127.0.0.1:8080' },
    });
    expect(own.statusCode).toBe(303);
  });

  it('rate-limits sign-in attempts per client address', async () => {
    const ip = '10.7.7.7';
    const { payload, headers } = form({ token: 'c'.repeat(43) });
    const codes: number[] = [];
    for (let i = 0; i < 22; i++) {
      codes.push(
        (await app.http.inject({ method: 'POST', url: '/panel/login', payload, headers, remoteAddress: ip }))
          .statusCode,
      );
    }
    expect(codes.slice(0, 20).every((c) => c === 401)).toBe(true);
    expect(codes.slice(20)).toEqual([429, 429]);
    // A valid link from another address still works.
    const link = await loginLink(app, owner.messagingId);
    const ok = form({ token: tokenOf(link) });
    const res = await app.http.inject({
      method: 'POST',
      url: '/panel/login',
      ...ok,
      remoteAddress: '10.7.7.8',
    });
    expect(res.statusCode).toBe(303);
  });

  it('serves its assets from node_modules and its own folder, without a session', async () => {
    for (const [name, type] of [
      ['panel.css', 'text/css'],
      ['panel.js', 'text/javascript'],
      ['uplot.js', 'text/javascript'],
      ['uplot.css', 'text/css'],
      ['htmx.js', 'text/javascript'],
    ]) {
      const res = await app.http.inject({ method: 'GET', url: `/panel/assets/${name}` });
      expect(res.statusCode, name).toBe(200);
      expect(res.headers['content-type']).toContain(type);
      const again = await app.http.inject({
        method: 'GET',
        url: `/panel/assets/${name}`,
        headers: { 'if-none-match': String(res.headers.etag) },
      });
      expect(again.statusCode).toBe(304);
    }
    expect(
      (await app.http.inject({ method: 'GET', url: '/panel/assets/../../package.json' })).statusCode,
    ).toBe(404);
    expect((await app.http.inject({ method: 'GET', url: '/panel/assets/nope.js' })).statusCode).toBe(404);
  });

  it('answers an unknown panel address with a 404 page, not the API error; API 404s stay JSON', async () => {
    for (const method of ['GET', 'POST'] as const) {
      const res = await app.http.inject({ method, url: '/panel/no/such/page?x=1' });
      expect(res.statusCode, method).toBe(404);
      expect(res.headers['content-type']).toContain('text/html');
      expect(res.body).toContain('There is no such page in the panel.');
    }
    const api = await app.http.inject({ method: 'GET', url: '/no/such/route' });
    expect(api.statusCode).toBe(404);
    expect(api.json()).toMatchObject({ error: { code: 'not_found' } });
  });
});

describe.each(ENGINES)('panel sign-in with two-factor authentication on %s', (engine) => {
  let app: TestApp;
  let owner: TestKey;

  beforeAll(async () => {
    app = await createTestApp({ engine });
    owner = await app.newKey();
  });
  afterAll(() => app.dispose());

  const codeNow = (secret: string, offsetSteps = 0) =>
    totp(base32Decode(secret) ?? Buffer.alloc(0), Date.now() + offsetSteps * 30_000);

  async function firstFactor(ip?: string, who = owner): Promise<string> {
    const link = await loginLink(app, who.messagingId);
    const { payload, headers } = form({ token: tokenOf(link) });
    const res = await app.http.inject({
      method: 'POST',
      url: '/panel/login',
      payload,
      headers,
      remoteAddress: ip,
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/panel/login/code');
    expect(cookieFrom(res.headers, 'gengate_session')).toBeUndefined();
    return cookieFrom(res.headers, 'gengate_2fa') ?? '';
  }

  it('turns on with a confirmed code, then asks for a code at sign-in; codes and recovery codes work once', async () => {
    const cookie = await signIn(app, owner.messagingId);
    let page = await getPage(app, '/panel/security', cookie);
    expect(page).toContain('Set up two-factor authentication');
    const setup = await postForm(app, '/panel/security/2fa/setup', cookie, { _csrf: csrfOf(page) });
    expect(setup.statusCode).toBe(303);
    page = await getPage(app, '/panel/security', cookie);
    expect(page).toContain('<svg');
    const secret = /data-totp-secret>([A-Z2-7]+)</.exec(page)?.[1] ?? '';
    expect(secret).toHaveLength(32);

    const wrong = await postForm(app, '/panel/security/2fa/confirm', cookie, {
      _csrf: csrfOf(page),
      code: '000000' === codeNow(secret) ? '111111' : '000000',
    });
    expect(wrong.statusCode).toBe(422);
    const confirmed = await postForm(app, '/panel/security/2fa/confirm', cookie, {
      _csrf: csrfOf(page),
      code: codeNow(secret),
    });
    expect(confirmed.statusCode).toBe(200);
    const recovery = [...confirmed.body.matchAll(/<li><code>([A-Z2-7]{5}-[A-Z2-7]{5})<\/code><\/li>/g)].map(
      (m) => m[1],
    );
    expect(recovery).toHaveLength(10);
    const stored = await app.ctx.storage.db
      .withTables<{ panel_recovery_codes: { code_hash: string; account_id: number } }>()
      .selectFrom('panel_recovery_codes')
      .select('code_hash')
      .where('account_id', '=', owner.accountId)
      .execute();
    expect(stored).toHaveLength(10);
    expect(stored.some((r) => recovery.some((c) => r.code_hash.includes(c.replace('-', ''))))).toBe(false);
    expect(await getPage(app, '/panel/security', cookie)).not.toContain(recovery[0]);

    // Sign in again: the link alone opens nothing but the code page.
    const pending = await firstFactor();
    expect(
      (await app.http.inject({ method: 'GET', url: '/panel', headers: { cookie: pending } })).statusCode,
    ).toBe(401);
    const codePage = await app.http.inject({
      method: 'GET',
      url: '/panel/login/code',
      headers: { cookie: pending },
    });
    expect(codePage.statusCode).toBe(200);
    const bad = await postForm(app, '/panel/login/code', pending, { code: '12345x' });
    expect(bad.statusCode).toBe(401);
    // The code of the step confirmed above was used: a replay is refused.
    const replay = await postForm(app, '/panel/login/code', pending, { code: codeNow(secret) });
    expect(replay.statusCode).toBe(401);
    const next = await postForm(app, '/panel/login/code', pending, { code: codeNow(secret, 1) });
    expect(next.statusCode).toBe(303);
    const session = cookieFrom(next.headers, 'gengate_session') ?? '';
    expect(await getPage(app, '/panel', session)).toContain('Overview');
    // The step token was spent with it.
    expect((await postForm(app, '/panel/login/code', pending, { code: recovery[0] })).statusCode).toBe(401);

    // A recovery code signs in once (any case, dash or not).
    const viaRecovery = await firstFactor();
    const used = await postForm(app, '/panel/login/code', viaRecovery, {
      code: recovery[1].toLowerCase().replace('-', ''),
    });
    expect(used.statusCode).toBe(303);
    const reuse = await firstFactor();
    expect((await postForm(app, '/panel/login/code', reuse, { code: recovery[1] })).statusCode).toBe(401);

    const logins = await app.ctx.storage.db
      .selectFrom('audit_log')
      .select(['action', 'details'])
      .where('account_id', '=', owner.accountId)
      .where('action', 'in', ['panel.login', 'panel.2fa_enabled'])
      .orderBy('id')
      .execute();
    expect(logins.map((l) => l.action)).toContain('panel.2fa_enabled');
    expect(logins.map((l) => JSON.parse(l.details ?? '{}').second_factor).filter(Boolean)).toEqual([
      'totp',
      'recovery_code',
    ]);

    // Turning it off needs a valid code; then a link signs in directly again.
    page = await getPage(app, '/panel/security', session);
    expect(
      (await postForm(app, '/panel/security/2fa/disable', session, { _csrf: csrfOf(page), code: 'nope' }))
        .statusCode,
    ).toBe(422);
    const off = await postForm(app, '/panel/security/2fa/disable', session, {
      _csrf: csrfOf(page),
      code: recovery[2],
    });
    expect(off.statusCode).toBe(200);
    expect(off.body).toContain('Two-factor authentication is off');
    await signIn(app, owner.messagingId);
  });

  it('rate-limits code attempts per account, whatever the address', async () => {
    // Its own account: the limit counts per account and minute.
    const other = await app.newKey();
    const cookie = await signIn(app, other.messagingId);
    const page = await getPage(app, '/panel/security', cookie);
    await postForm(app, '/panel/security/2fa/setup', cookie, { _csrf: csrfOf(page) });
    const secret =
      /data-totp-secret>([A-Z2-7]+)</.exec(await getPage(app, '/panel/security', cookie))?.[1] ?? '';
    expect(
      (
        await postForm(app, '/panel/security/2fa/confirm', cookie, {
          _csrf: csrfOf(page),
          code: codeNow(secret),
        })
      ).statusCode,
    ).toBe(200);

    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const pending = await firstFactor(`10.5.0.${i}`, other);
      statuses.push(
        (await postForm(app, '/panel/login/code', pending, { code: 'AAAAA-AAAAA' }, `10.5.0.${i}`))
          .statusCode,
      );
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  });
});

describe('panel session cookies behind https', () => {
  it('are Secure when PUBLIC_URL is https', async () => {
    const app = await createTestApp({ config: { publicUrl: 'https://gw.example.com' } });
    try {
      const owner = await app.newKey();
      const link = await loginLink(app, owner.messagingId);
      const { payload, headers } = form({ token: tokenOf(link) });
      const res = await app.http.inject({ method: 'POST', url: '/panel/login', payload, headers });
      expect(setCookieLine(res.headers, 'gengate_session')).toMatch(/; Secure/);
    } finally {
      await app.dispose();
    }
  });
});
