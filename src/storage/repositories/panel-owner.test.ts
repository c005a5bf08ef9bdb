// Storage contract of the panel's owner-side repositories, on every engine: transfers between an
// owner's keys, rename and guarded deletion, last use, a key's ledger history, a task's webhook
// deliveries, and the analytics aggregation (usage cells, task outcomes). Another account's ids
// find nothing.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TASK_FAILURE } from '../../domain/tasks/states.js';
import { ENGINES, openTestDb, type TestDb } from '../../testing/db.js';
import { recordChatUsage, seedAccount, seedKey, seedTask } from '../../testing/storage-fixtures.js';
import { isCheckViolation } from '../db.js';
import { checkLedger } from '../ledger/ledger-check.js';
import { Storage } from '../storage.js';
import { OwnerKeysRepository } from './owner-keys.js';
import { TaskDeliveriesRepository } from './task-deliveries.js';
import { TransferRefusedError, TransfersRepository } from './transfers.js';

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe.each(ENGINES)('panel owner repositories on %s', (engine) => {
  let db: TestDb;
  let storage: Storage;
  beforeAll(async () => {
    db = await openTestDb(engine);
    storage = Storage.from(db);
  });
  afterAll(() => db.dispose());

  const transfer = (input: Parameters<TransfersRepository['transfer']>[0]) =>
    storage.transaction((tx) => new TransfersRepository(tx.db).transfer(input));

  it('moves money between two keys of one owner: two transfer entries, balances exact, ledger clean', async () => {
    const from = await seedKey(storage, { balance: 10_000_000 });
    const to = await seedKey(storage, { accountId: from.accountId, balance: 1 });
    const moved = await transfer({
      accountId: from.accountId,
      fromKeyId: from.keyId,
      toKeyId: to.keyId,
      amount: 2_500_001,
      note: 'for the bot',
      now: 1_000,
    });
    expect(moved).toEqual({ fromBalance: 7_499_999, toBalance: 2_500_002 });
    expect(await storage.keys.balanceOf(from.keyId)).toEqual({ balance: 7_499_999, held: 0 });
    expect(await storage.keys.balanceOf(to.keyId)).toEqual({ balance: 2_500_002, held: 0 });
    const out = (await storage.ledger.entriesForKey(from.keyId)).at(-1)!;
    const into = (await storage.ledger.entriesForKey(to.keyId)).at(-1)!;
    expect(out).toMatchObject({
      kind: 'transfer',
      amount: -2_500_001,
      balance_after: 7_499_999,
      task_id: null,
    });
    expect(out.note).toBe(`to key ${to.keyId}: for the bot`);
    expect(into).toMatchObject({ kind: 'transfer', amount: 2_500_001, balance_after: 2_500_002 });
    expect(into.note).toBe(`from key ${from.keyId}: for the bot`);
    expect(await checkLedger(storage.db)).toEqual([]);
  });

  it('never moves more than the available balance (held money stays), and writes nothing then', async () => {
    const from = await seedKey(storage, { balance: 3_000_000 });
    const to = await seedKey(storage, { accountId: from.accountId });
    const taskId = await seedTask(storage, from, { holdAmount: 2_000_000 });
    expect(await storage.transaction((tx) => tx.ledger.hold(from.ref, taskId, 2_000_000))).toBe(true);
    const error = await refusal(
      transfer({
        accountId: from.accountId,
        fromKeyId: from.keyId,
        toKeyId: to.keyId,
        amount: 1_000_001,
        note: null,
        now: 1,
      }),
    );
    expect(error).toBeInstanceOf(TransferRefusedError);
    expect((error as TransferRefusedError).reason).toBe('insufficient');
    expect(await storage.keys.balanceOf(from.keyId)).toEqual({ balance: 1_000_000, held: 2_000_000 });
    expect(await storage.keys.balanceOf(to.keyId)).toEqual({ balance: 0, held: 0 });
    expect(await storage.ledger.countForKey(to.keyId)).toBe(0);
    // Exactly the available balance moves.
    await transfer({
      accountId: from.accountId,
      fromKeyId: from.keyId,
      toKeyId: to.keyId,
      amount: 1_000_000,
      note: null,
      now: 2,
    });
    expect(await storage.keys.balanceOf(from.keyId)).toEqual({ balance: 0, held: 2_000_000 });
  });

  it("refuses another account's key on either side, a deleted key and the same key twice; nothing moves", async () => {
    const mine = await seedKey(storage, { balance: 5_000_000 });
    const sibling = await seedKey(storage, { accountId: mine.accountId });
    const theirs = await seedKey(storage, { balance: 5_000_000 });
    const attempts = [
      { accountId: mine.accountId, fromKeyId: mine.keyId, toKeyId: theirs.keyId },
      { accountId: mine.accountId, fromKeyId: theirs.keyId, toKeyId: mine.keyId },
      { accountId: theirs.accountId, fromKeyId: mine.keyId, toKeyId: theirs.keyId },
      { accountId: mine.accountId, fromKeyId: mine.keyId, toKeyId: mine.keyId },
    ];
    for (const a of attempts) {
      const error = await refusal(transfer({ ...a, amount: 1_000_000, note: null, now: 3 }));
      expect((error as TransferRefusedError).reason).toBe('not_found');
    }
    await storage.keys.softDelete(sibling.keyId, 4);
    const error = await refusal(
      transfer({
        accountId: mine.accountId,
        fromKeyId: mine.keyId,
        toKeyId: sibling.keyId,
        amount: 1,
        note: null,
        now: 5,
      }),
    );
    expect((error as TransferRefusedError).reason).toBe('not_found');
    expect(await storage.keys.balanceOf(mine.keyId)).toEqual({ balance: 5_000_000, held: 0 });
    expect(await storage.keys.balanceOf(theirs.keyId)).toEqual({ balance: 5_000_000, held: 0 });
    expect(await checkLedger(storage.db)).toEqual([]);
  });

  it('opposite transfers racing between two keys all land, exactly, without a deadlock', async () => {
    const a = await seedKey(storage, { balance: 50_000_000 });
    const b = await seedKey(storage, { accountId: a.accountId, balance: 50_000_000 });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        transfer({
          accountId: a.accountId,
          fromKeyId: i % 2 ? a.keyId : b.keyId,
          toKeyId: i % 2 ? b.keyId : a.keyId,
          amount: 1_000_000 + i,
          note: null,
          now: 10 + i,
        }),
      ),
    );
    const [ba, bb] = [await storage.keys.balanceOf(a.keyId), await storage.keys.balanceOf(b.keyId)];
    expect(ba!.balance + bb!.balance).toBe(100_000_000);
    expect(await checkLedger(storage.db)).toEqual([]);
  });

  it('the ledger accepts transfer entries and still refuses unknown kinds (migration 008)', async () => {
    const key = await seedKey(storage);
    const row = {
      key_id: key.keyId,
      account_id: key.accountId,
      task_id: null,
      amount: 1,
      balance_after: 0,
      held_after: 0,
      note: null,
      created_at: 1,
    };
    const error = await refusal(
      storage.db
        .insertInto('ledger_entries')
        .values({ ...row, kind: 'gift' as never })
        .execute(),
    );
    expect(isCheckViolation(error)).toBe(true);
  });

  it('renames only the owner’s live key', async () => {
    const key = await seedKey(storage);
    const repo = new OwnerKeysRepository(storage.db);
    expect((await repo.rename(key.accountId, key.keyId, 'prod bot', 7))?.name).toBe('prod bot');
    expect(await repo.rename(key.accountId + 1, key.keyId, 'stolen', 8)).toBeUndefined();
    expect((await storage.keys.forAccount(key.accountId, key.keyId))?.name).toBe('prod bot');
  });

  it('deletes a key only while it holds nothing; another account cannot delete it', async () => {
    const key = await seedKey(storage, { balance: 1 });
    const repo = new OwnerKeysRepository(storage.db);
    expect(await repo.deleteIfEmpty(key.accountId, key.keyId, 9)).toBeUndefined();
    await storage.transaction((tx) => tx.ledger.adjust(key.ref, -1, 'empty it'));
    const taskId = await seedTask(storage, key, { holdAmount: 0 });
    expect(await storage.transaction((tx) => tx.ledger.hold(key.ref, taskId, 0))).toBe(true);
    expect(await repo.deleteIfEmpty(key.accountId + 1, key.keyId, 9)).toBeUndefined();
    expect((await repo.deleteIfEmpty(key.accountId, key.keyId, 10))?.deleted_at).toBe(10);
    expect(await storage.keys.forAccount(key.accountId, key.keyId)).toBeUndefined();
  });

  it('reports when each key last paid for a request, and nothing for another account', async () => {
    const used = await seedKey(storage, { balance: 5_000_000 });
    const idle = await seedKey(storage, { accountId: used.accountId });
    const taskId = await seedTask(storage, used, { holdAmount: 1_000 });
    await storage.transaction((tx) => tx.ledger.hold({ ...used.ref, now: 123_456 }, taskId, 1_000));
    const repo = new OwnerKeysRepository(storage.db);
    expect(await repo.lastUsed(used.accountId, [used.keyId, idle.keyId])).toEqual(
      new Map([[used.keyId, 123_456]]),
    );
    expect(await repo.lastUsed(used.accountId + 1, [used.keyId])).toEqual(new Map());
  });

  it('pages a key’s ledger newest first with kind and time filters, owner-scoped', async () => {
    const key = await seedKey(storage);
    for (let i = 1; i <= 5; i++)
      await storage.transaction((tx) => tx.ledger.topup({ ...key.ref, now: i * 1000 }, i, null));
    await storage.transaction((tx) => tx.ledger.adjust({ ...key.ref, now: 6000 }, -1, 'fix'));
    const repo = storage.keyLedger;
    const all = await repo.history({ accountId: key.accountId, keyId: key.keyId, limit: 10 });
    expect(all.map((e) => e.kind)).toEqual(['adjust', 'topup', 'topup', 'topup', 'topup', 'topup']);
    const page2 = await repo.history({
      accountId: key.accountId,
      keyId: key.keyId,
      limit: 2,
      beforeId: Number(all[1].id),
    });
    expect(page2.map((e) => e.amount)).toEqual([4, 3]);
    const filtered = await repo.history({
      accountId: key.accountId,
      keyId: key.keyId,
      kinds: ['topup'],
      from: 2000,
      to: 4000,
      limit: 10,
    });
    expect(filtered.map((e) => e.amount)).toEqual([3, 2]);
    expect(await repo.history({ accountId: key.accountId + 1, keyId: key.keyId, limit: 10 })).toEqual([]);
  });

  it("lists a task's webhook deliveries for its owner only", async () => {
    const key = await seedKey(storage);
    const taskId = await seedTask(storage, key);
    const delivery = (id: string, at: number) =>
      storage.webhooks.insert({
        id,
        task_id: taskId,
        account_id: key.accountId,
        url: 'https://example.test/hook',
        payload: '{}',
        status: 'pending',
        attempts: 0,
        next_attempt_at: at,
        created_at: at,
        updated_at: at,
      } as never);
    await delivery(`msg_${randomUUID()}`, 2);
    await delivery(`msg_${randomUUID()}`, 1);
    const repo = new TaskDeliveriesRepository(storage.db);
    const rows = await repo.forTask(key.accountId, taskId);
    expect(rows.map((r) => Number(r.created_at))).toEqual([1, 2]);
    expect(await repo.forTask(key.accountId + 1, taskId)).toEqual([]);
  });

  it('aggregates usage rows and tasks per (bucket, key, model), and task outcomes by error kind', async () => {
    const accountId = await seedAccount(storage);
    const k1 = await seedKey(storage, { accountId });
    const k2 = await seedKey(storage, { accountId });
    const other = await seedKey(storage);
    const H = 3_600_000;
    const base = 1_000 * H;
    const chat = async (
      key: typeof k1,
      at: number,
      model: string,
      cost: number,
      tokens: [number, number],
    ) => {
      await recordChatUsage(storage, key, { id: randomUUID(), at, model, cost, tokens, latencyMs: 1 });
    };
    await chat(k1, base, 'gpt-4o', 100, [10, 1]);
    await chat(k1, base + 10, 'gpt-4o', 50, [5, 2]);
    await chat(k2, base + H, 'gpt-4o', 7, [1, 1]);
    await chat(k1, base + 3 * H, 'gpt-4o', 1, [1, 1]); // outside [base, base + 3H)
    await chat(other, base, 'gpt-4o', 999, [9, 9]); // another account
    const task = async (
      key: typeof k1,
      at: number,
      status: 'completed' | 'failed',
      cost: number,
      error: string | null,
    ) => {
      const id = await seedTask(storage, key, { status });
      await storage.db
        .updateTable('tasks')
        .set({ created_at: at, cost, error, model_id: 'sora-2' })
        .where('id', '=', id)
        .execute();
    };
    await task(k2, base + 5, 'completed', 4_000, null);
    await task(k2, base + 6, 'failed', 0, TASK_FAILURE.timeout);
    await task(k1, base + 7, 'failed', 0, 'Parameter validation failed: duration');
    await task(k1, base + 8, 'failed', 0, TASK_FAILURE.rejected);
    await task(other, base + 9, 'failed', 0, TASK_FAILURE.rejected);
    const range = { from: base, to: base + 3 * H };
    const cells = await storage.analytics.usageCells(accountId, range, H);
    const sorted = cells.sort(
      (a, b) => a.bucket - b.bucket || a.key_id - b.key_id || a.model_id.localeCompare(b.model_id),
    );
    expect(sorted).toEqual([
      {
        bucket: 1000,
        key_id: k1.keyId,
        model_id: 'gpt-4o',
        requests: 2,
        spent: 150,
        input_tokens: 15,
        output_tokens: 3,
      },
      {
        bucket: 1000,
        key_id: k1.keyId,
        model_id: 'sora-2',
        requests: 2,
        spent: 0,
        input_tokens: 0,
        output_tokens: 0,
      },
      {
        bucket: 1000,
        key_id: k2.keyId,
        model_id: 'sora-2',
        requests: 2,
        spent: 4_000,
        input_tokens: 0,
        output_tokens: 0,
      },
      {
        bucket: 1001,
        key_id: k2.keyId,
        model_id: 'gpt-4o',
        requests: 1,
        spent: 7,
        input_tokens: 1,
        output_tokens: 1,
      },
    ]);
    const onlyK2 = await storage.analytics.usageCells(accountId, { ...range, keyId: k2.keyId }, H);
    expect(onlyK2.every((c) => c.key_id === k2.keyId)).toBe(true);
    expect(onlyK2).toHaveLength(2);
    const outcomes = await storage.analytics.taskOutcomes(accountId, range);
    expect(outcomes.sort((a, b) => String(a.error_kind).localeCompare(String(b.error_kind)))).toEqual([
      { status: 'completed', error_kind: null, tasks: 1 },
      { status: 'failed', error_kind: 'params', tasks: 1 },
      { status: 'failed', error_kind: 'rejected', tasks: 1 },
      { status: 'failed', error_kind: 'timeout', tasks: 1 },
    ]);
    expect(await storage.analytics.usageCells(accountId + 10_000, range, H)).toEqual([]);
  });
});

