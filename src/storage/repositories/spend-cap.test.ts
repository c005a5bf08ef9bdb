// Storage contract: the per-key spend cap. The guarded hold refuses what would pass the cap, in the
// same statement as the balance (single and batched, tasks and chat requests); a release frees what
// it gives back; each period counts afresh; concurrent holds never pass the cap.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodStarts } from '../../domain/keys/limits.js';
import { TaskEvents } from '../../services/tasks/events.js';
import { finalizeTask } from '../../services/tasks/finalize.js';
import { ENGINES, openTestDb, type TestDb } from '../../testing/db.js';
import { newTaskRow, type SeededKey, seedKey } from '../../testing/storage-fixtures.js';
import { checkLedger } from '../ledger/ledger-check.js';
import { Storage } from '../storage.js';
import type { UsageOutcome } from './usage.js';

const RUB = 1_000_000;
const DAY = 86_400_000;
/** A Wednesday noon, UTC: 2026-11-18T12:00:00Z. */
const WEDNESDAY_NOON = Date.UTC(2026, 10, 18, 12);

const outcome = (cost: number): UsageOutcome => ({
  status: 'completed',
  inputTokens: 10,
  outputTokens: 10,
  cost,
  latencyMs: 5,
});

describe('period starts (UTC)', () => {
  it('day, ISO week from Monday, calendar month', () => {
    expect(periodStarts(WEDNESDAY_NOON)).toEqual({
      day: Date.UTC(2026, 10, 18),
      week: Date.UTC(2026, 10, 16),
      month: Date.UTC(2026, 10, 1),
    });
    // A Monday at midnight starts its own week; a Sunday belongs to the week before.
    expect(periodStarts(Date.UTC(2026, 10, 16)).week).toBe(Date.UTC(2026, 10, 16));
    expect(periodStarts(Date.UTC(2026, 10, 22, 23, 59)).week).toBe(Date.UTC(2026, 10, 16));
  });
});

