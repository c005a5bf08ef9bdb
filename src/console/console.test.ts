// The console's pages and changes through HTTP as a browser sends them: each change done and
// audited with its state before and after; bad input (a price below zero, a coefficient of zero, an
// adjust without a note, an unknown messaging id) answered on the page with nothing changed; and no
// full API key or webhook secret on any page but the one answer that created the key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestApp, patchKey, type TestApp, type TestKey } from '../testing/app.js';
import { consoleSignIn } from '../testing/console.js';
import { cookieFrom, csrfOf, postForm } from '../testing/panel.js';

let app: TestApp;
let cookie: string;
let owner: TestKey;

beforeAll(async () => {
  app = await createTestApp();
  cookie = await consoleSignIn(app);
  owner = await app.newKey({ balanceRub: 100, messagingId: 555001 });
});
afterAll(() => app.dispose());

const get = (url: string) => app.http.inject({ method: 'GET', url, headers: { cookie } });
async function post(url: string, fields: Record<string, string>, from = url) {
  const page = await get(from);
  return postForm(app, url, cookie, { ...fields, _csrf: csrfOf(page.body) });
}
const lastAudit = async (action: string) =>
  app.ctx.storage.db
    .selectFrom('operator_audit')
    .selectAll()
    .where('action', '=', action)
    .orderBy('id', 'desc')
    .executeTakeFirst();
const balance = async (keyId: number) => Number((await app.ctx.storage.keys.balanceOf(keyId))!.balance);

