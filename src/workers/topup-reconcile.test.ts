// The reconcile loop as the workers run it: with TOPUP_RECONCILE_MS short, a paid top-up whose
// notification never came is credited by the loop alone, once; without a payment method no loop runs.
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp } from '../testing/app.js';
import { balanceRub, expectLedgerClean, type PaymentsHarness, paymentsHarness } from '../testing/payments.js';
import { startTopupReconcile } from './topup-reconcile.js';

describe('the top-up reconcile loop', () => {
  let h: PaymentsHarness | undefined;
  afterEach(async () => {
    if (h) {
      await expectLedgerClean(h.app);
      await h.dispose();
    }
    h = undefined;
  });

  it('credits a paid top-up whose notification was lost, once', async () => {
    h = await paymentsHarness('sqlite', { env: { TOPUP_RECONCILE_MS: '100' } });
    const created = await h.app.http.inject({
      method: 'POST',
      url: '/me/topups',
      headers: h.key.auth,
      payload: { amount_rub: 250, method: 'yookassa' },
    });
    expect(created.statusCode).toBe(201);
    h.yookassa.succeed([...h.yookassa.payments.keys()][0]);
    const loop = startTopupReconcile(h.app.ctx, () => {});
    expect(loop).toBeDefined();
    try {
      const started = Date.now();
      while ((await balanceRub(h.app, h.key)) === 0 && Date.now() - started < 5_000)
        await new Promise((resolve) => setTimeout(resolve, 50));
      // A few more passes change nothing.
      await new Promise((resolve) => setTimeout(resolve, 400));
    } finally {
      await loop?.stop();
    }
    expect(await balanceRub(h.app, h.key)).toBe(250);
    const credits = await h.app.ctx.storage.ledger.entriesForTask(created.json().id);
    expect(credits.map((e) => e.kind)).toEqual(['topup']);
  });

  it('does not run without a payment method', async () => {
    const app = await createTestApp();
    try {
      expect(startTopupReconcile(app.ctx, () => {})).toBeUndefined();
    } finally {
      await app.dispose();
    }
  });
});
