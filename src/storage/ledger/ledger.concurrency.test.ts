// Concurrent holds on one key never overdraw it. On PostgreSQL through a connection pool; on SQLite
// through two separate connections to one file, so BEGIN IMMEDIATE and the busy wait really contend.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openTestDb } from '../../testing/db.js';
import { HAVE_POSTGRES } from '../../testing/services.js';
import { seedKey } from '../../testing/storage-fixtures.js';
import { openSqlite } from '../db.js';
import { Storage } from '../storage.js';
import { TaskAlreadySettledError } from './ledger.js';
import { checkLedger } from './ledger-check.js';

/** One hold in its own transaction, with a pause inside it so transactions really overlap. */
async function holdInTransaction(
  storage: Storage,
  ref: { keyId: number; accountId: number; now: number },
  amount: number,
) {
  return storage.transaction(async (tx) => {
    const held = await tx.ledger.hold(ref, randomUUID(), amount);
    await new Promise((resolve) => setTimeout(resolve, 1));
    return held;
  });
}

/**
 * Ten racing settlements of each of five tasks (captures and releases mixed): exactly one per task
 * wins, the rest are refused, and the key ends as if each task had settled once.
 */
async function raceSettlements(connections: Storage[]) {
  const [first] = connections;
  const key = await seedKey(first, { balance: 1000 });
  const tasks = Array.from({ length: 5 }, () => randomUUID());
  for (const task of tasks) await first.transaction((tx) => tx.ledger.hold(key.ref, task, 100));
  const attempts = tasks.flatMap((task) =>
    Array.from({ length: 10 }, (_, i) =>
      connections[i % connections.length]
        .transaction(async (tx) => {
          if (i % 2 === 0) await tx.ledger.release(key.ref, task, 100);
          else await tx.ledger.settle(key.ref, task, 100, 100);
          await new Promise((resolve) => setTimeout(resolve, 1));
        })
        .then(
          () => ({ task, won: true as const, error: undefined }),
          (error: unknown) => ({ task, won: false as const, error }),
        ),
    ),
  );
  const outcomes = await Promise.all(attempts);
  for (const task of tasks) expect(outcomes.filter((o) => o.task === task && o.won)).toHaveLength(1);
  for (const lost of outcomes.filter((o) => !o.won))
    expect(lost.error).toBeInstanceOf(TaskAlreadySettledError);
  const entries = await first.ledger.entriesForKey(key.keyId);
  expect(entries.filter((e) => e.kind === 'capture')).toHaveLength(5);
  expect(entries.filter((e) => e.kind === 'release')).toHaveLength(5);
  const captured = entries.filter((e) => e.kind === 'capture').reduce((sum, e) => sum + e.amount, 0);
  expect(await first.keys.balanceOf(key.keyId)).toEqual({ balance: 1000 - captured, held: 0 });
  expect(await checkLedger(first.db)).toEqual([]);
}

describe.skipIf(!HAVE_POSTGRES)('concurrent holds on PostgreSQL', () => {
  it('50 concurrent holds of 30 against 1000: exactly 33 succeed, nothing is overdrawn', async () => {
    const db = await openTestDb('postgres');
    try {
      const storage = Storage.from(db);
      const key = await seedKey(storage, { balance: 1000 });
      const results = await Promise.all(
        Array.from({ length: 50 }, () => holdInTransaction(storage, key.ref, 30)),
      );
      expect(results.filter(Boolean)).toHaveLength(33);
      expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 10, held: 990 });
      expect(await storage.ledger.countForKey(key.keyId)).toBe(1 + 33);
      expect(await checkLedger(db.kysely)).toEqual([]);
    } finally {
      await db.dispose();
    }
  });

  it('racing settlements of one task: exactly one wins', async () => {
    const db = await openTestDb('postgres');
    try {
      await raceSettlements([Storage.from(db)]);
    } finally {
      await db.dispose();
    }
  });
});

describe('concurrent holds on SQLite', () => {
  it('two connections to one file interleaving holds: exactly 33 succeed, nothing is overdrawn', async () => {
    const db = await openTestDb('sqlite');
    const second = openSqlite(db.file!);
    try {
      const first = Storage.from(db);
      const other = Storage.from(second);
      const key = await seedKey(first, { balance: 1000 });
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => holdInTransaction(i % 2 === 0 ? first : other, key.ref, 30)),
      );
      expect(results.filter(Boolean)).toHaveLength(33);
      expect(await other.keys.balanceOf(key.keyId)).toEqual({ balance: 10, held: 990 });
      expect(await first.ledger.countForKey(key.keyId)).toBe(1 + 33);
      expect(await checkLedger(second.kysely)).toEqual([]);
    } finally {
      await second.close();
      await db.dispose();
    }
  });

  it('racing settlements of one task over two connections: exactly one wins', async () => {
    const db = await openTestDb('sqlite');
    const second = openSqlite(db.file!);
    try {
      await raceSettlements([Storage.from(db), Storage.from(second)]);
    } finally {
      await second.close();
      await db.dispose();
    }
  });
});
