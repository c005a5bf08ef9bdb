// Storage contract: the ledger. Guarded writes, append-only entries with the balances after them,
// UNIQUE(task_id, kind) against double settlement, and CHECK constraints the database enforces itself.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, openTestDb, type TestDb } from '../../testing/db.js';
import { type SeededKey, seedKey } from '../../testing/storage-fixtures.js';
import { isCheckViolation, isUniqueViolation } from '../db.js';
import { Storage } from '../storage.js';
import { LedgerIntegrityError, TaskAlreadySettledError } from './ledger.js';
import { checkLedger } from './ledger-check.js';

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe.each(ENGINES)('ledger repository on %s', (engine) => {
  let db: TestDb;
  let storage: Storage;
  beforeAll(async () => {
    db = await openTestDb(engine);
    storage = Storage.from(db);
  });
  afterAll(() => db.dispose());

  const balances = (key: SeededKey) => storage.keys.balanceOf(key.keyId);
  const entries = (key: SeededKey) => storage.ledger.entriesForKey(key.keyId);
  const entryFields = (key: SeededKey) =>
    entries(key).then((rows) =>
      rows.map(({ kind, amount, balance_after, held_after, task_id }) => ({
        kind,
        amount,
        balance_after,
        held_after,
        task_id,
      })),
    );

  it('tops up a key and records the entry with the balance after it', async () => {
    const key = await seedKey(storage);
    expect(await storage.transaction((tx) => tx.ledger.topup(key.ref, 1_500_000, 'first'))).toBe(1_500_000);
    expect(await storage.transaction((tx) => tx.ledger.topup(key.ref, 250_000, null))).toBe(1_750_000);
    expect(await balances(key)).toEqual({ balance: 1_750_000, held: 0 });
    const rows = await entries(key);
    expect(rows.map((r) => [r.kind, r.amount, r.balance_after, r.held_after, r.note, r.task_id])).toEqual([
      ['topup', 1_500_000, 1_500_000, 0, 'first', null],
      ['topup', 250_000, 1_750_000, 0, null, null],
    ]);
  });

  it('does not top up a deleted key and writes nothing', async () => {
    const key = await seedKey(storage, { balance: 100 });
    await storage.keys.softDelete(key.keyId, Date.now());
    expect(await storage.transaction((tx) => tx.ledger.topup(key.ref, 500, null))).toBeUndefined();
    expect(await balances(key)).toEqual({ balance: 100, held: 0 });
    expect(await storage.ledger.countForKey(key.keyId)).toBe(1);
  });

  it('holds with a guarded write: an insufficient balance answers false and writes nothing', async () => {
    const key = await seedKey(storage, { balance: 1000 });
    expect(await storage.transaction((tx) => tx.ledger.hold(key.ref, randomUUID(), 1001))).toBe(false);
    expect(await balances(key)).toEqual({ balance: 1000, held: 0 });
    expect(await storage.ledger.countForKey(key.keyId)).toBe(1);

    const task = randomUUID();
    expect(await storage.transaction((tx) => tx.ledger.hold(key.ref, task, 1000))).toBe(true);
    expect(await balances(key)).toEqual({ balance: 0, held: 1000 });
    expect((await entryFields(key)).at(-1)).toEqual({
      kind: 'hold',
      amount: 1000,
      balance_after: 0,
      held_after: 1000,
      task_id: task,
    });
    expect(await storage.transaction((tx) => tx.ledger.hold(key.ref, randomUUID(), 1))).toBe(false);
  });

  it('never holds on a deleted key', async () => {
    const key = await seedKey(storage, { balance: 1000 });
    await storage.keys.softDelete(key.keyId, Date.now());
    expect(await storage.transaction((tx) => tx.ledger.hold(key.ref, randomUUID(), 10))).toBe(false);
    expect(await balances(key)).toEqual({ balance: 1000, held: 0 });
  });

  it('settles with a capture and a release carrying the right balances after each', async () => {
    const key = await seedKey(storage, { balance: 1000 });
    const other = randomUUID();
    const task = randomUUID();
    await storage.transaction((tx) => tx.ledger.hold(key.ref, other, 100));
    await storage.transaction((tx) => tx.ledger.hold(key.ref, task, 300));
    expect(await balances(key)).toEqual({ balance: 600, held: 400 });

    expect(await storage.transaction((tx) => tx.ledger.settle(key.ref, task, 300, 120))).toEqual({
      captured: 120,
      released: 180,
    });
    expect(await balances(key)).toEqual({ balance: 780, held: 100 });
    expect((await entryFields(key)).slice(-2)).toEqual([
      { kind: 'capture', amount: 120, balance_after: 600, held_after: 280, task_id: task },
      { kind: 'release', amount: 180, balance_after: 780, held_after: 100, task_id: task },
    ]);
    expect(await checkLedger(db.kysely)).toEqual([]);
  });

  it('never captures more than the hold', async () => {
    const key = await seedKey(storage, { balance: 1000 });
    const task = randomUUID();
    await storage.transaction((tx) => tx.ledger.hold(key.ref, task, 300));
    expect(await storage.transaction((tx) => tx.ledger.settle(key.ref, task, 300, 5000))).toEqual({
      captured: 300,
      released: 0,
    });
    expect(await balances(key)).toEqual({ balance: 700, held: 0 });
  });

  it('releases a failed task in full', async () => {
    const key = await seedKey(storage, { balance: 1000 });
    const task = randomUUID();
    await storage.transaction((tx) => tx.ledger.hold(key.ref, task, 400));
    await storage.transaction((tx) => tx.ledger.release(key.ref, task, 400));
    expect(await balances(key)).toEqual({ balance: 1000, held: 0 });
    expect((await storage.ledger.entriesForTask(task)).map((e) => [e.kind, e.amount])).toEqual([
      ['hold', 400],
      ['capture', 0],
      ['release', 400],
    ]);
  });

  describe.each([
    ['settle then settle', 'settle', 'settle'],
    ['settle then release', 'settle', 'release'],
    ['release then release', 'release', 'release'],
    ['release then settle', 'release', 'settle'],
  ] as const)('a second settlement (%s)', (_name, first, second) => {
    const resolve = async (tx: Storage, key: SeededKey, task: string, how: 'settle' | 'release') => {
      if (how === 'settle') await tx.ledger.settle(key.ref, task, 300, 100);
      else await tx.ledger.release(key.ref, task, 300);
    };

    it.each([
      ['with another open hold on the key', true],
      ['with no other hold on the key', false],
    ])('is refused and changes nothing (%s)', async (_label, otherHold) => {
      const key = await seedKey(storage, { balance: 1000 });
      // Another open hold leaves the second settlement room to move money if it were let through.
      if (otherHold) await storage.transaction((tx) => tx.ledger.hold(key.ref, randomUUID(), 300));
      const task = randomUUID();
      await storage.transaction((tx) => tx.ledger.hold(key.ref, task, 300));
      await storage.transaction((tx) => resolve(tx, key, task, first));
      const before = { balances: await balances(key), entries: await entryFields(key) };

      const error = await failure(storage.transaction((tx) => resolve(tx, key, task, second)));
      expect(error).toBeInstanceOf(TaskAlreadySettledError);
      expect(await balances(key)).toEqual(before.balances);
      expect(await entryFields(key)).toEqual(before.entries);
    });

    it('is refused and changes nothing even when called outside a transaction', async () => {
      const key = await seedKey(storage, { balance: 1000 });
      await storage.transaction((tx) => tx.ledger.hold(key.ref, randomUUID(), 300));
      const task = randomUUID();
      await storage.ledger.hold(key.ref, task, 300);
      await resolve(storage, key, task, first);
      const before = { balances: await balances(key), entries: await entryFields(key) };

      expect(await failure(resolve(storage, key, task, second))).toBeInstanceOf(TaskAlreadySettledError);
      expect(await balances(key)).toEqual(before.balances);
      expect(await entryFields(key)).toEqual(before.entries);
    });
  });

  it('enforces UNIQUE(task_id, kind) in the database itself, for any writer', async () => {
    const key = await seedKey(storage, { balance: 1000 });
    const task = randomUUID();
    await storage.transaction((tx) => tx.ledger.hold(key.ref, task, 300));
    await storage.transaction((tx) => tx.ledger.release(key.ref, task, 300));
    const before = await entryFields(key);
    for (const kind of ['hold', 'capture', 'release'] as const) {
      const error = await failure(
        db.kysely
          .insertInto('ledger_entries')
          .values({
            key_id: key.keyId,
            account_id: key.accountId,
            task_id: task,
            kind,
            amount: 0,
            balance_after: 1000,
            held_after: 0,
            note: null,
            created_at: 1,
          })
          .execute(),
      );
      expect(isUniqueViolation(error)).toBe(true);
    }
    expect(await entryFields(key)).toEqual(before);
  });

  it('refuses a settlement that matches no hold, and amounts that are not whole micro-rubles', async () => {
    const key = await seedKey(storage, { balance: 1000 });
    const otherKey = await seedKey(storage, { balance: 1000 });
    const task = randomUUID();
    await storage.transaction((tx) => tx.ledger.hold(key.ref, task, 300));
    const before = await entryFields(key);
    await expect(
      storage.transaction((tx) => tx.ledger.settle(key.ref, randomUUID(), 300, 0)),
    ).rejects.toThrow(LedgerIntegrityError);
    await expect(storage.transaction((tx) => tx.ledger.settle(key.ref, task, 200, 0))).rejects.toThrow(
      LedgerIntegrityError,
    );
    await expect(storage.transaction((tx) => tx.ledger.release(otherKey.ref, task, 300))).rejects.toThrow(
      LedgerIntegrityError,
    );
    // Fractions of a micro-ruble never reach a balance.
    await expect(storage.transaction((tx) => tx.ledger.settle(key.ref, task, 300, 12.5))).rejects.toThrow(
      LedgerIntegrityError,
    );
    await expect(storage.transaction((tx) => tx.ledger.hold(key.ref, randomUUID(), 0.5))).rejects.toThrow(
      LedgerIntegrityError,
    );
    await expect(storage.transaction((tx) => tx.ledger.topup(key.ref, -5, null))).rejects.toThrow(
      LedgerIntegrityError,
    );
    expect(await entryFields(key)).toEqual(before);
    expect(await balances(key)).toEqual({ balance: 700, held: 300 });
    expect(await balances(otherKey)).toEqual({ balance: 1000, held: 0 });
  });

  it('rolls the hold back with the transaction that failed after it', async () => {
    const key = await seedKey(storage, { balance: 1000 });
    const task = randomUUID();
    const error = await failure(
      storage.transaction(async (tx) => {
        expect(await tx.ledger.hold(key.ref, task, 300)).toBe(true);
        throw new Error('the task insert failed');
      }),
    );
    expect((error as Error).message).toBe('the task insert failed');
    expect(await balances(key)).toEqual({ balance: 1000, held: 0 });
    expect(await storage.ledger.entriesForTask(task)).toEqual([]);
  });

  it('adjusts in both directions and never below zero', async () => {
    const key = await seedKey(storage, { balance: 1000 });
    expect(await storage.ledger.adjust(key.ref, -400, 'correction')).toBe(600);
    expect(await storage.ledger.adjust(key.ref, -601, 'too much')).toBeUndefined();
    expect(await storage.ledger.adjust(key.ref, 50, null)).toBe(650);
    expect(await balances(key)).toEqual({ balance: 650, held: 0 });
    expect((await entryFields(key)).slice(1)).toEqual([
      { kind: 'adjust', amount: -400, balance_after: 600, held_after: 0, task_id: null },
      { kind: 'adjust', amount: 50, balance_after: 650, held_after: 0, task_id: null },
    ]);
    expect(await checkLedger(db.kysely)).toEqual([]);
  });

  it('enforces balance >= 0 and held >= 0 in the database itself', async () => {
    const key = await seedKey(storage, { balance: 100 });
    const balanceError = await failure(
      sql`update api_keys set balance = -1 where id = ${key.keyId}`.execute(db.kysely),
    );
    expect(isCheckViolation(balanceError)).toBe(true);
    const heldError = await failure(
      sql`update api_keys set held = held - 1 where id = ${key.keyId}`.execute(db.kysely),
    );
    expect(isCheckViolation(heldError)).toBe(true);
    const entryError = await failure(
      db.kysely
        .insertInto('ledger_entries')
        .values({
          key_id: key.keyId,
          account_id: key.accountId,
          task_id: null,
          kind: 'adjust',
          amount: -200,
          balance_after: -100,
          held_after: 0,
          note: null,
          created_at: 1,
        })
        .execute(),
    );
    expect(isCheckViolation(entryError)).toBe(true);
    expect(await balances(key)).toEqual({ balance: 100, held: 0 });
  });

  it('accepts only the five entry kinds', async () => {
    const key = await seedKey(storage);
    const error = await failure(
      db.kysely
        .insertInto('ledger_entries')
        .values({
          key_id: key.keyId,
          account_id: key.accountId,
          task_id: null,
          kind: 'gift' as never,
          amount: 1,
          balance_after: 1,
          held_after: 0,
          note: null,
          created_at: 1,
        })
        .execute(),
    );
    expect(isCheckViolation(error)).toBe(true);
  });
});
