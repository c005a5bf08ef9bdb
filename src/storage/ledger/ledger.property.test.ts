// Model-based property test of the ledger: random sequences of topup / hold / settle / release on
// two keys, each step compared against a plain in-memory model, and every invariant checked at the
// end. SQLite always; PostgreSQL (fewer runs) when reachable.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, openTestDb, type TestDb } from '../../testing/db.js';
import { type SeededKey, seedAccount, seedKey } from '../../testing/storage-fixtures.js';
import { Storage } from '../storage.js';
import { TaskAlreadySettledError } from './ledger.js';
import { checkLedger } from './ledger-check.js';

type Op =
  | { op: 'topup'; key: number; amount: number }
  | { op: 'hold'; key: number; amount: number }
  | { op: 'settle'; task: number; costPermille: number }
  | { op: 'release'; task: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant('topup' as const),
    key: fc.integer({ min: 0, max: 1 }),
    amount: fc.integer({ min: 1, max: 5_000 }),
  }),
  fc.record({
    op: fc.constant('hold' as const),
    key: fc.integer({ min: 0, max: 1 }),
    amount: fc.integer({ min: 0, max: 3_000 }),
  }),
  // Up to 120% of the hold: the ledger must cap the capture at the hold.
  fc.record({
    op: fc.constant('settle' as const),
    task: fc.nat(),
    costPermille: fc.integer({ min: 0, max: 1_200 }),
  }),
  fc.record({ op: fc.constant('release' as const), task: fc.nat() }),
);

interface ModelTask {
  id: string;
  key: number;
  hold: number;
  captured: number | null;
  released: number | null;
}

/** The reference: what a correct ledger must do, in a dozen lines. */
class LedgerModel {
  balance = [0, 0];
  held = [0, 0];
  tasks: ModelTask[] = [];

  topup(key: number, amount: number) {
    this.balance[key] += amount;
  }
  hold(key: number, amount: number, id: string): boolean {
    if (this.balance[key] < amount) return false;
    this.balance[key] -= amount;
    this.held[key] += amount;
    this.tasks.push({ id, key, hold: amount, captured: null, released: null });
    return true;
  }
  /** false: the task was already settled and nothing may change. */
  settle(task: ModelTask, cost: number): boolean {
    if (task.captured !== null) return false;
    task.captured = Math.min(cost, task.hold);
    task.released = task.hold - task.captured;
    this.held[task.key] -= task.hold;
    this.balance[task.key] += task.released;
    return true;
  }
}

async function runSequence(storage: Storage, ops: Op[]): Promise<void> {
  const accountId = await seedAccount(storage);
  const keys: SeededKey[] = [await seedKey(storage, { accountId }), await seedKey(storage, { accountId })];
  const model = new LedgerModel();

  for (const step of ops) {
    if (step.op === 'topup') {
      model.topup(step.key, step.amount);
      expect(await storage.transaction((tx) => tx.ledger.topup(keys[step.key].ref, step.amount, null))).toBe(
        model.balance[step.key],
      );
    } else if (step.op === 'hold') {
      const id = randomUUID();
      const expected = model.hold(step.key, step.amount, id);
      expect(await storage.transaction((tx) => tx.ledger.hold(keys[step.key].ref, id, step.amount))).toBe(
        expected,
      );
    } else if (model.tasks.length > 0) {
      const task = model.tasks[step.task % model.tasks.length];
      const cost = step.op === 'settle' ? Math.floor((task.hold * step.costPermille) / 1000) : 0;
      const ref = keys[task.key].ref;
      const attempt = storage.transaction(async (tx) => {
        if (step.op === 'settle') await tx.ledger.settle(ref, task.id, task.hold, cost);
        else await tx.ledger.release(ref, task.id, task.hold);
      });
      if (model.settle(task, cost)) {
        await attempt;
      } else {
        await expect(attempt).rejects.toBeInstanceOf(TaskAlreadySettledError);
      }
    }
    for (const [i, key] of keys.entries()) {
      expect(await storage.keys.balanceOf(key.keyId)).toEqual({
        balance: model.balance[i],
        held: model.held[i],
      });
    }
  }

  for (const task of model.tasks) {
    const entries = await storage.ledger.entriesForTask(task.id);
    const expected: [string, number][] = [['hold', task.hold]];
    if (task.captured !== null) expected.push(['capture', task.captured], ['release', task.released!]);
    expect(entries.map((e) => [e.kind, e.amount])).toEqual(expected);
  }
  expect(await checkLedger(storage.db)).toEqual([]);
}

describe.each(ENGINES)('ledger properties on %s', (engine) => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb(engine);
  });
  afterAll(() => db.dispose());

  it('random topup / hold / settle / release sequences match the model and keep every invariant', async () => {
    const storage = Storage.from(db);
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 40 }), (ops) => runSequence(storage, ops)),
      { numRuns: engine === 'sqlite' ? 100 : 20 },
    );
  }, 120_000);
});
