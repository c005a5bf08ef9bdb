// The janitor seals the panel's daily usage totals of finished days ahead of any page view, on every
// engine, and looks again only after SEAL_INTERVAL_MS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../testing/db.js';
import { recordChatUsage } from '../testing/storage-fixtures.js';
import { createTaskTestApp, type TaskTestApp } from '../testing/tasks.js';
import { runJanitorOnce } from './janitor.js';

const DAY = 86_400_000;

describe.each(ENGINES)('janitor on %s', (engine) => {
  let app: TaskTestApp;
  beforeAll(async () => {
    app = await createTaskTestApp({ engine, runner: false });
  });
  afterAll(() => app.dispose());

  it('seals the daily totals of finished days once, before any page asks', async () => {
    const key = await app.newKey();
    const at = Date.now() - 5 * DAY;
    await recordChatUsage(app.ctx.storage, key, {
      id: 'chat-janitor-1',
      at,
      model: 'gpt-4o-mini',
      cost: 1_500,
      tokens: [10, 3],
      latencyMs: 5,
    });

    const first = await runJanitorOnce(app.ctx);
    expect(first.sealedAccounts).toBeGreaterThanOrEqual(1);
    const daily = await app.ctx.storage.db
      .selectFrom('usage_daily')
      .selectAll()
      .where('account_id', '=', key.accountId)
      .execute();
    expect(
      daily.map((r) => ({ ...r, day: Number(r.day), requests: Number(r.requests), spent: Number(r.spent) })),
    ).toMatchObject([{ day: Math.floor(at / DAY), model_id: 'gpt-4o-mini', requests: 1, spent: 1_500 }]);
    const sealed = await app.ctx.storage.db
      .selectFrom('usage_days_sealed')
      .select('day')
      .where('account_id', '=', key.accountId)
      .execute();
    expect(sealed.length).toBeGreaterThan(300); // a year of finished days, empty ones included

    expect((await runJanitorOnce(app.ctx)).sealedAccounts).toBe(0); // within the hour: not again
  });
});