describe.each(ENGINES)('sealed daily usage totals on %s', (engine) => {
  it('answers the same as the live aggregation, keeps sealed days in usage_daily, per key and per account', async () => {
    const db = await openTestDb(engine);
    try {
      const storage = Storage.from(db);
      const accountId = await seedAccount(storage);
      const k1 = await seedKey(storage, { accountId });
      const k2 = await seedKey(storage, { accountId });
      const other = await seedKey(storage);
      const D = 86_400_000;
      const today = Math.floor(Date.UTC(2026, 5, 20) / D) * D;
      const now = today + 10 * 3_600_000;
      let n = 0;
      const chat = async (key: typeof k1, at: number, model: string, cost: number) => {
        await recordChatUsage(storage, key, {
          id: `u${++n}`,
          at,
          model,
          cost,
          tokens: [10, 2],
          latencyMs: 1,
        });
      };
      for (let day = 0; day < 10; day++) {
        await chat(k1, today - day * D + 5, 'gpt-4o', 100 + day);
        await chat(k2, today - day * D + 7, day % 2 ? 'gpt-4o' : 'o3', 1_000);
        await chat(other, today - day * D + 9, 'gpt-4o', 5);
      }
      const task = await seedTask(storage, k2, { status: 'completed' });
      await storage.db
        .updateTable('tasks')
        .set({ created_at: today - 6 * D, cost: 4_000, model_id: 'sora-2' })
        .where('id', '=', task)
        .execute();
      const range = { from: today - 9 * D, to: today + D };
      const sort = (cells: { bucket: number; key_id: number; model_id: string }[]) =>
        [...cells].sort(
          (a, b) => a.bucket - b.bucket || a.key_id - b.key_id || a.model_id.localeCompare(b.model_id),
        );
      const live = sort(await storage.analytics.usageCells(accountId, range, D));
      expect(sort(await storage.analytics.usageCells(accountId, range, D, now))).toEqual(live);
      // Days that ended at least two days before now are sealed (today − 3 and older: 7 days); the rest stays live.
      const sealed = await storage.db
        .selectFrom('usage_days_sealed')
        .select('day')
        .where('account_id', '=', accountId)
        .execute();
      expect(sealed.map((r) => Number(r.day)).sort()).toEqual(
        Array.from({ length: 7 }, (_, i) => today / D - 9 + i),
      );
      const daily = await storage.db
        .selectFrom('usage_daily')
        .selectAll()
        .where('account_id', '=', accountId)
        .execute();
      expect(daily.length).toBeGreaterThan(0);
      expect(daily.every((r) => Number(r.day) <= today / D - 3)).toBe(true);
      // A second read comes from the sealed totals: still the same answer; one key only when asked.
      expect(sort(await storage.analytics.usageCells(accountId, range, D, now))).toEqual(live);
      const onlyK2 = await storage.analytics.usageCells(accountId, { ...range, keyId: k2.keyId }, D, now);
      expect(sort(onlyK2)).toEqual(live.filter((c) => c.key_id === k2.keyId));
      expect(await storage.analytics.usageCells(accountId + 100_000, range, D, now)).toEqual([]);
      // Task outcomes: the same from the sealed daily counts as counted live, per key too.
      const failed = await seedTask(storage, k1, { status: 'failed' });
      await storage.db
        .updateTable('tasks')
        .set({ created_at: today - 8 * D, error: TASK_FAILURE.timeout })
        .where('id', '=', failed)
        .execute();
      const sortOutcomes = (o: { status: string; error_kind: string | null }[]) =>
        [...o].sort((a, b) => `${a.status}${a.error_kind}`.localeCompare(`${b.status}${b.error_kind}`));
      // Unseal everything so the failed task (written after the first sealing) is counted.
      await storage.db.deleteFrom('usage_days_sealed').execute();
      await storage.db.deleteFrom('usage_daily').execute();
      await storage.db.deleteFrom('task_outcomes_daily').execute();
      const liveOutcomes = await storage.analytics.taskOutcomes(accountId, range);
      expect(sortOutcomes(liveOutcomes)).toEqual([
        { status: 'completed', error_kind: null, tasks: 1 },
        { status: 'failed', error_kind: 'timeout', tasks: 1 },
      ]);
      expect(sortOutcomes(await storage.analytics.taskOutcomes(accountId, range, now))).toEqual(
        sortOutcomes(liveOutcomes),
      );
      expect(await storage.db.selectFrom('task_outcomes_daily').select('tasks').execute()).toHaveLength(2);
      expect(await storage.analytics.taskOutcomes(accountId, { ...range, keyId: k1.keyId }, now)).toEqual([
        { status: 'failed', error_kind: 'timeout', tasks: 1 },
      ]);
    } finally {
      await db.dispose();
    }
  });
});

