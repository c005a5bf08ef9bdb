// Top-ups through YooKassa, end to end on both engines: the HTTP API, the loopback fake, the
// notification hook and reconcile. After every scenario the ledger check is clean.
import { afterEach, describe, expect, it } from 'vitest';
import { ENGINES } from '../../../testing/db.js';
import {
  balanceRub,
  createTopup,
  eachPaymentsHarness,
  expectLedgerClean,
  type PaymentsHarness,
  paymentsHarness,
  topupEntries,
} from '../../../testing/payments.js';

describe.each(ENGINES)('top-ups by YooKassa on %s', (engine) => {
  let h: PaymentsHarness;
  eachPaymentsHarness(engine, (harness) => {
    h = harness;
  });

  const create = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    createTopup(h, body, headers);
  const hook = (body: unknown, remoteAddress = '127.0.0.1') =>
    h.app.http.inject({
      method: 'POST',
      url: '/hooks/payments/yookassa',
      payload: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
      remoteAddress,
    });

  it('lists the methods that are on, with the bounds', async () => {
    const res = await h.app.http.inject({ method: 'GET', url: '/me/topup-methods', headers: h.key.auth });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      methods: ['yookassa', 'stripe'],
      min_rub: 100,
      max_rub: 100000,
      receipts: false,
    });
  });

  it('creates a payment with the top-up id as Idempotence-Key and credits once on ten concurrent notifications', async () => {
    const res = await create({
      amount_rub: 500,
      method: 'yookassa',
      return_url: 'https://shop.example/back',
    });
    expect(res.statusCode).toBe(201);
    const topup = res.json();
    expect(topup).toMatchObject({ status: 'pending', method: 'yookassa', amount_rub: 500 });
    expect(topup.id).toMatch(/^tu_/);
    const [call] = h.yookassa.createCalls();
    expect(call.headers['idempotence-key']).toBe(topup.id);
    expect(call.json).toMatchObject({
      amount: { value: '500.00', currency: 'RUB' },
      capture: true,
      confirmation: { type: 'redirect', return_url: 'https://shop.example/back' },
      metadata: { topup_id: topup.id },
    });
    expect(call.json.receipt).toBeUndefined();
    const paymentId = [...h.yookassa.payments.keys()][0];
    expect(topup.confirmation_url).toBe(h.yookassa.payments.get(paymentId)?.confirmation.confirmation_url);

    h.yookassa.succeed(paymentId);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => hook(h.yookassa.notification(paymentId))),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(10).fill(200));
    expect(await balanceRub(h.app, h.key)).toBe(500);
    expect((await topupEntries(h.app, topup.id)).map((e) => [e.kind, Number(e.amount)])).toEqual([
      ['topup', 500_000_000],
    ]);
    const read = await h.app.http.inject({
      method: 'GET',
      url: `/me/topups/${topup.id}`,
      headers: h.key.auth,
    });
    expect(read.json()).toMatchObject({ id: topup.id, status: 'succeeded', amount_rub: 500 });
    expect(read.json().paid_at).not.toBeNull();
    const metrics = (await h.app.http.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toContain('gengate_topups_total{method="yookassa",outcome="created"} 1');
    expect(metrics).toContain('gengate_topups_total{method="yookassa",outcome="succeeded"} 1');
    expect(metrics).toContain('gengate_topup_credited_microrubles_total{method="yookassa"} 500000000');
    expect(metrics).toContain(
      'gengate_topup_settle_seconds_count{method="yookassa",source="notification"} 1',
    );
  });

  it('acts on the payment read back, never on the notification body', async () => {
    const topup = (await create({ amount_rub: 150.5, method: 'yookassa' })).json();
    const paymentId = [...h.yookassa.payments.keys()][0];
    // A notification claiming success while YooKassa still says pending.
    const forged = { ...h.yookassa.payments.get(paymentId), status: 'succeeded', paid: true };
    expect((await hook(h.yookassa.notification(paymentId, 'payment.succeeded', forged))).statusCode).toBe(
      200,
    );
    expect(await balanceRub(h.app, h.key)).toBe(0);
    expect(h.yookassa.server.calls(/^\/v3\/payments\/[^/]+$/, 'GET')).toHaveLength(1);
    const read = await h.app.http.inject({
      method: 'GET',
      url: `/me/topups/${topup.id}`,
      headers: h.key.auth,
    });
    expect(read.json().status).toBe('pending');
  });

  it('ignores a notification for a payment it does not know, without reading it', async () => {
    const res = await hook({
      type: 'notification',
      event: 'payment.succeeded',
      object: { id: 'unknown-payment', status: 'succeeded' },
    });
    expect(res.statusCode).toBe(200);
    expect(h.yookassa.server.calls(/^\/v3\/payments\//, 'GET')).toHaveLength(0);
  });

  it('refuses notifications from outside the allowed addresses', async () => {
    await create({ amount_rub: 200, method: 'yookassa' });
    const paymentId = [...h.yookassa.payments.keys()][0];
    h.yookassa.succeed(paymentId);
    const res = await hook(h.yookassa.notification(paymentId), '203.0.113.7');
    expect(res.statusCode).toBe(403);
    expect(await balanceRub(h.app, h.key)).toBe(0);
  });

  it('cancels on payment.canceled confirmed by the read-back', async () => {
    const topup = (await create({ amount_rub: 300, method: 'yookassa' })).json();
    const paymentId = [...h.yookassa.payments.keys()][0];
    h.yookassa.cancel(paymentId);
    expect((await hook(h.yookassa.notification(paymentId, 'payment.canceled'))).statusCode).toBe(200);
    const read = await h.app.http.inject({
      method: 'GET',
      url: `/me/topups/${topup.id}`,
      headers: h.key.auth,
    });
    expect(read.json()).toMatchObject({ status: 'canceled', paid_at: null });
  });

  it('refuses bad amounts, methods that are off or unknown, and bad emails with the documented codes', async () => {
    for (const amount of [99.99, 100000.01, 100.001, '12,5', -5, 'abc', null]) {
      const res = await create({ amount_rub: amount, method: 'yookassa' });
      expect(res.statusCode, String(amount)).toBe(422);
      expect(res.json().error.code).toBe('invalid_amount');
    }
    for (const method of ['paypal', undefined, 5]) {
      const res = await create({ amount_rub: 500, method });
      expect(res.statusCode).toBe(422);
      expect(res.json().error.code).toBe('topup_method_unavailable');
    }
    const email = await create({ amount_rub: 500, method: 'yookassa', email: 'not-an-email' });
    expect(email.json().error.code).toBe('email_required');
    expect(h.yookassa.createCalls()).toHaveLength(0);
  });

  it('answers 502 when YooKassa keeps failing, records nothing, and a retry with the same key makes one payment', async () => {
    h.yookassa.createFaults = [500, 500, 500];
    const headers = { 'idempotency-key': 'topup-retry-0001' };
    const failed = await create({ amount_rub: 500, method: 'yookassa' }, headers);
    expect(failed.statusCode).toBe(502);
    expect(failed.json().error.code).toBe('payment_provider_error');
    expect(
      (await h.app.http.inject({ method: 'GET', url: '/me/topups', headers: h.key.auth })).json().data,
    ).toEqual([]);
    // The three attempts carried one Idempotence-Key.
    expect(new Set(h.yookassa.createCalls().map((c) => c.headers['idempotence-key'])).size).toBe(1);

    const retried = await create({ amount_rub: 500, method: 'yookassa' }, headers);
    expect(retried.statusCode).toBe(201);
    expect(h.yookassa.payments.size).toBe(1);
    const again = await create({ amount_rub: 500, method: 'yookassa' }, headers);
    expect(again.json().id).toBe(retried.json().id);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(h.yookassa.payments.size).toBe(1);
  });

  it('answers 504 when YooKassa is slow, and the retry finds the payment it had accepted', async () => {
    h.yookassa.createFaults = ['hang', 'hang', 'hang'];
    const headers = { 'idempotency-key': 'topup-slow-00001' };
    const slow = await create({ amount_rub: 700, method: 'yookassa' }, headers);
    expect(slow.statusCode).toBe(504);
    expect(slow.json().error.code).toBe('payment_provider_timeout');
    expect(h.yookassa.payments.size).toBe(1);
    expect(
      (await h.app.http.inject({ method: 'GET', url: '/me/topups', headers: h.key.auth })).json().data,
    ).toEqual([]);
    const retried = await create({ amount_rub: 700, method: 'yookassa' }, headers);
    expect(retried.statusCode).toBe(201);
    expect(h.yookassa.payments.size).toBe(1);
  });

  it('reconcile credits a paid top-up whose notification was lost, once, and cancels one unpaid for 24 hours', async () => {
    const paid = (await create({ amount_rub: 400, method: 'yookassa' })).json();
    const unpaid = (await create({ amount_rub: 100, method: 'yookassa' })).json();
    const [paidPayment] = [...h.yookassa.payments.values()];
    h.yookassa.succeed(paidPayment.id);
    // Due now; the unpaid one is 25 hours old.
    await h.app.ctx.storage.db.updateTable('topups').set({ check_at: 0 }).execute();
    await h.app.ctx.storage.db
      .updateTable('topups')
      .set({ created_at: Date.now() - 25 * 3600_000 })
      .where('id', '=', unpaid.id)
      .execute();
    const passes = await Promise.all([
      h.app.ctx.payments.topups.reconcileOnce(),
      h.app.ctx.payments.topups.reconcileOnce(),
    ]);
    expect(passes.reduce((n, p) => n + p.credited, 0)).toBe(1);
    expect(passes.reduce((n, p) => n + p.canceled, 0)).toBe(1);
    expect(await balanceRub(h.app, h.key)).toBe(400);
    // A late notification changes nothing.
    expect((await hook(h.yookassa.notification(paidPayment.id))).statusCode).toBe(200);
    expect(await balanceRub(h.app, h.key)).toBe(400);
    const list = (await h.app.http.inject({ method: 'GET', url: '/me/topups', headers: h.key.auth })).json();
    expect(list.data.map((t: any) => [t.id, t.status])).toEqual(
      expect.arrayContaining([
        [paid.id, 'succeeded'],
        [unpaid.id, 'canceled'],
      ]),
    );
  });

  it("keeps each key's top-ups to itself, and pages the list newest first", async () => {
    const ids: string[] = [];
    for (const amount of [100, 200, 300])
      ids.push((await create({ amount_rub: amount, method: 'yookassa' })).json().id);
    const other = await h.app.newKey({ balanceRub: 0 });
    const hidden = await h.app.http.inject({
      method: 'GET',
      url: `/me/topups/${ids[0]}`,
      headers: other.auth,
    });
    expect(hidden.statusCode).toBe(404);
    expect(
      (await h.app.http.inject({ method: 'GET', url: '/me/topups', headers: other.auth })).json().data,
    ).toEqual([]);
    const first = (
      await h.app.http.inject({ method: 'GET', url: '/me/topups?limit=2', headers: h.key.auth })
    ).json();
    expect(first.has_more).toBe(true);
    const second = (
      await h.app.http.inject({
        method: 'GET',
        url: `/me/topups?limit=2&after=${first.data[1].id}`,
        headers: h.key.auth,
      })
    ).json();
    expect([...first.data, ...second.data].map((t: any) => t.id).sort()).toEqual([...ids].sort());
    expect(second.has_more).toBe(false);
  });
});

