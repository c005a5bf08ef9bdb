// Group commit on PostgreSQL: transactions that arrive together share one database transaction, each
// behind its own savepoint. Balances stay exact, refused holds refuse alone, a failing caller fails
// alone, and claims never hand one task to two workers.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openTestDb, type TestDb } from '../testing/db.js';
import { brokenLedgerChain } from '../testing/ledger-chain.js';
import { HAVE_POSTGRES } from '../testing/services.js';
import { type SeededKey, seedKey, seedTask } from '../testing/storage-fixtures.js';
import { openPostgres } from './db.js';
import { checkLedger } from './ledger/ledger-check.js';
import { Storage } from './storage.js';

describe.skipIf(!HAVE_POSTGRES)('group commit on PostgreSQL', () => {
  let db: TestDb;
  let storage: Storage;

  beforeAll(async () => {
    db = await openTestDb('postgres');
    storage = Storage.from(db);
  });
  afterAll(() => db?.dispose());

  /** A task row and its hold, as POST /generate writes them: refused (402) when the hold does not fit. */
  const createTask = (s: Storage, key: SeededKey, amount: number) =>
    s.transaction(async (tx) => {
      const id = await seedTask(tx, key, { holdAmount: amount });
      if (!(await tx.ledger.hold(key.ref, id, amount))) throw new Error('insufficient_balance');
      return id;
    });

  it('64 concurrent holds on one key that fit only 21: exactly 21 accepted, in fewer commits, ledger clean', async () => {
    const key = await seedKey(storage, { balance: 1000 });
    const transactions = vi.spyOn(db.kysely, 'transaction');
    const outcomes = await Promise.allSettled(Array.from({ length: 64 }, () => createTask(storage, key, 47)));
    const commits = transactions.mock.calls.length;
    transactions.mockRestore();
    const accepted = outcomes.filter((o) => o.status === 'fulfilled');
    expect(accepted).toHaveLength(21);
    for (const o of outcomes)
      if (o.status === 'rejected') expect((o.reason as Error).message).toBe('insufficient_balance');
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 1000 - 21 * 47, held: 21 * 47 });
    // The refused callers' task rows were rolled back with their savepoints.
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from tasks where key_id = ${key.keyId}`.execute(db.kysely);
    expect(rows[0].n).toBe(21);
    expect(await checkLedger(db.kysely)).toEqual([]);
    expect(await brokenLedgerChain(storage, key.keyId)).toEqual([]);
    expect(commits).toBeLessThan(64 / 4);
  });

  it('a batch applies its holds to a key in arrival order and refuses only those that no longer fit', async () => {
    const key = await seedKey(storage, { balance: 100 });
    const amounts = [60, 50, 30, 20, 10];
    const outcomes = await Promise.allSettled(amounts.map((amount) => createTask(storage, key, amount)));
    // 60 fits (40 left), 50 does not, 30 does (10 left), 20 does not, 10 does (0 left).
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 0, held: 100 });
    expect(await checkLedger(db.kysely)).toEqual([]);
    expect(await brokenLedgerChain(storage, key.keyId)).toEqual([]);
  });

  it('a caller that fails with a database error fails alone; the others of its batch commit', async () => {
    const key = await seedKey(storage, { balance: 1000 });
    const taken = await createTask(storage, key, 10);
    const outcomes = await Promise.allSettled([
      createTask(storage, key, 10),
      // A duplicate task id: a unique violation inside the shared transaction.
      storage.transaction(async (tx) => {
        await seedTask(tx, key, { id: taken });
        return 'never';
      }),
      createTask(storage, key, 10),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ code: '23505' });
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 970, held: 30 });
    expect(await checkLedger(db.kysely)).toEqual([]);
    expect(await brokenLedgerChain(storage, key.keyId)).toEqual([]);
  });

  it('settlements batched with holds stay exact', async () => {
    const key = await seedKey(storage, { balance: 10_000 });
    const ids = await Promise.all(Array.from({ length: 20 }, () => createTask(storage, key, 100)));
    await Promise.all([
      ...ids.map((id, i) =>
        storage.transaction(async (tx) => {
          await sql`update tasks set status = 'completed' where id = ${id}`.execute(tx.db);
          await tx.ledger.settle(key.ref, id, 100, i % 2 === 0 ? 100 : 40);
        }),
      ),
      ...Array.from({ length: 10 }, () => createTask(storage, key, 100)),
    ]);
    // 20 tasks settled: 10 × 100 + 10 × 40 captured; 10 new holds of 100 open.
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({
      balance: 10_000 - 1400 - 1000,
      held: 1000,
    });
    expect(await checkLedger(db.kysely)).toEqual([]);
    expect(await brokenLedgerChain(storage, key.keyId)).toEqual([]);
  });

  it('two processes batching holds on one key: never overdrawn, exact count', async () => {
    const other = openPostgres(db.url!, 5);
    try {
      const second = Storage.from(other);
      const key = await seedKey(storage, { balance: 3000 });
      const outcomes = await Promise.allSettled(
        Array.from({ length: 96 }, (_, i) => createTask(i % 2 === 0 ? storage : second, key, 100)),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(30);
      expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 0, held: 3000 });
      expect(await checkLedger(db.kysely)).toEqual([]);
      expect(await brokenLedgerChain(storage, key.keyId)).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('claims from four workers in two processes never hand one task to two workers', async () => {
    const other = openPostgres(db.url!, 5);
    try {
      const second = Storage.from(other);
      const key = await seedKey(storage, { balance: 0 });
      await sql`update tasks set status = 'completed' where status in ('pending', 'processing')`.execute(
        db.kysely,
      );
      const ids = new Set<string>();
      for (let i = 0; i < 300; i++) ids.add(await seedTask(storage, key, { id: randomUUID() }));
      const claimedBy = new Map<string, string>();
      const duplicates: string[] = [];
      const worker = async (s: Storage, name: string) => {
        for (;;) {
          const rows = await s.transaction((tx) => tx.tasks.claimDue(name, Date.now() + 1000, 60_000, 7));
          if (rows.length === 0) return;
          for (const row of rows) {
            if (claimedBy.has(row.id)) duplicates.push(row.id);
            claimedBy.set(row.id, name);
          }
        }
      };
      await Promise.all([
        worker(storage, 'a'),
        worker(storage, 'b'),
        worker(second, 'c'),
        worker(second, 'd'),
      ]);
      expect(duplicates).toEqual([]);
      expect([...claimedBy.keys()].sort()).toEqual([...ids].sort());
    } finally {
      await other.close();
    }
  });
});
