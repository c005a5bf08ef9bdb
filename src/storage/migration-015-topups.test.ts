// Migration 015 on both engines: the ledger's kind constraint follows ledger-kinds.ts (the new kinds
// are accepted, an unknown one refused), the ledger's rows and indexes survive, and `ledger check`
// counts a refund and its reversal by their declared effects.
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { ENGINES, openTestDb, type TestDb } from '../testing/db.js';
import { seedKey } from '../testing/storage-fixtures.js';
import { checkLedger } from './ledger/ledger-check.js';
import { migrateThrough, migrateToLatest } from './migrations.js';
import { Storage } from './storage.js';

describe.each(ENGINES)('migration 015 on %s', (engine) => {
  let db: TestDb;
  afterEach(() => db?.dispose());

  it('keeps the ledger and accepts the declared kinds only', async () => {
    db = await openTestDb(engine, { migrate: false });
    await migrateThrough(db, '011_task_key_references');
    const storage = Storage.from(db);
    const key = await seedKey(storage, { balance: 5_000_000 });
    await migrateToLatest(db);
    expect(await storage.ledger.countForKey(key.keyId)).toBe(1);

    expect(await storage.ledger.moveBalance(key.ref, 'redeem', 1_000_000, 'cd_1')).toBe(6_000_000);
    expect(await storage.ledger.moveBalance(key.ref, 'refund', 2_000_000, 'rf_1')).toBe(4_000_000);
    expect(await storage.ledger.moveBalance(key.ref, 'refund_reversal', 2_000_000, 'rf_1')).toBe(6_000_000);
    // A debit beyond the available balance is refused, having written nothing.
    expect(await storage.ledger.moveBalance(key.ref, 'refund', 7_000_000, 'rf_2')).toBeUndefined();
    // One entry per reference and kind.
    await expect(storage.ledger.moveBalance(key.ref, 'redeem', 1_000_000, 'cd_1')).rejects.toThrow();
    expect(await checkLedger(db.kysely)).toEqual([]);

    const bogus = sql`insert into ledger_entries
      (key_id, account_id, task_id, kind, amount, balance_after, held_after, note, created_at)
      values (${key.keyId}, ${key.accountId}, null, 'bogus', 1, 1, 0, null, 0)`;
    await expect(bogus.execute(db.kysely)).rejects.toThrow();
    // The (key_id, id) index is still there.
    if (engine === 'sqlite') {
      const indexes = await sql<{ name: string }>`select name from sqlite_master
        where type = 'index' and tbl_name = 'ledger_entries'`.execute(db.kysely);
      expect(indexes.rows.map((r) => r.name)).toContain('ledger_key');
    }
  });

  it('reports a refund entry that the balance does not reflect', async () => {
    db = await openTestDb(engine);
    const storage = Storage.from(db);
    const key = await seedKey(storage, { balance: 5_000_000 });
    await storage.ledger.moveBalance(key.ref, 'refund', 1_000_000, 'rf_1');
    await db.kysely.updateTable('api_keys').set({ balance: 5_000_000 }).where('id', '=', key.keyId).execute();
    expect((await checkLedger(db.kysely)).map((v) => v.rule)).toContain(
      'balance + held = sum of ledger entries',
    );
  });
});