describe('accounts', () => {
  it('finds an account by messaging id and by key prefix; an unknown id is a clear error', async () => {
    const byId = await get('/console/accounts?q=555001');
    expect(byId.statusCode).toBe(200);
    expect(byId.body).toContain('href="/console/accounts/555001"');
    const key = await app.ctx.storage.keys.byIdForOperator(owner.keyId);
    const byPrefix = await get(
      `/console/accounts?q=${encodeURIComponent(`${key!.key_prefix}…${key!.key_last4}`)}`,
    );
    expect(byPrefix.body).toContain('href="/console/accounts/555001"');
    const unknown = await get('/console/accounts?q=987654321');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toContain('No account has the messaging id 987654321');
    const page = await get('/console/accounts/987654321');
    expect(page.statusCode).toBe(404);
    const neither = await get('/console/accounts?q=hello');
    expect(neither.statusCode).toBe(422);
    expect(neither.body).toContain('Search by a messaging id (digits) or a key prefix');
  });

  it('creates an account, audited; a coefficient of zero is refused and nothing changes', async () => {
    const created = await post(
      '/console/accounts',
      { messaging_id: '555002', coefficient: '1.25' },
      '/console/accounts',
    );
    expect(created.statusCode).toBe(303);
    expect(created.headers.location).toBe('/console/accounts/555002?done=created');
    expect(JSON.parse((await lastAudit('account.created'))!.after!)).toEqual({
      messaging_id: 555002,
      coefficient_ppm: 1_250_000,
    });

    const zero = await post(
      '/console/accounts/555002/coefficient',
      { coefficient: '0' },
      '/console/accounts/555002',
    );
    expect(zero.statusCode).toBe(422);
    expect(zero.body).toContain('coefficient must be positive');
    expect(Number((await app.ctx.storage.accounts.byMessagingId(555002))!.coefficient_ppm)).toBe(1_250_000);

    const ok = await post(
      '/console/accounts/555002/coefficient',
      { coefficient: '0.8' },
      '/console/accounts/555002',
    );
    expect(ok.statusCode).toBe(303);
    expect(Number((await app.ctx.storage.accounts.byMessagingId(555002))!.coefficient_ppm)).toBe(800_000);
    const entry = (await lastAudit('account.coefficient_changed'))!;
    expect(entry).toMatchObject({ actor: 'operator', target: 'account:555002' });
    expect(JSON.parse(entry.before!)).toEqual({ coefficient_ppm: 1_250_000 });
    expect(JSON.parse(entry.after!)).toEqual({ coefficient_ppm: 800_000 });
  });

  it("a new coefficient applies to the account's keys at once (their cached copies are evicted)", async () => {
    const key = await app.newKey({ balanceRub: 1, messagingId: 555005 });
    expect((await app.ctx.auth.authenticate(key.auth.authorization)).coefficientPpm).toBe(1_000_000);
    const ok = await post(
      '/console/accounts/555005/coefficient',
      { coefficient: '1.5' },
      '/console/accounts/555005',
    );
    expect(ok.statusCode).toBe(303);
    expect((await app.ctx.auth.authenticate(key.auth.authorization)).coefficientPpm).toBe(1_500_000);
  });

  it('tops up and adjusts with a note; an adjust without a note is refused and the balance stays', async () => {
    const url = `/console/accounts/555001/keys/${owner.keyId}/money`;
    const from = '/console/accounts/555001';
    const noNote = await post(url, { kind: 'adjust', amount_rub: '-10', note: '  ' }, from);
    expect(noNote.statusCode).toBe(422);
    expect(noNote.body).toContain('A note is required');
    expect(await balance(owner.keyId)).toBe(100_000_000);

    expect(
      (await post(url, { kind: 'topup', amount_rub: '50.5', note: 'bank transfer 17' }, from)).statusCode,
    ).toBe(303);
    expect(await balance(owner.keyId)).toBe(150_500_000);
    expect((await post(url, { kind: 'adjust', amount_rub: '-0.5', note: 'rounding' }, from)).statusCode).toBe(
      303,
    );
    expect(await balance(owner.keyId)).toBe(150_000_000);
    const entry = (await lastAudit('key.adjusted'))!;
    expect(JSON.parse(entry.before!)).toEqual({ balance: 150_500_000 });
    expect(JSON.parse(entry.after!)).toMatchObject({
      balance: 150_000_000,
      amount_micro: -500_000,
      note: 'rounding',
    });
    const notes = await app.ctx.storage.db
      .selectFrom('ledger_entries')
      .select(['kind', 'note'])
      .where('key_id', '=', owner.keyId)
      .where('kind', 'in', ['topup', 'adjust'])
      .orderBy('id')
      .execute();
    expect(notes.slice(-2)).toEqual([
      { kind: 'topup', note: 'bank transfer 17' },
      { kind: 'adjust', note: 'rounding' },
    ]);
  });

  it('another account’s key is not found through this account’s page', async () => {
    const other = await app.newKey({ balanceRub: 5, messagingId: 555003 });
    const res = await post(
      `/console/accounts/555001/keys/${other.keyId}/money`,
      { kind: 'topup', amount_rub: '1', note: 'x' },
      '/console/accounts/555001',
    );
    expect(res.statusCode).toBe(404);
    expect(await balance(other.keyId)).toBe(5_000_000);
  });

  it('shows a new key in full once, then only masked; never the webhook secret', async () => {
    const created = await post(
      '/console/accounts/555001/keys',
      { name: 'support', allowed_models: 'gpt-4o, flux-1-1-pro', rate_limit_per_min: '30' },
      '/console/accounts/555001',
    );
    expect(created.statusCode).toBe(303);
    const reveal = cookieFrom(created.headers, 'gengate_console_reveal')!;
    const shown = await app.http.inject({
      method: 'GET',
      url: created.headers.location as string,
      headers: { cookie: `${cookie}; ${reveal}` },
    });
    const secret = /data-new-key>([^<]+)</.exec(shown.body)?.[1];
    expect(secret).toMatch(/^sk_live_/);
    // That answer clears the cookie: a reload shows only the masked key.
    expect(cookieFrom(shown.headers, 'gengate_console_reveal')).toBe('gengate_console_reveal=');
    const account = (await app.ctx.storage.accounts.byMessagingId(555001))!;
    // A value that is not this account's key is never echoed back.
    const forged = await app.http.inject({
      method: 'GET',
      url: '/console/accounts/555001',
      headers: { cookie: `${cookie}; gengate_console_reveal=${owner.keyId}_sk_live_forgedforgedforged` },
    });
    expect(forged.body).not.toContain('forgedforged');
    const later = await get('/console/accounts/555001');
    expect(later.body).not.toContain(secret);
    expect(later.body).toContain('models: gpt-4o, flux-1-1-pro');
    expect(later.body).toContain('30/min');
    for (const page of [shown.body, later.body]) expect(page).not.toContain(account.webhook_secret);
    const audit = await app.ctx.storage.db.selectFrom('operator_audit').select(['before', 'after']).execute();
    for (const row of audit) {
      expect(`${row.before}${row.after}`).not.toContain(secret!);
      expect(`${row.before}${row.after}`).not.toContain(account.webhook_secret);
    }
  });

  it("shows a key's limits and the account's low-balance threshold, set through the admin API", async () => {
    const key = await app.newKey({ balanceRub: 50, messagingId: 555004 });
    const page = async () => (await get('/console/accounts/555004')).body;
    expect(await page()).toContain('Low-balance notice on Telegram: off');
    await patchKey(app, key, { expires_at: '2099-12-31', spend_limit_rub: 30, spend_limit_period: 'month' });
    const threshold = await app.http.inject({
      method: 'PATCH',
      url: '/admin/accounts/555004',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { low_balance_rub: 2.5 },
    });
    expect(threshold.statusCode).toBe(200);
    const body = await page();
    expect(body).toContain('expires 2099-12-31');
    expect(body).toContain('spent 0 of 30 ₽ per month');
    expect(body).toMatch(/Low-balance notice on Telegram: below 2\.50/);
  });

  it('restricts a key (a bad address range refused, nothing changed) and deletes it, audited', async () => {
    const key = await app.newKey({ balanceRub: 0, messagingId: 555001 });
    const url = `/console/accounts/555001/keys/${key.keyId}/restrictions`;
    const bad = await post(url, { allowed_ip_cidrs: '300.1.2.3/8' }, '/console/accounts/555001');
    expect(bad.statusCode).toBe(422);
    expect((await app.ctx.storage.keys.byIdForOperator(key.keyId))!.allowed_ip_cidrs).toBeNull();
    const ok = await post(
      url,
      { allowed_models: 'gpt-4o', allowed_ip_cidrs: '203.0.113.0/24', rate_limit_per_min: '7' },
      '/console/accounts/555001',
    );
    expect(ok.statusCode).toBe(303);
    const row = (await app.ctx.storage.keys.byIdForOperator(key.keyId))!;
    expect(JSON.parse(row.allowed_models!)).toEqual(['gpt-4o']);
    expect(row.rate_limit_per_min).toBe(7);
    const entry = (await lastAudit('key.restrictions_changed'))!;
    expect(JSON.parse(entry.before!)).toMatchObject({ allowed_models: null, rate_limit_per_min: null });
    expect(JSON.parse(entry.after!)).toMatchObject({
      allowed_models: ['gpt-4o'],
      allowed_ip_cidrs: ['203.0.113.0/24'],
      rate_limit_per_min: 7,
    });
    const deleted = await post(
      `/console/accounts/555001/keys/${key.keyId}/delete`,
      {},
      '/console/accounts/555001',
    );
    expect(deleted.statusCode).toBe(303);
    expect(await app.ctx.storage.keys.byIdForOperator(key.keyId)).toBeUndefined();
    expect(JSON.parse((await lastAudit('key.deleted'))!.before!)).toMatchObject({ id: key.keyId });
  });

  it('makes a one-time panel sign-in link for support that opens the owner’s panel', async () => {
    const res = await post('/console/accounts/555001/panel-link', {}, '/console/accounts/555001');
    expect(res.statusCode).toBe(303);
    const shown = await app.http.inject({
      method: 'GET',
      url: res.headers.location as string,
      headers: { cookie: `${cookie}; ${cookieFrom(res.headers, 'gengate_console_reveal')}` },
    });
    const url = /data-panel-link>([^<]+)</.exec(shown.body)?.[1];
    expect(url).toMatch(/\/panel\/login\?token=/);
    const confirm = await app.http.inject({
      method: 'GET',
      url: new URL(url!).pathname + new URL(url!).search,
    });
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('555001');
  });
});