describe('top-ups by YooKassa with receipts', () => {
  let h: PaymentsHarness | undefined;
  afterEach(async () => {
    if (!h) return;
    await expectLedgerClean(h.app);
    await h.dispose();
  });

  it('requires the payer email and sends the 54-FZ receipt', async () => {
    const harness = await paymentsHarness('sqlite', { receipts: true });
    h = harness;
    const methods = await harness.app.http.inject({
      method: 'GET',
      url: '/me/topup-methods',
      headers: harness.key.auth,
    });
    expect(methods.json().receipts).toBe(true);
    const missing = await harness.app.http.inject({
      method: 'POST',
      url: '/me/topups',
      headers: harness.key.auth,
      payload: { amount_rub: 500, method: 'yookassa' },
    });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().error.code).toBe('email_required');
    const ok = await harness.app.http.inject({
      method: 'POST',
      url: '/me/topups',
      headers: harness.key.auth,
      payload: { amount_rub: '500.10', method: 'yookassa', email: 'payer@example.com' },
    });
    expect(ok.statusCode).toBe(201);
    const [call] = harness.yookassa.createCalls();
    expect(call.json.receipt).toEqual({
      customer: { email: 'payer@example.com' },
      items: [
        {
          description: expect.any(String),
          quantity: '1.00',
          amount: { value: '500.10', currency: 'RUB' },
          vat_code: 1,
          payment_mode: 'full_prepayment',
          payment_subject: 'service',
        },
      ],
    });
  });
});