describe.each(ENGINES)('spend cap on %s', (engine) => {
  let db: TestDb;
  let storage: Storage;
  beforeAll(async () => {
    db = await openTestDb(engine);
    storage = Storage.from(db);
  });
  afterAll(async () => {
    expect(await checkLedger(db.kysely)).toEqual([]);
    await db.dispose();
  });

  async function cappedKey(limit: number, period: 'day' | 'week' | 'month' | 'total', balance = 1_000 * RUB) {
    const key = await seedKey(storage, { balance });
    await storage.keys.updateRestrictions(key.keyId, { spend_limit: limit, spend_limit_period: period }, 0);
    return key;
  }
  const at = (key: SeededKey, now: number) => ({ ...key.ref, now });
  const hold = (key: SeededKey, amount: number, now = key.ref.now, id: string = randomUUID()) =>
    storage.transaction((tx) => tx.ledger.hold(at(key, now), id, amount));
  const counter = async (key: SeededKey) => {
    const state = await storage.keys.spendState(key.keyId);
    return { spent: Number(state?.spend_in_period), since: Number(state?.spend_since) };
  };

  it('accepts holds up to the cap and refuses the one past it, writing nothing', async () => {
    const key = await cappedKey(10 * RUB, 'total');
    expect(await hold(key, 4 * RUB)).toBe(true);
    expect(await hold(key, 6 * RUB)).toBe(true);
    const entries = await storage.ledger.countForKey(key.keyId);
    expect(await hold(key, 1)).toBe(false);
    expect(await storage.ledger.countForKey(key.keyId)).toBe(entries);
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 990 * RUB, held: 10 * RUB });
    expect((await counter(key)).spent).toBe(10 * RUB);
  });

  it('a release frees the cap; a capture below the hold frees the remainder', async () => {
    const key = await cappedKey(10 * RUB, 'month');
    const [a, b] = [randomUUID(), randomUUID()];
    expect(await hold(key, 6 * RUB, key.ref.now, a)).toBe(true);
    expect(await hold(key, 4 * RUB, key.ref.now, b)).toBe(true);
    expect(await hold(key, 1)).toBe(false);
    // Refunded in full: all 6 come back to the cap.
    await storage.transaction((tx) => tx.ledger.release(key.ref, a, 6 * RUB));
    expect((await counter(key)).spent).toBe(4 * RUB);
    // Captured 1 of 4: 3 come back.
    await storage.transaction((tx) => tx.ledger.settle(key.ref, b, 4 * RUB, 1 * RUB));
    expect((await counter(key)).spent).toBe(1 * RUB);
    expect(await hold(key, 9 * RUB)).toBe(true);
    expect(await hold(key, 1)).toBe(false);
  });

  it('each day counts afresh; a release of yesterday frees nothing of today', async () => {
    const key = await cappedKey(10 * RUB, 'day');
    const yesterday = randomUUID();
    expect(await hold(key, 8 * RUB, WEDNESDAY_NOON, yesterday)).toBe(true);
    expect(await hold(key, 3 * RUB, WEDNESDAY_NOON + 1_000)).toBe(false);
    const nextDay = WEDNESDAY_NOON + DAY;
    expect(await hold(key, 7 * RUB, nextDay)).toBe(true);
    expect(await counter(key)).toEqual({ spent: 7 * RUB, since: Date.UTC(2026, 10, 19) });
    await storage.transaction((tx) => tx.ledger.release(at(key, nextDay + 1), yesterday, 8 * RUB));
    expect((await counter(key)).spent).toBe(7 * RUB);
    expect(await hold(key, 3 * RUB, nextDay + 2)).toBe(true);
    expect(await hold(key, 1, nextDay + 3)).toBe(false);
  });

  it('a key without a cap is never refused by it; raising the cap keeps the count', async () => {
    const key = await seedKey(storage, { balance: 100 * RUB });
    expect(await hold(key, 90 * RUB)).toBe(true);
    await storage.keys.updateRestrictions(
      key.keyId,
      { spend_limit: 95 * RUB, spend_limit_period: 'total' },
      0,
    );
    expect(await hold(key, 6 * RUB)).toBe(false);
    expect(await hold(key, 5 * RUB)).toBe(true);
    await storage.keys.updateRestrictions(key.keyId, { spend_limit: 200 * RUB }, 0);
    expect(await hold(key, 5 * RUB)).toBe(true);
  });

  it('chat holds: refused past the cap; the settlement gives back what it did not capture', async () => {
    const key = await cappedKey(10 * RUB, 'week');
    const opening = (id: string) => ({ id, modelId: 'gpt-4o', ref: key.ref });
    const [a, b] = [randomUUID(), randomUUID()];
    expect(await storage.chatBilling.openReporting(opening(a), 7 * RUB)).toBe(993 * RUB);
    expect(await storage.chatBilling.open(opening(randomUUID()), 4 * RUB)).toBe(false);
    expect(await storage.chatBilling.open(opening(b), 3 * RUB)).toBe(true);
    expect(await storage.chatBilling.settle(key.ref, a, 7 * RUB, outcome(2 * RUB))).toBe(true);
    expect((await counter(key)).spent).toBe(5 * RUB);
    expect(await storage.chatBilling.settle(key.ref, b, 3 * RUB, outcome(0))).toBe(true);
    expect((await counter(key)).spent).toBe(2 * RUB);
    expect(await storage.chatBilling.open(opening(randomUUID()), 8 * RUB)).toBe(true);
  });

  it('20 concurrent task holds against a cap that fits 2: exactly 2', async () => {
    const key = await cappedKey(2 * 3 * RUB, 'day');
    const tasks = Array.from({ length: 20 }, () => newTaskRow(key, 3 * RUB));
    const accepted = await Promise.all(tasks.map((task) => storage.insertTaskWithHold(task)));
    expect(accepted.filter(Boolean)).toHaveLength(2);
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 994 * RUB, held: 6 * RUB });
    expect((await counter(key)).spent).toBe(6 * RUB);
  });

  it('20 concurrent chat holds against a cap that fits 2: exactly 2; concurrent settlements free it', async () => {
    const key = await cappedKey(2 * 5 * RUB, 'month');
    const ids = Array.from({ length: 20 }, () => randomUUID());
    const accepted = await Promise.all(
      ids.map((id) => storage.chatBilling.open({ id, modelId: 'gpt-4o', ref: key.ref }, 5 * RUB)),
    );
    expect(accepted.filter(Boolean)).toHaveLength(2);
    expect((await counter(key)).spent).toBe(10 * RUB);
    const held = ids.filter((_, i) => accepted[i]);
    const settled = await Promise.all(
      held.map((id) => storage.chatBilling.settle(key.ref, id, 5 * RUB, outcome(1 * RUB))),
    );
    expect(settled).toEqual([true, true]);
    expect((await counter(key)).spent).toBe(2 * RUB);
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 998 * RUB, held: 0 });
  });

  it('a batch of holds on several keys: each key keeps its own cap, uncapped keys unaffected', async () => {
    const capped = await cappedKey(3 * RUB, 'total');
    const free = await seedKey(storage, { balance: 100 * RUB });
    const tasks = [
      ...Array.from({ length: 5 }, () => newTaskRow(capped, 1 * RUB)),
      ...Array.from({ length: 5 }, () => newTaskRow(free, 1 * RUB)),
    ];
    const accepted = await Promise.all(tasks.map((task) => storage.insertTaskWithHold(task)));
    expect(accepted.slice(0, 5).filter(Boolean)).toHaveLength(3);
    expect(accepted.slice(5)).toEqual([true, true, true, true, true]);
  });

  it('many settlements at once (batched on PostgreSQL) give back exactly what they release', async () => {
    const key = await cappedKey(100 * RUB, 'total');
    const ids = Array.from({ length: 12 }, () => randomUUID());
    for (const id of ids)
      expect(await storage.chatBilling.open({ id, modelId: 'gpt-4o', ref: key.ref }, 5 * RUB)).toBe(true);
    expect((await counter(key)).spent).toBe(60 * RUB);
    await Promise.all(ids.map((id) => storage.chatBilling.settle(key.ref, id, 5 * RUB, outcome(1 * RUB))));
    expect((await counter(key)).spent).toBe(12 * RUB);
  });

  it('tasks finishing at once (batched on PostgreSQL) give back their releases', async () => {
    const key = await cappedKey(100 * RUB, 'month');
    const tasks = Array.from({ length: 12 }, () => newTaskRow(key, 5 * RUB, { run_at: Date.now() - 1 }));
    for (const task of tasks) expect(await storage.insertTaskWithHold(task)).toBe(true);
    const claimed = await storage.transaction((tx) => tx.tasks.claimDue('w-cap', Date.now(), 60_000, 100));
    expect(claimed.filter((t) => t.key_id === key.keyId)).toHaveLength(12);
    const events = new TaskEvents();
    await Promise.all(
      tasks.map((task, i) =>
        finalizeTask(
          storage,
          events,
          task.id,
          'w-cap',
          i % 2 === 0
            ? { status: 'failed', error: 'no' }
            : { status: 'completed', result: { url: 'u' }, cost: 2 * RUB },
          Date.now(),
        ),
      ),
    );
    // Six failed (all released), six captured 2 of 5.
    expect((await counter(key)).spent).toBe(12 * RUB);
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 988 * RUB, held: 0 });
  });
});
