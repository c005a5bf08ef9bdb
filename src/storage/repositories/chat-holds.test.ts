// Storage contract: the open chat holds, on SQLite and, when reachable, on PostgreSQL. Holds are
// opened and settled through chatBilling (the only writer); the sweeps' reads are checked here, and
// migration 009, which turns the pending usage rows of requests in flight into open holds.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, openTestDb, type TestDb } from '../../testing/db.js';
import { type SeededKey, seedKey } from '../../testing/storage-fixtures.js';
import { migrateThrough, migrateToLatest } from '../migrations.js';
import { Storage } from '../storage.js';
import { ProcessLeaseRepository } from './process-leases.js';

describe.each(ENGINES)('chat holds on %s', (engine) => {
  let db: TestDb;
  let storage: Storage;
  beforeAll(async () => {
    db = await openTestDb(engine);
    storage = Storage.from(db);
  });
  afterAll(() => db.dispose());

  const failed = { status: 'failed', inputTokens: 0, outputTokens: 0, cost: 0, latencyMs: 0 } as const;

  const open = async (key: SeededKey, id: string, now: number, processId?: string) =>
    expect(
      await storage.chatBilling.open({ id, modelId: 'gpt-4o', ref: { ...key.ref, now }, processId }, 100),
    ).toBe(true);

  it('lists holds open since before a time, oldest first, for the backstop sweep', async () => {
    const key = await seedKey(storage, { balance: 1_000 });
    await open(key, 'chat_since_new', 10_000);
    await open(key, 'chat_since_old', 10);
    await open(key, 'chat_since_older', 5);
    const stale = (await storage.chatHolds.openSince(5_000, 100)).map((hold) => hold.id);
    expect(stale).toEqual(['chat_since_older', 'chat_since_old']);
    expect(await storage.chatBilling.settle({ ...key.ref, now: 20 }, 'chat_since_older', 100, failed)).toBe(
      true,
    );
    expect((await storage.chatHolds.openSince(5_000, 100)).map((hold) => hold.id)).toEqual([
      'chat_since_old',
    ]);
  });

  it('lists the holds of processes without a live lease, never those of a live one or of none', async () => {
    const key = await seedKey(storage, { balance: 1_000 });
    const leases = new ProcessLeaseRepository(db.kysely);
    await leases.renew('live-process', 0, 50_000);
    await leases.renew('dead-process', 0, 1_000);
    await open(key, 'chat_of_live', 100, 'live-process');
    await open(key, 'chat_of_dead', 100, 'dead-process');
    await open(key, 'chat_of_unknown', 100, 'never-leased');
    await open(key, 'chat_of_none', 100);
    const dead = (await storage.chatHolds.ofDeadProcesses(2_000, 100)).map((hold) => hold.id);
    expect(dead.sort()).toEqual(['chat_of_dead', 'chat_of_unknown']);
  });
});

describe.each(ENGINES)('migration 009 on %s', (engine) => {
  it('turns the pending usage rows of requests in flight into open holds, and keeps finished rows', async () => {
    const db = await openTestDb(engine, { migrate: false });
    try {
      await migrateThrough(db, '008_panel_analytics');
      const storage = Storage.from(db);
      const key = await seedKey(storage, { balance: 1_000 });
      const { accountId, keyId } = key;
      await sql`insert into ledger_entries
          (key_id, account_id, task_id, kind, amount, balance_after, held_after, note, created_at)
        values (${keyId}, ${accountId}, 'chat_inflight', 'hold', 300, 700, 300, null, 5)`.execute(db.kysely);
      await sql`insert into usage_records
          (id, account_id, key_id, model_id, input_tokens, output_tokens, cost, status, latency_ms, created_at, process_id)
        values ('chat_inflight', ${accountId}, ${keyId}, 'o3', 0, 0, 0, 'pending', 0, 5, 'p1'),
               ('chat_done', ${accountId}, ${keyId}, 'o3', 1, 2, 3, 'completed', 4, 6, null)`.execute(
        db.kysely,
      );
      await sql`update api_keys set balance = 700, held = 300 where id = ${keyId}`.execute(db.kysely);

      await migrateToLatest(db);
      expect(await storage.chatHolds.byId('chat_inflight')).toMatchObject({
        key_id: keyId,
        account_id: accountId,
        model_id: 'o3',
        amount: 300,
        process_id: 'p1',
        created_at: 5,
      });
      expect(await storage.usage.byId(accountId, 'chat_inflight')).toBeUndefined();
      expect(await storage.usage.byId(accountId, 'chat_done')).toMatchObject({
        status: 'completed',
        cost: 3,
      });
      // The request's settlement after the upgrade finds its hold and writes its usage row.
      const outcome = {
        status: 'completed',
        inputTokens: 7,
        outputTokens: 8,
        cost: 120,
        latencyMs: 9,
      } as const;
      expect(await storage.chatBilling.settle({ ...key.ref, now: 50 }, 'chat_inflight', 300, outcome)).toBe(
        true,
      );
      expect(await storage.keys.balanceOf(keyId)).toEqual({ balance: 880, held: 0 });
      expect(await storage.usage.byId(accountId, 'chat_inflight')).toMatchObject({
        status: 'completed',
        model_id: 'o3',
        cost: 120,
        created_at: 5,
      });
    } finally {
      await db.dispose();
    }
  });
});