describe('models', () => {
  it('lists internal variants; a price below zero is refused and nothing changes', async () => {
    const list = await get('/console/models');
    expect(list.body).toContain('veo-3-fast:audio');
    const before = (await app.ctx.catalog.get('flux-1-1-pro'))!;
    const below = await post(
      '/console/models/flux-1-1-pro',
      { price_rub: '-1', active: '1', visible: '1' },
      '/console/models',
    );
    expect(below.statusCode).toBe(422);
    expect(below.body).toContain('price must not be below zero');
    expect((await app.ctx.catalog.get('flux-1-1-pro'))!.priceMicro).toBe(before.priceMicro);

    const ok = await post(
      '/console/models/flux-1-1-pro',
      { price_rub: '5.25', active: '1' },
      '/console/models',
    );
    expect(ok.statusCode).toBe(303);
    const after = (await app.ctx.catalog.get('flux-1-1-pro'))!;
    expect(after).toMatchObject({ priceMicro: 5_250_000, active: true, visible: false });
    const entry = (await lastAudit('model.updated'))!;
    expect(JSON.parse(entry.before!)).toMatchObject({ price_micro: before.priceMicro, visible: true });
    expect(JSON.parse(entry.after!)).toMatchObject({ price_micro: 5_250_000, visible: false });
  });
});

describe('maintenance, tasks, webhooks, providers, margin, audit', () => {
  it('turns maintenance on and off, audited', async () => {
    expect((await post('/console/maintenance', { enabled: '1' })).statusCode).toBe(303);
    expect(await app.ctx.maintenance.isEnabled()).toBe(true);
    expect((await get('/console/accounts')).body).toContain('Maintenance is on');
    expect((await post('/console/maintenance', { enabled: '0' })).statusCode).toBe(303);
    expect(await app.ctx.maintenance.isEnabled()).toBe(false);
    expect(JSON.parse((await lastAudit('maintenance.off'))!.before!)).toEqual({ enabled: true });
  });

  it('an unknown or malformed task id is a clear error', async () => {
    const unknown = await get('/console/tasks?id=00000000-0000-7000-8000-000000000000');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toContain('No task has the id');
    expect((await get('/console/tasks?id=nope')).statusCode).toBe(422);
  });

  it('every page answers for a signed-in operator', async () => {
    for (const url of [
      '/console/providers',
      '/console/webhooks',
      '/console/margin',
      '/console/audit',
      '/console/tasks',
    ])
      expect((await get(url)).statusCode, url).toBe(200);
    const bad = await get('/console/margin?from=2026-02-30');
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('from is not a valid date');
  });
});
