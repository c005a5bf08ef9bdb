// Final transitions batched on PostgreSQL (and the one-task transaction on SQLite): each task
// settles once, balances are exact, the ledger chain holds, and the outbox gets one row per task
// with a webhook_url; a worker that lost its lease finishes nothing.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskEvents } from '../services/tasks/events.js';
import { finalizeTask } from '../services/tasks/finalize.js';
import { ENGINES, openTestDb, type TestDb } from '../testing/db.js';
import { brokenLedgerChain } from '../testing/ledger-chain.js';
import { newTaskRow, type SeededKey, seedKey } from '../testing/storage-fixtures.js';
import { checkLedger } from './ledger/ledger-check.js';
import type { TaskRow } from './repositories/tasks.js';
import { Storage } from './storage.js';

function taskOf(key: SeededKey, holdAmount: number, webhook: boolean): TaskRow {
  return newTaskRow(key, holdAmount, {
    webhook_url: webhook ? 'https://example.com/hook' : null,
    run_at: Date.now() - 1,
  });
}

describe.each(ENGINES)('final transitions on %s', (engine) => {
  let db: TestDb;
  let storage: Storage;
  const events = new TaskEvents();

  beforeAll(async () => {
    db = await openTestDb(engine);
    storage = Storage.from(db);
  });
  afterAll(() => db?.dispose());

  it('40 tasks finishing at once: each settles once, balances exact, one outbox row per webhook', async () => {
    const key = await seedKey(storage, { balance: 10_000 });
    const tasks = Array.from({ length: 40 }, (_, i) => taskOf(key, 100, i % 2 === 0));
    for (const task of tasks) expect(await storage.insertTaskWithHold(task)).toBe(true);
    const claimed = await storage.transaction((tx) => tx.tasks.claimDue('w1', Date.now(), 60_000, 100));
    expect(claimed.filter((t) => t.key_id === key.keyId)).toHaveLength(40);
    const now = Date.now();
    const finals = await Promise.all(
      tasks.map((task, i) =>
        finalizeTask(
          storage,
          events,
          task.id,
          i === 39 ? 'someone-else' : 'w1',
          i % 3 === 0
            ? { status: 'failed', error: 'upstream said no', providerCost: 0 }
            : { status: 'completed', result: { url: `u${i}` }, cost: 60, providerCost: i % 2 ? 25 : null },
          now,
        ),
      ),
    );
    // The 40th was finished by a worker that does not hold its lease: nothing happened to it.
    expect(finals[39]).toBeUndefined();
    const finished = finals.slice(0, 39);
    expect(finished.every((row) => row?.finished_at === now)).toBe(true);
    expect(finished[1]).toMatchObject({ status: 'completed', cost: 60, result: '{"url":"u1"}' });
    expect(finished[0]).toMatchObject({ status: 'failed', cost: 0, error: 'upstream said no' });
    // The provider cost is written with the final state, batched or not; null stays null.
    const costs = new Map(
      (await db.kysely.selectFrom('tasks').select(['id', 'provider_cost']).execute()).map((r) => [
        r.id,
        r.provider_cost === null || r.provider_cost === undefined ? null : Number(r.provider_cost),
      ]),
    );
    tasks.slice(0, 39).forEach((task, i) => {
      expect(costs.get(task.id), `task ${i}`).toBe(i % 3 === 0 ? 0 : i % 2 ? 25 : null);
    });
    const completedCount = finished.filter((row) => row?.status === 'completed').length;
    // Open: the 40th task's hold. Captured: 60 per completed task.
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({
      balance: 10_000 - 100 - 60 * completedCount,
      held: 100,
    });
    const outbox = await sql<{ task_id: string; payload: string }>`
      select task_id, payload from webhook_deliveries where account_id = ${key.accountId}`.execute(db.kysely);
    const withHook = tasks.slice(0, 39).filter((t) => t.webhook_url);
    expect(outbox.rows.map((r) => r.task_id).sort()).toEqual(withHook.map((t) => t.id).sort());
    expect(JSON.parse(outbox.rows.find((r) => r.task_id === tasks[2].id)!.payload)).toEqual({
      task_id: tasks[2].id,
      status: 'completed',
      result: { url: 'u2' },
    });
    expect(await brokenLedgerChain(storage, key.keyId)).toEqual([]);

    // A second finalization of the same tasks changes nothing.
    const again = await Promise.all(
      tasks
        .slice(0, 5)
        .map((task) => finalizeTask(storage, events, task.id, 'w1', { status: 'failed', error: 'x' }, now)),
    );
    expect(again.every((row) => row === undefined)).toBe(true);
    await finalizeTask(storage, events, tasks[39].id, 'w1', { status: 'failed', error: 'x' }, now);
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({
      balance: 10_000 - 60 * completedCount,
      held: 0,
    });
    expect(await checkLedger(db.kysely)).toEqual([]);
    expect(await brokenLedgerChain(storage, key.keyId)).toEqual([]);
  });
});
