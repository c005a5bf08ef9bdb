// Two gengate processes on one database (each its own connection pool), both receiving the same
// notification ten times at once and both running reconcile: the top-up is credited exactly once.
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgres, openSqlite } from '../../../storage/db.js';
import { ENGINES, type TestDb } from '../../../testing/db.js';
import { StripeFake } from '../../../testing/fakes/stripe.js';
import { YookassaFake } from '../../../testing/fakes/yookassa.js';
import {
  balanceRub,
  expectLedgerClean,
  type PaymentsHarness,
  paymentsHarness,
  STRIPE_WEBHOOK_SECRET,
} from '../../../testing/payments.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe.each(ENGINES)('two processes receiving one payment (%s)', (engine) => {
  async function twoProcesses(): Promise<{ a: PaymentsHarness; b: PaymentsHarness }> {
    const yookassa = await new YookassaFake('123456', 'test_secret').start();
    const stripe = await new StripeFake('sk_test_gengate', STRIPE_WEBHOOK_SECRET).start();
    cleanup.push(async () => {
      await yookassa.close();
      await stripe.close();
    });
    const a = await paymentsHarness(engine, { yookassa, stripe });
    cleanup.push(() => a.dispose());
    const inner = a.app.db.file ? openSqlite(a.app.db.file) : openPostgres(a.app.db.url!, 5);
    const second: TestDb = { ...inner, dispose: () => inner.close() };
    const b = await paymentsHarness(engine, { yookassa, stripe, db: second });
    cleanup.push(async () => {
      await b.dispose();
      await second.dispose();
    });
    return { a, b };
  }

  it('credits once for ten concurrent YooKassa notifications split over two processes, and reconcile in both', async () => {
    const { a, b } = await twoProcesses();
    const created = await a.app.http.inject({
      method: 'POST',
      url: '/me/topups',
      headers: a.key.auth,
      payload: { amount_rub: 1000, method: 'yookassa' },
    });
    expect(created.statusCode).toBe(201);
    const [payment] = [...a.yookassa.payments.values()];
    a.yookassa.succeed(payment.id);
    await a.app.ctx.storage.db.updateTable('topups').set({ check_at: 0 }).execute();
    const body = JSON.stringify(a.yookassa.notification(payment.id));
    const notify = (h: PaymentsHarness) =>
      h.app.http.inject({
        method: 'POST',
        url: '/hooks/payments/yookassa',
        payload: body,
        headers: { 'content-type': 'application/json' },
        remoteAddress: '127.0.0.1',
      });
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => notify(i % 2 ? a : b)),
      a.app.ctx.payments.topups.reconcileOnce(),
      b.app.ctx.payments.topups.reconcileOnce(),
    ]);
    expect(answers.slice(0, 10).map((r: any) => r.statusCode)).toEqual(Array(10).fill(200));
    expect(await balanceRub(a.app, a.key)).toBe(1000);
    const credits = await a.app.ctx.storage.db
      .selectFrom('ledger_entries')
      .select('id')
      .where('task_id', '=', created.json().id)
      .where('kind', '=', 'topup')
      .execute();
    expect(credits).toHaveLength(1);
    await expectLedgerClean(a.app);
  });
});
