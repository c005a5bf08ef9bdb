import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestApp, type TestApp, type TestKey } from '../testing/app.js';

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

describe('owner panel', () => {
  let app: TestApp;
  let owner: TestKey;
  let stranger: TestKey;

  beforeAll(async () => {
    app = await createTestApp();
    owner = await app.newKey({ balanceRub: 123.45, restrictions: { name: '<script>alert(1)</script>' } });
    stranger = await app.newKey({ balanceRub: 7 });
  });
  afterAll(() => app.dispose());

  async function loginLink(messagingId: number): Promise<string> {
    const res = await app.http.inject({
      method: 'POST',
      url: `/admin/accounts/${messagingId}/login-link`,
      headers: admin,
    });
    expect(res.statusCode).toBe(201);
    return new URL(res.json().url).pathname + new URL(res.json().url).search;
  }

  async function signIn(messagingId: number): Promise<string> {
    const res = await app.http.inject({ method: 'GET', url: await loginLink(messagingId) });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/panel');
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    return cookie.split(';')[0];
  }

  it('a login link works once and opens a session showing only the owner account', async () => {
    const link = await loginLink(owner.messagingId);
    const first = await app.http.inject({ method: 'GET', url: link });
    expect(first.statusCode).toBe(303);
    const again = await app.http.inject({ method: 'GET', url: link });
    expect(again.statusCode).toBe(401);

    const cookie = String(first.headers['set-cookie']).split(';')[0];
    const res = await app.http.inject({ method: 'GET', url: '/panel', headers: { cookie } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body).toContain('123.45');
    expect(res.body).toContain(`${owner.secret.slice(0, 12)}…${owner.secret.slice(-4)}`);
    expect(res.body).not.toContain(owner.secret);
    expect(res.body).not.toContain(`${stranger.secret.slice(-4)}</code>`);
    expect(res.body).toContain('panel.login');
  });

  it('escapes owner-controlled text', async () => {
    const cookie = await signIn(owner.messagingId);
    const res = await app.http.inject({ method: 'GET', url: '/panel', headers: { cookie } });
    expect(res.body).not.toContain('<script>alert(1)</script>');
    expect(res.body).toContain('&#60;script&#62;');
  });

  it('refuses unknown, malformed and expired links, and pages without a session', async () => {
    expect((await app.http.inject({ method: 'GET', url: '/panel/login?token=nope' })).statusCode).toBe(401);
    expect(
      (await app.http.inject({ method: 'GET', url: `/panel/login?token=${'a'.repeat(43)}` })).statusCode,
    ).toBe(401);
    const link = await loginLink(owner.messagingId);
    await app.ctx.storage.db
      .updateTable('panel_tokens')
      .set({ expires_at: Date.now() - 1 })
      .where('kind', '=', 'login_link')
      .execute();
    expect((await app.http.inject({ method: 'GET', url: link })).statusCode).toBe(401);
    expect((await app.http.inject({ method: 'GET', url: '/panel' })).statusCode).toBe(401);
    expect(
      (await app.http.inject({ method: 'GET', url: '/panel', headers: { cookie: 'gengate_session=forged' } }))
        .statusCode,
    ).toBe(401);
  });

  it('stores only token hashes and ends the session on sign-out', async () => {
    const cookie = await signIn(owner.messagingId);
    const value = cookie.split('=')[1];
    const rows = await app.ctx.storage.db.selectFrom('panel_tokens').selectAll().execute();
    expect(rows.some((r) => r.token_hash.includes(value))).toBe(false);
    const out = await app.http.inject({ method: 'POST', url: '/panel/logout', headers: { cookie } });
    expect(out.statusCode).toBe(303);
    expect((await app.http.inject({ method: 'GET', url: '/panel', headers: { cookie } })).statusCode).toBe(
      401,
    );
  });
});
