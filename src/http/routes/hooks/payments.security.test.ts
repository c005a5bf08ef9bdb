// The payment hooks from the outside: YooKassa's notifications are read only from its addresses,
// as the HTTP layer resolves the caller (TRUST_PROXY): a spoofed X-Forwarded-For is ignored unless
// the request comes through the trusted proxy; bodies are small; a method that is off is 404.
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../testing/app.js';
import { expectLedgerClean, type PaymentsHarness, paymentsHarness } from '../../../testing/payments.js';

describe('payment hooks from the outside', () => {
  let h: PaymentsHarness | undefined;
  let bare: TestApp | undefined;
  afterEach(async () => {
    if (h) {
      await expectLedgerClean(h.app);
      await h.dispose();
    }
    await bare?.dispose();
    h = undefined;
    bare = undefined;
  });

  async function paidPayment(harness: PaymentsHarness): Promise<string> {
    const res = await harness.app.http.inject({
      method: 'POST',
      url: '/me/topups',
      headers: harness.key.auth,
      payload: { amount_rub: 500, method: 'yookassa' },
    });
    expect(res.statusCode).toBe(201);
    const [payment] = [...harness.yookassa.payments.values()];
    harness.yookassa.succeed(payment.id);
    return payment.id;
  }

  const notify = (
    harness: PaymentsHarness,
    id: string,
    remoteAddress: string,
    headers: Record<string, string> = {},
  ) =>
    harness.app.http.inject({
      method: 'POST',
      url: '/hooks/payments/yookassa',
      payload: JSON.stringify(harness.yookassa.notification(id)),
      headers: { 'content-type': 'application/json', ...headers },
      remoteAddress,
    });

  it('ignores a spoofed X-Forwarded-For when no proxy is trusted', async () => {
    h = await paymentsHarness('sqlite', { env: { YOOKASSA_NOTIFY_IPS: '185.71.76.0/27' } });
    const id = await paidPayment(h);
    const res = await notify(h, id, '203.0.113.9', { 'x-forwarded-for': '185.71.76.10' });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('ip_not_allowed');
  });

  it("reads the payer's address from the trusted proxy, and only from it", async () => {
    h = await paymentsHarness('sqlite', {
      env: { YOOKASSA_NOTIFY_IPS: '185.71.76.0/27', TRUST_PROXY: '10.0.0.5' },
    });
    const id = await paidPayment(h);
    const spoofed = await notify(h, id, '203.0.113.9', { 'x-forwarded-for': '185.71.76.10' });
    expect(spoofed.statusCode).toBe(403);
    const outsider = await notify(h, id, '10.0.0.5', { 'x-forwarded-for': '203.0.113.9' });
    expect(outsider.statusCode).toBe(403);
    const yookassa = await notify(h, id, '10.0.0.5', { 'x-forwarded-for': '185.71.76.10' });
    expect(yookassa.statusCode).toBe(200);
    const balance = await h.app.ctx.storage.keys.balanceOf(h.key.keyId);
    expect(Number(balance?.balance)).toBe(500_000_000);
  });

  it('refuses a body that is not JSON and one that is too large, changing nothing', async () => {
    h = await paymentsHarness('sqlite');
    const garbage = await h.app.http.inject({
      method: 'POST',
      url: '/hooks/payments/yookassa',
      payload: 'not json',
      headers: { 'content-type': 'text/plain' },
      remoteAddress: '127.0.0.1',
    });
    expect(garbage.statusCode).toBe(400);
    const huge = await h.app.http.inject({
      method: 'POST',
      url: '/hooks/payments/yookassa',
      payload: JSON.stringify({ event: 'payment.succeeded', object: { id: 'x' }, pad: 'x'.repeat(300_000) }),
      headers: { 'content-type': 'application/json' },
      remoteAddress: '127.0.0.1',
    });
    expect(huge.statusCode).toBe(413);
    expect(h.yookassa.server.calls(/^\/v3\/payments\//, 'GET')).toHaveLength(0);
  });

  it('answers 404 for a method that is off, and lists no methods', async () => {
    bare = await createTestApp();
    const res = await bare.http.inject({
      method: 'POST',
      url: '/hooks/payments/yookassa',
      payload: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(404);
    const key = await bare.newKey({ balanceRub: 0 });
    const methods = await bare.http.inject({ method: 'GET', url: '/me/topup-methods', headers: key.auth });
    expect(methods.json()).toEqual({ methods: [], min_rub: 100, max_rub: 100000, receipts: false });
    const create = await bare.http.inject({
      method: 'POST',
      url: '/me/topups',
      headers: key.auth,
      payload: { amount_rub: 500, method: 'yookassa' },
    });
    expect(create.statusCode).toBe(422);
    expect(create.json().error.code).toBe('topup_method_unavailable');
  });
});
