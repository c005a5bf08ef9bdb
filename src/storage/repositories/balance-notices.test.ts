// Storage contract: the low-balance notice is written by the movement that takes a key's funds
// (balance + held) below its threshold, in that movement's own transaction or statement, once per
// crossing: holds and releases never cross, captures, debits and transfers out do, and going back
// to or above the threshold (a top-up) re-arms it. Single and batched statements, both engines.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskEvents } from '../../services/tasks/events.js';
import { finalizeTask } from '../../services/tasks/finalize.js';
import { ENGINES, openTestDb, type TestDb } from '../../testing/db.js';
import { newTaskRow, type SeededKey, seedKey } from '../../testing/storage-fixtures.js';
import { checkLedger } from '../ledger/ledger-check.js';
import { Storage } from '../storage.js';
import { BalanceNoticesRepository } from './balance-notices.js';
import { TransfersRepository } from './transfers.js';
import type { UsageOutcome } from './usage.js';

const RUB = 1_000_000;
const outcome = (cost: number): UsageOutcome => ({
  status: 'completed',
  inputTokens: 1,
  outputTokens: 1,
  cost,
  latencyMs: 1,
});

describe.each(ENGINES)('low-balance notices on %s', (engine) => {
  let db: TestDb;
  let storage: Storage;
  let notices: BalanceNoticesRepository;
  beforeAll(async () => {
    db = await openTestDb(engine);
    storage = Storage.from(db);
    notices = new BalanceNoticesRepository(db.kysely);
  });
  afterAll(async () => {
    expect(await checkLedger(db.kysely)).toEqual([]);
    await db.dispose();
  });

  async function keyWithThreshold(balance: number, threshold: number): Promise<SeededKey> {
    const key = await seedKey(storage, { balance });
    await db.kysely
      .updateTable('api_keys')
      .set({ low_balance: threshold })
      .where('id', '=', key.keyId)
      .execute();
    return key;
  }
  const hold = (key: SeededKey, id: string, amount: number) =>
    storage.transaction((tx) => tx.ledger.hold(key.ref, id, amount));
  const settle = (key: SeededKey, id: string, amount: number, cost: number) =>
    storage.transaction((tx) => tx.ledger.settle(key.ref, id, amount, cost));
  const written = async (key: SeededKey) =>
    (await notices.forKey(key.keyId)).map((n) => ({
      funds: n.funds,
      threshold: n.threshold,
      status: n.status,
    }));

  it('one notice per crossing: holds never cross, the capture that crosses does, a top-up re-arms', async () => {
    const key = await keyWithThreshold(100 * RUB, 50 * RUB);
    const [a, b, c, d] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    // Held 80: the available balance is 20, but the funds are still 100.
    expect(await hold(key, a, 80 * RUB)).toBe(true);
    expect(await written(key)).toEqual([]);
    // Captures 40 of 80: funds 60, not yet below.
    await settle(key, a, 80 * RUB, 40 * RUB);
    expect(await written(key)).toEqual([]);
    // Captures 15: funds 45 < 50: the notice, with the funds after the movement.
    await hold(key, b, 20 * RUB);
    await settle(key, b, 20 * RUB, 15 * RUB);
    expect(await written(key)).toEqual([{ funds: 45 * RUB, threshold: 50 * RUB, status: 'pending' }]);
    // Further spending below the threshold: no second notice.
    await hold(key, c, 10 * RUB);
    await settle(key, c, 10 * RUB, 5 * RUB);
    expect(await written(key)).toHaveLength(1);
    // A top-up back above re-arms; the next crossing notifies again.
    await storage.transaction((tx) => tx.ledger.topup(key.ref, 30 * RUB, 'top-up'));
    await hold(key, d, 30 * RUB);
    await settle(key, d, 30 * RUB, 25 * RUB);
    expect((await written(key)).map((n) => n.funds)).toEqual([45 * RUB, 45 * RUB]);
  });

  it('chat settlements, debits and transfers out cross too; a key without a threshold never', async () => {
    const chat = await keyWithThreshold(10 * RUB, 8 * RUB);
    const id = randomUUID();
    expect(await storage.chatBilling.open({ id, modelId: 'gpt-4o', ref: chat.ref }, 5 * RUB)).toBe(true);
    expect(await storage.chatBilling.settle(chat.ref, id, 5 * RUB, outcome(3 * RUB))).toBe(true);
    expect(await written(chat)).toEqual([{ funds: 7 * RUB, threshold: 8 * RUB, status: 'pending' }]);

    const debited = await keyWithThreshold(10 * RUB, 8 * RUB);
    await storage.transaction((tx) => tx.ledger.adjust(debited.ref, -3 * RUB, 'correction'));
    expect((await written(debited)).map((n) => n.funds)).toEqual([7 * RUB]);

    const source = await keyWithThreshold(10 * RUB, 8 * RUB);
    const target = await seedKey(storage, { accountId: source.accountId });
    await storage.transaction((tx) =>
      new TransfersRepository(tx.db).transfer({
        accountId: source.accountId,
        fromKeyId: source.keyId,
        toKeyId: target.keyId,
        amount: 5 * RUB,
        now: Date.now(),
        note: null,
      }),
    );
    expect((await written(source)).map((n) => n.funds)).toEqual([5 * RUB]);
    expect(await written(target)).toEqual([]);

    const plain = await seedKey(storage, { balance: 10 * RUB });
    await storage.transaction((tx) => tx.ledger.adjust(plain.ref, -9 * RUB, null));
    expect(await written(plain)).toEqual([]);
  });

  it('20 chat settlements at once (batched on PostgreSQL): exactly one notice, from the one that crossed', async () => {
    const key = await keyWithThreshold(100 * RUB, 75 * RUB);
    const ids = Array.from({ length: 20 }, () => randomUUID());
    for (const id of ids)
      expect(await storage.chatBilling.open({ id, modelId: 'gpt-4o', ref: key.ref }, 4 * RUB)).toBe(true);
    await Promise.all(ids.map((id) => storage.chatBilling.settle(key.ref, id, 4 * RUB, outcome(2 * RUB))));
    // Funds 100 → 60 in steps of 2: the step from 76 to 74 crossed.
    expect(await written(key)).toEqual([{ funds: 74 * RUB, threshold: 75 * RUB, status: 'pending' }]);
  });

  it('tasks finishing at once (batched on PostgreSQL): exactly one notice', async () => {
    const key = await keyWithThreshold(100 * RUB, 75 * RUB);
    const tasks = Array.from({ length: 20 }, () => newTaskRow(key, 4 * RUB, { run_at: Date.now() - 1 }));
    for (const task of tasks) expect(await storage.insertTaskWithHold(task)).toBe(true);
    await storage.transaction((tx) => tx.tasks.claimDue('w-notice', Date.now(), 60_000, 100));
    const events = new TaskEvents();
    await Promise.all(
      tasks.map((task) =>
        finalizeTask(
          storage,
          events,
          task.id,
          'w-notice',
          { status: 'completed', result: { url: 'u' }, cost: 2 * RUB },
          Date.now(),
        ),
      ),
    );
    expect(await written(key)).toEqual([{ funds: 74 * RUB, threshold: 75 * RUB, status: 'pending' }]);
  });

  it('a claim leases a notice once; a sender that lost its lease records nothing', async () => {
    const key = await keyWithThreshold(10 * RUB, 8 * RUB);
    await storage.transaction((tx) => tx.ledger.adjust(key.ref, -5 * RUB, null));
    const now = Date.now() + 1;
    const claimed = (await notices.claimDue(now, 1_000, 100)).filter((n) => n.key_id === key.keyId);
    expect(claimed).toHaveLength(1);
    expect((await notices.claimDue(now, 1_000, 100)).filter((n) => n.key_id === key.keyId)).toEqual([]);
    // The lease ran out: another sender takes it over, and the first one can no longer record.
    const later = (await notices.claimDue(now + 1_001, 1_000, 100)).filter((n) => n.key_id === key.keyId);
    expect(later).toHaveLength(1);
    const sent = { status: 'sent' as const, attempts: 1, nextAttemptAt: now, error: null, sentAt: now };
    expect(await notices.recordAttempt(claimed[0], sent)).toBe(false);
    expect(await notices.recordAttempt(later[0], sent)).toBe(true);
    expect(await written(key)).toEqual([{ funds: 5 * RUB, threshold: 8 * RUB, status: 'sent' }]);
  });
});