describe.each(ENGINES)('migration 008 on %s', (engine) => {
  it('keeps every ledger row, its id and its constraints when it re-creates the kind check', async () => {
    const db = await openTestDb(engine);
    try {
      const storage = Storage.from(db);
      const key = await seedKey(storage, { balance: 7_000_000 });
      const taskId = await seedTask(storage, key, { holdAmount: 1_000 });
      await storage.transaction((tx) => tx.ledger.hold(key.ref, taskId, 1_000));
      const before = await storage.ledger.entriesForKey(key.keyId);
      // Undo what 008 did, then run it again over the existing rows.
      await db.kysely.schema.dropIndex('usage_account_cover').execute();
      await db.kysely.schema
        .createIndex('usage_account')
        .on('usage_records')
        .columns(['account_id', 'created_at'])
        .execute();
      await db.kysely.schema.dropIndex('webhook_task').execute();
      await db.kysely.schema.dropTable('usage_daily' as never).execute();
      await db.kysely.schema.dropTable('usage_days_sealed' as never).execute();
      await db.kysely.schema.dropTable('task_outcomes_daily' as never).execute();
      await db.kysely
        .deleteFrom('gengate_migrations' as never)
        .where('name' as never, '=', '008_panel_analytics' as never)
        .execute();
      const { migrateToLatest } = await import('../migrations.js');
      expect(await migrateToLatest(db)).toEqual(['008_panel_analytics']);
      expect(await storage.ledger.entriesForKey(key.keyId)).toEqual(before);
      // The UNIQUE(task_id, kind) and the balance check survived the rebuild.
      const duplicate = await refusal(
        storage
          .transaction((tx) => tx.ledger.release(key.ref, taskId, 1_000))
          .then(() => storage.transaction((tx) => tx.ledger.release(key.ref, taskId, 1_000))),
      );
      expect(duplicate).toBeDefined();
      const negative = await refusal(
        storage.db
          .insertInto('ledger_entries')
          .values({
            key_id: key.keyId,
            account_id: key.accountId,
            task_id: null,
            kind: 'transfer',
            amount: -1,
            balance_after: -1,
            held_after: 0,
            note: null,
            created_at: 1,
          })
          .execute(),
      );
      expect(isCheckViolation(negative)).toBe(true);
      await storage.db.updateTable('tasks').set({ status: 'failed' }).where('id', '=', taskId).execute();
      expect(await checkLedger(storage.db)).toEqual([]);
    } finally {
      await db.dispose();
    }
  });
});
