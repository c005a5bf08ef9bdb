// The console's pages and changes through HTTP as a browser sends them: each change done and
// audited with its state before and after; bad input (a price below zero, a coefficient of zero, an
// adjust without a note, an unknown messaging id) answered on the page with nothing changed; and no
// full API key or webhook secret on any page but the one answer that created the key.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestApp, patchKey, type TestApp, type TestKey } from '../testing/app.js';
import { consoleSignIn } from '../testing/console.js';
import { ENGINES } from '../testing/db.js';
import { cookieFrom, csrfOf, postForm } from '../testing/panel.js';
import { balanceRub, expectLedgerClean, type PaymentsHarness, paymentsHarness } from '../testing/payments.js';

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

// Money in: top-ups of every account with filters, refunds (done, refused with nothing changed),
// and codes shown once; on both engines (the list and the refunds and codes under it are queries).
describe.each(ENGINES)('money in on %s', (engine) => {
  let h: PaymentsHarness;
  let jar: string;
  beforeEach(async () => {
    h = await paymentsHarness(engine);
    jar = await consoleSignIn(h.app);
  });
  afterEach(async () => {
    await expectLedgerClean(h.app);
    await h.dispose();
  });

  const page = (url: string) => h.app.http.inject({ method: 'GET', url, headers: { cookie: jar } });
  async function send(url: string, fields: Record<string, string>, from: string) {
    return postForm(h.app, url, jar, { ...fields, _csrf: csrfOf((await page(from)).body) });
  }
  const audits = (action: string) =>
    h.app.ctx.storage.db.selectFrom('operator_audit').selectAll().where('action', '=', action).execute();

  /** A YooKassa top-up of the harness key, paid (or left pending). */
  async function topup(amount: number, paid = true): Promise<string> {
    const res = await h.app.http.inject({
      method: 'POST',
      url: '/me/topups',
      headers: h.key.auth,
      payload: { amount_rub: amount, method: 'yookassa' },
    });
    const id = res.json().id as string;
    if (paid) {
      const payment = [...h.yookassa.payments.values()].find((p) => p.metadata.topup_id === id)!;
      h.yookassa.succeed(payment.id);
      const method = h.app.ctx.payments.methods.get('yookassa')!;
      await h.app.ctx.payments.topups.apply(method, await method.readPayment(payment.id), 'test');
    }
    return id;
  }

  it('lists top-ups with key, messaging id, provider id, amount and status, and filters them', async () => {
    const paid = await topup(500);
    const pending = await topup(300, false);
    const all = await page('/console/topups');
    expect(all.statusCode).toBe(200);
    const row = (await h.app.ctx.storage.topups.byId(paid))!;
    for (const text of [paid, pending, row.provider_payment_id!, `key #${h.key.keyId}`, '500', 'yookassa'])
      expect(all.body).toContain(text);
    const mid = (await h.app.ctx.storage.accounts.byId(Number(row.account_id)))!.messaging_id;
    expect(all.body).toContain(`href="/console/accounts/${mid}"`);

    const onlyPaid = await page('/console/topups?status=succeeded');
    expect(onlyPaid.body).toContain(paid);
    expect(onlyPaid.body).not.toContain(pending);
    const byMid = await page(`/console/topups?messaging_id=${mid}&method=yookassa`);
    expect(byMid.body).toContain(paid);
    const other = await page('/console/topups?messaging_id=999999999');
    expect(other.body).not.toContain(paid);
    expect(other.body).toContain('No top-ups match.');
    const stripe = await page('/console/topups?method=stripe');
    expect(stripe.body).not.toContain(paid);
    const bad = await page('/console/topups?status=lost');
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('status must be one of');
    expect((await page('/console/topups?messaging_id=abc')).body).toContain('messaging id must be digits');
  });

  it('refunds part of a paid top-up through the provider, shows the refund on its row, audited', async () => {
    const id = await topup(500);
    const res = await send(
      `/console/topups/${id}/refund`,
      { amount_rub: '200', confirm: 'yes' },
      '/console/topups',
    );
    expect(res.statusCode, res.body.slice(0, 500)).toBe(303);
    expect(res.headers.location).toContain('done=refunded');
    expect(await balanceRub(h.app, h.key)).toBe(300);
    const [call] = h.yookassa.server.calls(/^\/v3\/refunds$/, 'POST');
    expect(call.json.amount).toEqual({ value: '200.00', currency: 'RUB' });
    const after = await page(res.headers.location as string);
    expect(after.body).toContain('Refund made');
    expect(after.body).toMatch(/data-refund="rf_[0-9a-f]+"/);
    expect(after.body).toMatch(new RegExp(`data-status="${id}">[^]*?refunded`));
    const [audit] = await audits('topup.refunded');
    expect(audit.actor).toBe('operator');
    expect(audit.target).toBe(`topup:${id}`);
    expect(JSON.parse(audit.before!)).toMatchObject({ status: 'succeeded', amount_micro: 500_000_000 });
    expect(JSON.parse(audit.after!)).toMatchObject({
      status: 'refunded',
      refund: { status: 'succeeded', amount_micro: 200_000_000 },
    });
  });

  it('a refund without confirmation, above the balance, or of an unpaid top-up is refused on the page and nothing changes', async () => {
    const id = await topup(500);
    const pending = await topup(100, false);
    const unconfirmed = await send(`/console/topups/${id}/refund`, { amount_rub: '' }, '/console/topups');
    expect(unconfirmed.statusCode).toBe(422);
    expect(unconfirmed.body).toContain('Tick the confirmation');

    // The key spends 450 of its 500: a full refund would take it below zero.
    await h.app.ctx.accounts.adjust(h.key.keyId, '-450', 'spent', { actor: 'admin', ip: '127.0.0.1' });
    const tooMuch = await send(
      `/console/topups/${id}/refund`,
      { amount_rub: '', confirm: 'yes' },
      '/console/topups',
    );
    expect(tooMuch.statusCode).toBe(409);
    expect(tooMuch.body).toContain('Not refunded');
    expect(tooMuch.body).toContain('cannot be refunded that much');
    const unpaid = await send(`/console/topups/${pending}/refund`, { confirm: 'yes' }, '/console/topups');
    expect(unpaid.statusCode).toBe(409);
    expect(unpaid.body).toContain('only a succeeded one can be refunded');

    expect(await balanceRub(h.app, h.key)).toBe(50);
    expect((await h.app.ctx.storage.topups.byId(id))!.status).toBe('succeeded');
    expect(await h.app.ctx.storage.topups.refundsOfTopups([id, pending])).toEqual([]);
    expect(h.yookassa.server.calls(/^\/v3\/refunds$/, 'POST')).toHaveLength(0);
    expect(await audits('topup.refunded')).toHaveLength(0);
    const noCsrf = await postForm(h.app, `/console/topups/${id}/refund`, jar, { confirm: 'yes' });
    expect(noCsrf.statusCode).toBe(403);
  });

  it('creates codes shown once, lists them hashed with their state, audited; a redeemed one shows its key', async () => {
    const made = await send(
      '/console/codes',
      { amount_rub: '150', count: '3', expires_at: '' },
      '/console/codes',
    );
    expect(made.statusCode, made.body.slice(0, 500)).toBe(303);
    const reveal = cookieFrom(made.headers, 'gengate_console_codes')!;
    const shown = await h.app.http.inject({
      method: 'GET',
      url: made.headers.location as string,
      headers: { cookie: `${jar}; ${reveal}` },
    });
    const codes = /<pre data-new-codes>([^<]+)<\/pre>/.exec(shown.body)![1].split('\n');
    expect(codes).toHaveLength(3);
    for (const code of codes) expect(code).toMatch(/^GG-[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
    expect(cookieFrom(shown.headers, 'gengate_console_codes')).toBe('gengate_console_codes=');
    const again = await page('/console/codes');
    for (const code of codes) expect(again.body).not.toContain(code);
    expect(again.body.match(/data-code-state="cd_[0-9a-f]+">[^<]*<span[^>]*>unused/g)).toHaveLength(3);

    const redeemed = await h.app.http.inject({
      method: 'POST',
      url: '/me/redeem',
      headers: h.key.auth,
      payload: { code: codes[0] },
    });
    expect(redeemed.statusCode).toBe(200);
    const listed = await page('/console/codes');
    expect(listed.body).toContain(`key #${h.key.keyId}`);
    expect(listed.body).toMatch(/>used</);
    // A used code is no longer revealed, even with the cookie replayed.
    const replay = await h.app.http.inject({
      method: 'GET',
      url: '/console/codes',
      headers: { cookie: `${jar}; ${reveal}` },
    });
    expect(replay.body).not.toContain('data-new-codes');

    const [audit] = await audits('codes.created');
    const after = JSON.parse(audit.after!);
    expect(after).toMatchObject({ count: 3, amount_micro: 150_000_000, expires_at: null });
    expect(after.ids).toHaveLength(3);
    expect(audit.after).not.toContain(codes[1]);

    const bad = await send('/console/codes', { amount_rub: '0', count: '1' }, '/console/codes');
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('amount_rub must be a positive number');
    const tooMany = await send('/console/codes', { amount_rub: '10', count: '101' }, '/console/codes');
    expect(tooMany.body).toContain('count must be an integer from 1 to 100');
    expect(await audits('codes.created')).toHaveLength(1);
    const dated = await send(
      '/console/codes',
      { amount_rub: '5', count: '1', expires_at: '2099-01-01' },
      '/console/codes',
    );
    expect(dated.statusCode).toBe(303);
    const [newest] = await h.app.ctx.storage.topups.listCodes(1);
    expect(Number(newest.expires_at)).toBe(Date.parse('2099-01-01'));
    const past = await send(
      '/console/codes',
      { amount_rub: '5', count: '1', expires_at: '2020-01-01' },
      '/console/codes',
    );
    expect(past.statusCode).toBe(422);
    expect(past.body).toContain('expires_at must be a future time');
    // Without the form's CSRF token, or without a session, nothing is made.
    expect((await postForm(h.app, '/console/codes', jar, { amount_rub: '10' })).statusCode).toBe(403);
    const signedOut = await h.app.http.inject({ method: 'GET', url: '/console/codes' });
    expect(signedOut.statusCode).toBe(401);
    expect(signedOut.body).not.toContain('data-code-state');
    expect(await h.app.ctx.storage.topups.listCodes(10)).toHaveLength(4);
  });
});
