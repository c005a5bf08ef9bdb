// The Webhooks and Overview pages, and account isolation across every page of this part of the panel.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestKey } from '../../testing/app.js';
import { adminHeaders, csrfOf, getPage, postForm, signIn } from '../../testing/panel.js';

describe('panel webhooks and overview', () => {
  let app: TestApp;
  let owner: TestKey;
  let stranger: TestKey;
  let cookie: string;

  beforeAll(async () => {
    app = await createTestApp();
    owner = await app.newKey({ balanceRub: 1000, restrictions: { name: 'owner-key-main' } });
    stranger = await app.newKey({ balanceRub: 3, restrictions: { name: 'stranger-key-theirs' } });
    cookie = await signIn(app, owner.messagingId);
  });
  afterAll(() => app.dispose());

  const secretOf = async (key: TestKey) =>
    (await app.ctx.storage.accounts.byId(key.accountId))?.webhook_secret ?? '';

  it('keeps the secret out of the page until asked, then shows it (audited)', async () => {
    const secret = await secretOf(owner);
    const page = await getPage(app, '/panel/webhooks', cookie);
    expect(page).not.toContain(secret);
    expect(page).toContain('Show secret');
    const shown = await postForm(app, '/panel/webhooks/reveal', cookie, { _csrf: csrfOf(page) });
    expect(shown.statusCode).toBe(200);
    expect(shown.body).toContain(secret);
    expect(shown.body).not.toContain(await secretOf(stranger));
    expect(shown.headers['cache-control']).toBe('no-store');
    const viewed = await app.ctx.storage.audit.listForAccount(owner.accountId);
    expect(viewed.map((r) => r.action)).toContain('webhook_secret.viewed');
  });

  it('rotates the secret through the same service as the admin API; the old one keeps a grace period', async () => {
    const before = await secretOf(owner);
    const page = await getPage(app, '/panel/webhooks', cookie);
    const res = await postForm(app, '/panel/webhooks/rotate', cookie, { _csrf: csrfOf(page) });
    expect(res.statusCode).toBe(200);
    const after = await secretOf(owner);
    expect(after).not.toBe(before);
    expect(after).toMatch(/^whsec_/);
    expect(res.body).toContain(after);
    expect(res.body).toContain('previous secret still verifies until');
    const account = await app.http.inject({
      method: 'GET',
      url: `/admin/accounts/${owner.messagingId}`,
      headers: adminHeaders,
    });
    expect(account.json().webhook_secret).toBe(after);
    expect(await secretOf(stranger)).not.toBe(after);
    const audit = await app.ctx.storage.audit.listForAccount(owner.accountId);
    expect(audit.find((r) => r.action === 'webhook_secret.rotated')?.actor).toBe('owner');
  });

  it('the overview sums the owner’s keys only and lists recent tasks', async () => {
    const task = await app.http.inject({
      method: 'POST',
      url: '/generate',
      headers: owner.auth,
      payload: { params: { model_name: 'seedance-2', prompt: 'a lighthouse', duration: 5 } },
    });
    expect(task.statusCode).toBe(202);
    const html = await getPage(app, '/panel', cookie);
    expect(html).toContain('owner-key-main');
    expect(html).not.toContain('stranger-key-theirs');
    expect(html).toContain(task.json().task_id ?? task.json().id);
    expect(html).toContain('aria-current="page"');
  });

  it('shows a maintenance banner on every page while maintenance is on', async () => {
    await app.ctx.maintenance.set(true);
    try {
      for (const url of ['/panel', '/panel/webhooks', '/panel/audit', '/panel/security']) {
        expect(await getPage(app, url, cookie), url).toContain('Maintenance is on');
      }
    } finally {
      await app.ctx.maintenance.set(false);
    }
    expect(await getPage(app, '/panel', cookie)).not.toContain('Maintenance is on');
  });

  it('every page of this part answers 401 without a session and shows only the signed-in account', async () => {
    const theirs = await signIn(app, stranger.messagingId);
    for (const url of ['/panel', '/panel/webhooks', '/panel/audit', '/panel/security']) {
      expect((await app.http.inject({ method: 'GET', url })).statusCode, url).toBe(401);
      const html = await getPage(app, url, theirs);
      expect(html, url).not.toContain('owner-key-main');
      expect(html, url).not.toContain(`#${owner.messagingId}`);
    }
  });
});
