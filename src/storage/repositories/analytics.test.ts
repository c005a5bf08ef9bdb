// Storage contract of a key's daily usage, on every engine: tasks (spend = their ledger capture) and
// chat usage rows, per model and UTC day of creation, one key only, within [from, to).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestKey } from '../../testing/app.js';
import { ENGINES } from '../../testing/db.js';
import { recordChatUsage } from '../../testing/storage-fixtures.js';
import { createTaskTestApp, type TaskTestApp } from '../../testing/tasks.js';

const DAY = 86_400_000;

describe.each(ENGINES)('daily usage of a key on %s', (engine) => {
  let app: TaskTestApp;
  let mine: TestKey;
  let sibling: TestKey;
  const D0 = Date.UTC(2026, 2, 10); // day 0, midnight UTC
  const day0 = D0 / DAY;

  beforeAll(async () => {
    app = await createTaskTestApp({ engine, runner: false });
    mine = await app.newKey();
    sibling = await app.newKey({ messagingId: mine.messagingId }); // same account, another key
  });
  afterAll(() => app.dispose());

  let serial = 0;
  const task = async (key: TestKey, at: number, model: string, captured?: number) => {
    const id = `0192c000-0000-7000-8000-${(++serial).toString(16).padStart(12, '0')}`;
    await app.ctx.storage.tasks.insert({
      id,
      account_id: key.accountId,
      key_id: key.keyId,
      model_id: model,
      billing_model_id: model,
      kind: 'image',
      status: captured === undefined ? 'failed' : 'completed',
      params: '{}',
      hold_amount: 0,
      attempts: 0,
      requeues: 0,
      processing_ms: 0,
      result: null,
      cost: captured ?? 0,
      provider: 'simulator',
      run_at: at,
      created_at: at,
      updated_at: at,
      finished_at: at,
    });
    const entry = {
      key_id: key.keyId,
      account_id: key.accountId,
      task_id: id,
      balance_after: 0,
      held_after: 0,
    };
    await app.ctx.storage.db
      .insertInto('ledger_entries')
      .values({ ...entry, kind: 'hold', amount: 5_000_000, created_at: at })
      .execute();
    if (captured !== undefined)
      await app.ctx.storage.db
        .insertInto('ledger_entries')
        .values({ ...entry, kind: 'capture', amount: captured, created_at: at + 1 })
        .execute();
  };
  const chat = async (key: TestKey, at: number, model: string, tokens: [number, number], cost: number) => {
    await recordChatUsage(app.ctx.storage, key, {
      id: `chat-${++serial}`,
      at,
      model,
      cost,
      tokens,
      latencyMs: 10,
    });
  };

  it('adds up requests, captures and tokens per model and day, for the key only', async () => {
    await task(mine, D0 - 1, 'seedream-4', 1_000_000); // the day before: outside
    await task(mine, D0, 'seedream-4', 2_500_000);
    await task(mine, D0 + DAY - 1, 'seedream-4'); // failed: a request, nothing spent
    await task(mine, D0 + 5, 'sora-2', 40_000_000);
    await chat(mine, D0 + 7, 'gpt-4o-mini', [100, 20], 1_234);
    await chat(mine, D0 + DAY + 3, 'gpt-4o-mini', [50, 5], 600);
    await task(mine, D0 + DAY + 4, 'seedream-4', 2_500_000);
    await task(sibling, D0 + 1, 'seedream-4', 9_000_000); // another key of the account
    await chat(sibling, D0 + 2, 'gpt-4o-mini', [1, 1], 1);
    await task(mine, D0 + 2 * DAY, 'seedream-4', 2_500_000); // `to` is exclusive

    const rows = await app.ctx.storage.analytics.dailyUsageOfKey(
      mine.accountId,
      mine.keyId,
      D0,
      D0 + 2 * DAY,
    );
    expect(rows).toEqual([
      { day: day0, model_id: 'gpt-4o-mini', requests: 1, spent: 1_234, input_tokens: 100, output_tokens: 20 },
      { day: day0, model_id: 'seedream-4', requests: 2, spent: 2_500_000, input_tokens: 0, output_tokens: 0 },
      { day: day0, model_id: 'sora-2', requests: 1, spent: 40_000_000, input_tokens: 0, output_tokens: 0 },
      { day: day0 + 1, model_id: 'gpt-4o-mini', requests: 1, spent: 600, input_tokens: 50, output_tokens: 5 },
      {
        day: day0 + 1,
        model_id: 'seedream-4',
        requests: 1,
        spent: 2_500_000,
        input_tokens: 0,
        output_tokens: 0,
      },
    ]);
    // Another account's id with this key's id finds nothing.
    expect(
      await app.ctx.storage.analytics.dailyUsageOfKey(mine.accountId + 1000, mine.keyId, 0, D0 * 2),
    ).toEqual([]);
  });
});
