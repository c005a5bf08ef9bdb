// Group commit: transactions started together share one COMMIT, each still atomic on its own.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openTestDb, type TestDb } from '../testing/db.js';
import { Storage } from './storage.js';

let db: TestDb;
let storage: Storage;

beforeAll(async () => {
  db = await openTestDb('sqlite', { migrate: false });
  await sql`create table t (id integer primary key, v text not null)`.execute(db.kysely);
  storage = Storage.from(db);
});
afterAll(() => db.close());

const values = async () =>
  (await sql<{ v: string }>`select v from t order by id`.execute(db.kysely)).rows.map((r) => r.v);

describe('group commit on SQLite', () => {
  it('commits concurrent transactions together; a failed one is rolled back alone', async () => {
    const commits = vi.spyOn(db.kysely, 'transaction');
    const write = (v: string, fail = false) =>
      storage.transaction(async (tx) => {
        await sql`insert into t (v) values (${v})`.execute(tx.db);
        await sql`insert into t (v) values (${`${v}2`})`.execute(tx.db);
        if (fail) throw new Error(`refused ${v}`);
        return v;
      });
    const results = await Promise.allSettled([write('a'), write('b', true), write('c')]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      'a',
      'refused b',
      'c',
    ]);
    expect(await values()).toEqual(['a', 'a2', 'c', 'c2']);
    // One database transaction for the three.
    expect(commits).toHaveBeenCalledTimes(1);
    commits.mockRestore();
  });

  it('a transaction alone runs as before, and nested calls join the outer one', async () => {
    await sql`delete from t`.execute(db.kysely);
    const value = await storage.transaction((tx) =>
      tx.transaction(async (inner) => {
        await sql`insert into t (v) values ('x')`.execute(inner.db);
        return 42;
      }),
    );
    expect(value).toBe(42);
    expect(await values()).toEqual(['x']);
  });

  it('a statement error in one transaction of a batch rolls back that one only', async () => {
    await sql`create table if not exists u (v integer check (v > 0))`.execute(db.kysely);
    const results = await Promise.allSettled([
      storage.transaction((tx) => sql`insert into u (v) values (1)`.execute(tx.db)),
      storage.transaction((tx) => sql`insert into u (v) values (-1)`.execute(tx.db)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    const rows = await sql<{ v: number }>`select v from u`.execute(db.kysely);
    expect(rows.rows).toEqual([{ v: 1 }]);
  });
});
