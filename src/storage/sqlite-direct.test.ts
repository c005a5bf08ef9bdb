// The direct statement path on SQLite (sqlite-direct.ts) must never let a statement run inside
// somebody else's open transaction, and must still wait for another process's write lock.
import { DatabaseSync } from '@photostructure/sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTestDb, type TestDb } from '../testing/db.js';
import { type SeededKey, seedKey } from '../testing/storage-fixtures.js';
import { Storage } from './storage.js';

describe('SQLite direct statements', () => {
  let db: TestDb;
  let storage: Storage;
  let key: SeededKey;

  beforeEach(async () => {
    db = await openTestDb('sqlite');
    storage = Storage.from(db);
    key = await seedKey(storage, { balance: 1_000 });
  });
  afterEach(async () => {
    await db.dispose();
  });

  /** A transaction that holds 300 and then waits for `release` before it commits or rolls back. */
  function pausedHold(outcome: 'commit' | 'rollback') {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let held!: () => void;
    const holding = new Promise<void>((resolve) => {
      held = resolve;
    });
    const done = storage
      .transaction(async (tx) => {
        expect(await tx.ledger.hold(key.ref, 'task-direct', 300)).toBe(true);
        // Inside the transaction its own statements see its own write.
        expect(await tx.usage.availableBalance(key.accountId, key.keyId)).toBe(700);
        held();
        await gate;
        if (outcome === 'rollback') throw new Error('rolled back on purpose');
      })
      .catch((error: Error) => error.message);
    return { release, holding, done };
  }

  it('a read outside a transaction waits for the open one and sees only what it committed', async () => {
    const tx = pausedHold('commit');
    await tx.holding;
    let seen: number | undefined;
    const read = storage.usage.availableBalance(key.accountId, key.keyId).then((balance) => {
      seen = balance;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toBeUndefined();
    tx.release();
    await tx.done;
    await read;
    expect(seen).toBe(700);
  });

  it('a read during a transaction that rolls back never sees the rolled-back write', async () => {
    const tx = pausedHold('rollback');
    await tx.holding;
    const read = storage.usage.availableBalance(key.accountId, key.keyId);
    tx.release();
    expect(await tx.done).toBe('rolled back on purpose');
    expect(await read).toBe(1_000);
    expect(await storage.ledger.entriesForTask('task-direct')).toEqual([]);
  });

  it('a write outside a transaction waits for another process holding the write lock', async () => {
    const other = new DatabaseSync(db.file as string);
    try {
      other.prepare('begin immediate').run();
      let finished = false;
      const write = storage.usage
        .record(
          { id: 'chat_waiting', accountId: key.accountId, keyId: key.keyId, modelId: 'gpt-4o', createdAt: 1 },
          { status: 'failed', inputTokens: 0, outputTokens: 0, cost: 0, latencyMs: 0 },
        )
        .then(() => {
          finished = true;
        });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(finished).toBe(false);
      other.prepare('commit').run();
      await write;
      expect(finished).toBe(true);
      expect(await storage.usage.byId(key.accountId, 'chat_waiting')).toMatchObject({ status: 'failed' });
    } finally {
      other.close();
    }
  });

  it('runs a synchronous hold only inside a transaction, where it sees and makes the writes at once', async () => {
    expect(() => storage.ledger.holdInSqliteTransaction(key.ref, 'task-sync', 100)).toThrow(
      'only inside a transaction',
    );
    await storage.transaction(async (tx) => {
      expect(tx.ledger.holdInSqliteTransaction(key.ref, 'task-sync', 100)).toBe(true);
      expect(tx.ledger.holdInSqliteTransaction(key.ref, 'task-too-big', 901)).toBe(false);
      expect(await tx.usage.availableBalance(key.accountId, key.keyId)).toBe(900);
    });
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 900, held: 100 });
  });
});
