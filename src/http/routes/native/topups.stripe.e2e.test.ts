// Top-ups through Stripe Checkout, end to end on both engines: the session created through the
// official package against the loopback fake, signed events at the hook (forged, stale, replayed),
// the currency conversion, and reconcile. After every scenario the ledger check is clean.
import { describe, expect, it } from 'vitest';
import { stripeCharge } from '../../../payments/stripe/adapter.js';
import { ENGINES } from '../../../testing/db.js';
import {
  balanceRub,
  createTopup,
  eachPaymentsHarness,
  type PaymentsHarness,
  topupEntries,
} from '../../../testing/payments.js';

describe('stripe charge conversion', () => {
  it('divides rubles by the rate and rounds up to the cent, in integers', () => {
    // 500 RUB at 90 RUB/USD = 5.5555… USD → 556 cents.
    expect(stripeCharge(500_000_000, 90_000_000)).toBe(556);
    expect(stripeCharge(900_000_000, 90_000_000)).toBe(1000);
    expect(stripeCharge(100_010_000, 92_500_000)).toBe(109);
  });
});

describe.each(ENGINES)('top-ups by Stripe on %s', (engine) => {
  let h: PaymentsHarness;
  eachPaymentsHarness(engine, (harness) => {
    h = harness;
  });

  const create = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    createTopup(h, body, headers);
  const send = (event: { body: string; signature: string }) =>
    h.app.http.inject({
      method: 'POST',
      url: '/hooks/payments/stripe',
      payload: event.body,
      headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
    });

  async function started(amount = 500) {
    const res = await create({
      amount_rub: amount,
      method: 'stripe',
      return_url: 'https://shop.example/back',
    });
    expect(res.statusCode).toBe(201);
    const sessionId = [...h.stripe.sessions.keys()].at(-1) as string;
    return { topup: res.json(), sessionId };
  }

  it('creates a Checkout Session form-encoded with the top-up id as Idempotency-Key and client_reference_id', async () => {
    const { topup, sessionId } = await started(500);
    const [call] = h.stripe.createCalls();
    expect(call.headers['idempotency-key']).toBe(topup.id);
    expect(call.headers.authorization).toBe(`Bearer ${h.stripe.secretKey}`);
    const form = new URLSearchParams(call.raw.toString('utf8'));
    expect(form.get('mode')).toBe('payment');
    expect(form.get('client_reference_id')).toBe(topup.id);
    expect(form.get('line_items[0][price_data][currency]')).toBe('usd');
    expect(form.get('line_items[0][price_data][unit_amount]')).toBe('556');
    expect(form.get('success_url')).toBe('https://shop.example/back');
    expect(topup.confirmation_url).toBe(h.stripe.sessions.get(sessionId)?.url);
  });

  it('credits on checkout.session.completed once, however often the event is replayed', async () => {
    const { topup, sessionId } = await started(500);
    h.stripe.complete(sessionId);
    const event = h.stripe.signedEvent('checkout.session.completed', sessionId);
    const answers = await Promise.all(Array.from({ length: 10 }, () => send(event)));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(10).fill(200));
    expect(await balanceRub(h.app, h.key)).toBe(500);
    expect((await topupEntries(h.app, topup.id)).filter((e) => e.kind === 'topup')).toHaveLength(1);
  });

  it('refuses a forged or stale signature with 400 and changes nothing', async () => {
    const { topup, sessionId } = await started(500);
    h.stripe.complete(sessionId);
    const forged = h.stripe.signedEvent('checkout.session.completed', sessionId, { secret: 'whsec_wrong' });
    expect((await send(forged)).statusCode).toBe(400);
    const stale = h.stripe.signedEvent('checkout.session.completed', sessionId, {
      timestamp: Math.floor(Date.now() / 1000) - 301,
    });
    const staleRes = await send(stale);
    expect(staleRes.statusCode).toBe(400);
    expect(staleRes.json().error.code).toBe('invalid_notification');
    const unsigned = await h.app.http.inject({
      method: 'POST',
      url: '/hooks/payments/stripe',
      payload: forged.body,
      headers: { 'content-type': 'application/json' },
    });
    expect(unsigned.statusCode).toBe(400);
    // A body altered after signing.
    const good = h.stripe.signedEvent('checkout.session.completed', sessionId);
    expect(
      (await send({ body: good.body.replace('"paid"', '"paid" '), signature: good.signature })).statusCode,
    ).toBe(400);
    expect(await balanceRub(h.app, h.key)).toBe(0);
    const read = await h.app.http.inject({
      method: 'GET',
      url: `/me/topups/${topup.id}`,
      headers: h.key.auth,
    });
    expect(read.json().status).toBe('pending');
  });

  it('waits on an unpaid completion, credits on async_payment_succeeded, cancels on expired and async_payment_failed', async () => {
    const a = await started(200);
    h.stripe.complete(a.sessionId, false);
    expect((await send(h.stripe.signedEvent('checkout.session.completed', a.sessionId))).statusCode).toBe(
      200,
    );
    expect(await balanceRub(h.app, h.key)).toBe(0);
    h.stripe.complete(a.sessionId, true);
    expect(
      (await send(h.stripe.signedEvent('checkout.session.async_payment_succeeded', a.sessionId))).statusCode,
    ).toBe(200);
    expect(await balanceRub(h.app, h.key)).toBe(200);

    const b = await started(300);
    h.stripe.expire(b.sessionId);
    expect((await send(h.stripe.signedEvent('checkout.session.expired', b.sessionId))).statusCode).toBe(200);
    const c = await started(400);
    h.stripe.complete(c.sessionId, false);
    expect(
      (await send(h.stripe.signedEvent('checkout.session.async_payment_failed', c.sessionId))).statusCode,
    ).toBe(200);
    for (const id of [b.topup.id, c.topup.id]) {
      const read = await h.app.http.inject({ method: 'GET', url: `/me/topups/${id}`, headers: h.key.auth });
      expect(read.json().status).toBe('canceled');
    }
    expect(await balanceRub(h.app, h.key)).toBe(200);
  });

  it('does not credit an event whose amount differs from the charge', async () => {
    const { sessionId } = await started(500);
    const session = h.stripe.complete(sessionId);
    session.amount_total = 1;
    expect((await send(h.stripe.signedEvent('checkout.session.completed', sessionId))).statusCode).toBe(200);
    expect(await balanceRub(h.app, h.key)).toBe(0);
  });

  it('reconcile credits a paid session whose event never came', async () => {
    const { sessionId } = await started(500);
    h.stripe.complete(sessionId);
    await h.app.ctx.storage.db.updateTable('topups').set({ check_at: 0 }).execute();
    expect((await h.app.ctx.payments.topups.reconcileOnce()).credited).toBe(1);
    expect((await h.app.ctx.payments.topups.reconcileOnce()).credited).toBe(0);
    expect(await balanceRub(h.app, h.key)).toBe(500);
  });

  it('answers 502 when Stripe keeps failing; the retry with the same key makes one session', async () => {
    h.stripe.createFaults = [500, 500, 500];
    const headers = { 'idempotency-key': 'stripe-retry-0001' };
    expect((await create({ amount_rub: 500, method: 'stripe' }, headers)).statusCode).toBe(502);
    const retried = await create({ amount_rub: 500, method: 'stripe' }, headers);
    expect(retried.statusCode).toBe(201);
    expect(h.stripe.sessions.size).toBe(1);
  });
});
