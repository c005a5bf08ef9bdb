// The ledger check: clean on valid data, and each invariant reported on deliberately corrupted data.
// Corruption goes around the repositories (and, for a negative balance, around the CHECK constraint).
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { ENGINES, openTestDb, type TestDb } from '../../testing/db.js';
import { type SeededKey, seedKey, seedTask } from '../../testing/storage-fixtures.js';
import { Storage } from '../storage.js';
import { checkLedger, LEDGER_RULES } from './ledger-check.js';

describe.each(ENGINES)('ledger check on %s', (engine) => {
  let db: TestDb;
  let storage: Storage;
  afterEach(() => db?.dispose());

  /** A realistic ledger: top-ups, a completed task (partial capture), a failed task, an open task. */
  async function validLedger(): Promise<{
    key: SeededKey;
    openTask: string;
    doneTask: string;
    chat: string;
  }> {
    db = await openTestDb(engine);
    storage = Storage.from(db);
    const key = await seedKey(storage, { balance: 10_000 });
    const doneTask = await seedTask(storage, key, { status: 'pending', holdAmount: 3000 });
    await storage.transaction((tx) => tx.ledger.hold(key.ref, doneTask, 3000));
    await storage.transaction(async (tx) => {
      await tx.ledger.settle(key.ref, doneTask, 3000, 2500);
      await tx.db.updateTable('tasks').set({ status: 'completed' }).where('id', '=', doneTask).execute();
    });
    const failedTask = await seedTask(storage, key, { status: 'pending', holdAmount: 1000 });
    await storage.transaction((tx) => tx.ledger.hold(key.ref, failedTask, 1000));
    await storage.transaction(async (tx) => {
      await tx.ledger.release(key.ref, failedTask, 1000);
      await tx.db.updateTable('tasks').set({ status: 'failed' }).where('id', '=', failedTask).execute();
    });
    const openTask = await seedTask(storage, key, { status: 'processing', holdAmount: 700 });
    await storage.transaction((tx) => tx.ledger.hold(key.ref, openTask, 700));
    // A chat request holds without a task row while it streams; its open hold is recorded.
    const chat = `chat_${randomUUID()}`;
    expect(await storage.chatBilling.open({ id: chat, modelId: 'gpt-4o', ref: key.ref }, 50)).toBe(true);
    await storage.ledger.adjust(key.ref, -250, 'correction');
    return { key, openTask, doneTask, chat };
  }

  const rules = async () => (await checkLedger(db.kysely)).map((v) => v.rule);

  it('is clean on a valid ledger', async () => {
    const { key } = await validLedger();
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({
      balance: 10_000 - 2500 - 700 - 50 - 250,
      held: 750,
    });
    expect(await checkLedger(db.kysely)).toEqual([]);
  });

  it('reports a negative balance', async () => {
    const { key } = await validLedger();
    if (engine === 'sqlite') {
      await sql`pragma ignore_check_constraints = on`.execute(db.kysely);
    } else {
      await sql`alter table api_keys drop constraint api_keys_balance_nonneg`.execute(db.kysely);
    }
    await sql`update api_keys set balance = -5 where id = ${key.keyId}`.execute(db.kysely);
    const violations = await checkLedger(db.kysely);
    expect(violations).toContainEqual({
      rule: LEDGER_RULES.nonNegative,
      subject: `key ${key.keyId}`,
      detail: 'balance=-5 held=750',
    });
  });

  it('reports a negative spend counter', async () => {
    const { key } = await validLedger();
    await sql`update api_keys set spend_in_period = -3 where id = ${key.keyId}`.execute(db.kysely);
    expect(await checkLedger(db.kysely)).toContainEqual({
      rule: LEDGER_RULES.spendCounter,
      subject: `key ${key.keyId}`,
      detail: 'spend_in_period=-3',
    });
    await sql`update api_keys set spend_in_period = 0 where id = ${key.keyId}`.execute(db.kysely);
  });

  it('reports a balance that differs from the sum of its entries', async () => {
    const { key } = await validLedger();
    await sql`update api_keys set balance = balance + 1 where id = ${key.keyId}`.execute(db.kysely);
    expect(await checkLedger(db.kysely)).toEqual([
      { rule: LEDGER_RULES.funds, subject: `key ${key.keyId}`, detail: 'balance=6501 held=750 ledger=7250' },
    ]);
  });

  it('reports held money that no open hold explains', async () => {
    const { key } = await validLedger();
    await sql`update api_keys set balance = balance - 10, held = held + 10 where id = ${key.keyId}`.execute(
      db.kysely,
    );
    expect(await rules()).toEqual([LEDGER_RULES.held]);
  });

  it('reports a hold that capture + release do not add up to', async () => {
    const { key, doneTask } = await validLedger();
    await sql`update ledger_entries set amount = amount - 100 where task_id = ${doneTask} and kind = 'release'`.execute(
      db.kysely,
    );
    const violations = await checkLedger(db.kysely);
    expect(violations).toContainEqual({
      rule: LEDGER_RULES.settlement,
      subject: `task ${doneTask}`,
      detail: 'hold=3000 capture=2500 release=400',
    });
    // The key's sums no longer match either: the same corruption seen from the key's side.
    expect(violations.map((v) => v.rule)).toContain(LEDGER_RULES.held);
    expect(violations.find((v) => v.rule === LEDGER_RULES.held)?.subject).toBe(`key ${key.keyId}`);
  });

  it('reports a settlement without any hold', async () => {
    const { key } = await validLedger();
    const orphan = randomUUID();
    await db.kysely
      .insertInto('ledger_entries')
      .values({
        key_id: key.keyId,
        account_id: key.accountId,
        task_id: orphan,
        kind: 'release',
        amount: 5,
        balance_after: 0,
        held_after: 0,
        note: null,
        created_at: 1,
      })
      .execute();
    expect((await checkLedger(db.kysely)).filter((v) => v.rule === LEDGER_RULES.settlement)).toEqual([
      { rule: LEDGER_RULES.settlement, subject: `task ${orphan}`, detail: 'hold=0 capture=0 release=5' },
    ]);
  });

  it('reports a final task whose hold is still open', async () => {
    const { openTask } = await validLedger();
    await db.kysely.updateTable('tasks').set({ status: 'failed' }).where('id', '=', openTask).execute();
    expect(await checkLedger(db.kysely)).toEqual([
      { rule: LEDGER_RULES.finalTask, subject: `task ${openTask}`, detail: 'status=failed' },
    ]);
  });

  it('reports an open task that has no open hold', async () => {
    const { doneTask, key } = await validLedger();
    await db.kysely.updateTable('tasks').set({ status: 'processing' }).where('id', '=', doneTask).execute();
    const unheld = await seedTask(storage, key, { status: 'pending', holdAmount: 400 });
    const violations = await checkLedger(db.kysely);
    expect(violations).toHaveLength(2);
    expect(violations).toContainEqual({
      rule: LEDGER_RULES.openTask,
      subject: `task ${doneTask}`,
      detail: 'status=processing',
    });
    expect(violations).toContainEqual({
      rule: LEDGER_RULES.openTask,
      subject: `task ${unheld}`,
      detail: 'status=pending',
    });
  });

  it('reports an open chat request whose hold was settled behind its back', async () => {
    const { key, chat } = await validLedger();
    await storage.transaction((tx) => tx.ledger.settle(key.ref, chat, 50, 0));
    expect(await checkLedger(db.kysely)).toEqual([
      { rule: LEDGER_RULES.chatHold, subject: `chat ${chat}`, detail: 'amount=50' },
    ]);
  });

  it('reports ledger entries of a key that does not exist (PostgreSQL has no foreign key for it)', async () => {
    await validLedger();
    const stray = sql`insert into ledger_entries
        (key_id, account_id, task_id, kind, amount, balance_after, held_after, note, created_at)
      values (987654, 1, null, 'topup', 5, 5, 0, null, 1)`;
    if (engine === 'sqlite') {
      await expect(stray.execute(db.kysely)).rejects.toThrow(/FOREIGN KEY/);
      return;
    }
    await stray.execute(db.kysely);
    expect(await checkLedger(db.kysely)).toEqual([
      { rule: LEDGER_RULES.entryKey, subject: 'key 987654', detail: '1 entries, no such key' },
    ]);
  });

  it('reports a task whose key does not exist or belongs to another account', async () => {
    const { key, doneTask } = await validLedger();
    const other = await seedKey(storage);
    const move = sql`update tasks set account_id = ${other.accountId} where id = ${doneTask}`;
    if (engine === 'sqlite') {
      // SQLite keeps the foreign keys; the account exists, so only the check can tell.
      await move.execute(db.kysely);
    } else {
      await sql`update tasks set key_id = 987654 where id = ${doneTask}`.execute(db.kysely);
    }
    expect(await checkLedger(db.kysely)).toEqual([
      {
        rule: LEDGER_RULES.taskKey,
        subject: `task ${doneTask}`,
        detail: `key ${engine === 'sqlite' ? key.keyId : 987654}`,
      },
    ]);
  });
});
