// The operator's side of money in, on both engines: refunds (debited before the provider is asked,
// reversed when it refuses, never below the key's available balance), the list with its filters,
// and codes (created once in clear, stored hashed, redeemed once, rate-limited per key).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashCode } from '../../../services/payments/codes.js';
import { ADMIN_TOKEN } from '../../../testing/app.js';
import { ENGINES } from '../../../testing/db.js';
import {
  balanceRub,
  expectLedgerClean,
  type PaymentsHarness,
  paymentsHarness,
} from '../../../testing/payments.js';

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

describe.each(ENGINES)('operator payments on %s', (engine) => {
  let h: PaymentsHarness;
  beforeEach(async () => {
    h = await paymentsHarness(engine);
  });
  afterEach(async () => {
    await expectLedgerClean(h.app);
    await h.dispose();
  });

  async function paidTopup(amount: number, method = 'yookassa') {
    const res = await h.app.http.inject({
      method: 'POST',
      url: '/me/topups',
      headers: h.key.auth,
      payload: { amount_rub: amount, method },
    });
    const topup = res.json();
    if (method === 'yookassa') {
      const payment = [...h.yookassa.payments.values()].find((p) => p.metadata.topup_id === topup.id)!;
      h.yookassa.succeed(payment.id);
      await h.app.ctx.payments.topups.apply(
        h.app.ctx.payments.methods.get('yookassa')!,
        await h.app.ctx.payments.methods.get('yookassa')!.readPayment(payment.id),
        'test',
      );
    } else {
      const session = [...h.stripe.sessions.values()].find((s) => s.client_reference_id === topup.id)!;
      h.stripe.complete(session.id);
      const method = h.app.ctx.payments.methods.get('stripe')!;
      await h.app.ctx.payments.topups.apply(method, await method.readPayment(session.id), 'test');
    }
    return topup.id as string;
  }

  const refund = (id: string, body: Record<string, unknown> = {}) =>
    h.app.http.inject({ method: 'POST', url: `/admin/topups/${id}/refund`, headers: admin, payload: body });

  it('refunds a paid top-up through YooKassa with an idempotency key, debiting the key', async () => {
    const id = await paidTopup(500);
    const res = await refund(id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id,
      status: 'refunded',
      key_id: h.key.keyId,
      refund: { status: 'succeeded', amount_rub: 500 },
    });
    expect(await balanceRub(h.app, h.key)).toBe(0);
    const [call] = h.yookassa.server.calls(/^\/v3\/refunds$/, 'POST');
    expect(call.headers['idempotence-key']).toBe(res.json().refund.id);
    expect(call.json.amount).toEqual({ value: '500.00', currency: 'RUB' });
    const again = await refund(id);
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('topup_not_refundable');
  });

  it('refunds part of a Stripe top-up in its currency', async () => {
    const id = await paidTopup(900, 'stripe');
    const res = await refund(id, { amount_rub: 450 });
    expect(res.statusCode).toBe(200);
    expect(h.stripe.refunds).toHaveLength(1);
    expect(h.stripe.refunds[0].amount).toBe(500);
    expect(await balanceRub(h.app, h.key)).toBe(450);
  });

  it('answers 409 refund_exceeds_balance when the key spent the money, changing nothing', async () => {
    const id = await paidTopup(500);
    await h.app.ctx.storage.ledger.adjust(
      { keyId: h.key.keyId, accountId: h.key.accountId, now: Date.now() },
      -200_000_000,
      'spent',
    );
    const res = await refund(id);
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('refund_exceeds_balance');
    expect(h.yookassa.server.calls(/^\/v3\/refunds$/)).toHaveLength(0);
    expect(await balanceRub(h.app, h.key)).toBe(300);
    const list = (
      await h.app.http.inject({ method: 'GET', url: '/admin/topups?status=succeeded', headers: admin })
    ).json();
    expect(list.data.map((t: any) => t.id)).toEqual([id]);
  });

  it('reverses the debit when the provider refuses the refund', async () => {
    const id = await paidTopup(500);
    h.yookassa.refuseRefunds = true;
    const res = await refund(id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'succeeded', refund: { status: 'refused' } });
    expect(await balanceRub(h.app, h.key)).toBe(500);
    const kinds = (await h.app.ctx.storage.ledger.entriesForKey(h.key.keyId)).map((e) => e.kind);
    expect(kinds.slice(-2)).toEqual(['refund', 'refund_reversal']);
  });

  it('keeps a refund whose answer was lost pending, and reconcile asks again with the same key', async () => {
    const id = await paidTopup(500);
    h.yookassa.refundFaults = [500, 500, 500];
    const res = await refund(id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'refunded', refund: { status: 'pending' } });
    expect(await balanceRub(h.app, h.key)).toBe(0);
    const refundId = res.json().refund.id;
    // A minute later (the retry's pause), with YooKassa back.
    await h.app.ctx.storage.db.updateTable('topup_refunds').set({ updated_at: 0 }).execute();
    await h.app.ctx.payments.topups.reconcileOnce();
    const calls = h.yookassa.server.calls(/^\/v3\/refunds$/, 'POST');
    expect(calls.length).toBe(4);
    expect(new Set(calls.map((c) => c.headers['idempotence-key']))).toEqual(new Set([refundId]));
    expect(h.yookassa.refunds.size).toBe(1);
    const stored = await h.app.ctx.storage.topups.refundById(refundId);
    expect(stored?.status).toBe('succeeded');
    expect(await balanceRub(h.app, h.key)).toBe(0);
  });

  it('refuses a bad refund amount and an unknown top-up', async () => {
    const id = await paidTopup(500);
    for (const amount of [0, 500.01, 1.001, 'x']) {
      const res = await refund(id, { amount_rub: amount });
      expect(res.statusCode).toBe(422);
      expect(res.json().error.code).toBe('invalid_amount');
    }
    expect((await refund('tu_missing')).statusCode).toBe(404);
  });

  it('lists top-ups with their key, account and payment id, filtered', async () => {
    const paid = await paidTopup(500);
    await h.app.http.inject({
      method: 'POST',
      url: '/me/topups',
      headers: h.key.auth,
      payload: { amount_rub: 100, method: 'stripe' },
    });
    const all = (await h.app.http.inject({ method: 'GET', url: '/admin/topups', headers: admin })).json();
    expect(all.data).toHaveLength(2);
    expect(all.data[1]).toMatchObject({ id: paid, key_id: h.key.keyId, messaging_id: h.key.messagingId });
    expect(all.data[1].provider_payment_id).toEqual(expect.any(String));
    const stripe = (
      await h.app.http.inject({ method: 'GET', url: '/admin/topups?method=stripe', headers: admin })
    ).json();
    expect(stripe.data.map((t: any) => t.method)).toEqual(['stripe']);
    const byAccount = (
      await h.app.http.inject({
        method: 'GET',
        url: `/admin/topups?messaging_id=${h.key.messagingId}&limit=1`,
        headers: admin,
      })
    ).json();
    expect(byAccount.has_more).toBe(true);
    expect(
      (await h.app.http.inject({ method: 'GET', url: '/admin/topups?status=nope', headers: admin }))
        .statusCode,
    ).toBe(422);
    expect((await h.app.http.inject({ method: 'GET', url: '/admin/topups' })).statusCode).toBe(401);
  });

  it('creates codes shown once and stored hashed; each is redeemed once', async () => {
    const created = await h.app.http.inject({
      method: 'POST',
      url: '/admin/codes',
      headers: admin,
      payload: { amount_rub: 250, count: 3 },
    });
    expect(created.statusCode).toBe(201);
    const { codes } = created.json();
    expect(codes).toHaveLength(3);
    for (const code of codes) expect(code).toMatch(/^GG-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    const stored = await h.app.ctx.storage.db.selectFrom('topup_codes').selectAll().execute();
    expect(stored.map((c) => c.code_hash).sort()).toEqual(codes.map(hashCode).sort());
    expect(JSON.stringify(stored)).not.toContain(codes[0].slice(3));

    const redeem = (code: string, auth = h.key.auth) =>
      h.app.http.inject({ method: 'POST', url: '/me/redeem', headers: auth, payload: { code } });
    // Concurrent redemptions of one code by two keys: one wins.
    const other = await h.app.newKey({ balanceRub: 0 });
    const [a, b] = await Promise.all([redeem(codes[0]), redeem(codes[0].toLowerCase(), other.auth)]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 409]);
    const winner = a.statusCode === 200 ? a : b;
    expect(winner.json()).toEqual({ amount_rub: 250, key_balance: 250 });
    const loser = a.statusCode === 200 ? b : a;
    expect(loser.json().error.code).toBe('code_unavailable');
    expect((await redeem('GG-0000-0000-0000-0000')).json().error.code).toBe('code_not_found');
    expect((await redeem('GG-0000-0000-0000-0000')).statusCode).toBe(404);
  });

  it('refuses expired codes and rate-limits attempts per key', async () => {
    const expired = (
      await h.app.http.inject({
        method: 'POST',
        url: '/admin/codes',
        headers: admin,
        payload: { amount_rub: 100, count: 1, expires_at: new Date(Date.now() + 60_000).toISOString() },
      })
    ).json().codes[0];
    await h.app.ctx.storage.db
      .updateTable('topup_codes')
      .set({ expires_at: Date.now() - 1 })
      .execute();
    const res = await h.app.http.inject({
      method: 'POST',
      url: '/me/redeem',
      headers: h.key.auth,
      payload: { code: expired },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('code_unavailable');
    for (const bad of [
      { amount_rub: 0 },
      { amount_rub: 1.001 },
      { amount_rub: 5, count: 0 },
      { amount_rub: 5, expires_at: '2001-01-01' },
    ]) {
      const r = await h.app.http.inject({
        method: 'POST',
        url: '/admin/codes',
        headers: admin,
        payload: bad,
      });
      expect(r.statusCode, JSON.stringify(bad)).toBe(422);
    }
    const answers: number[] = [];
    for (let i = 0; i < 12; i++)
      answers.push(
        (
          await h.app.http.inject({
            method: 'POST',
            url: '/me/redeem',
            headers: h.key.auth,
            payload: { code: `GG-WRONG-${i}` },
          })
        ).statusCode,
      );
    expect(answers.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(await balanceRub(h.app, h.key)).toBe(0);
  });
});
