// Recurring statements are sent by name (parsed once per connection), statements without values never
// are, and a prepared statement whose result columns changed under it is run again unnamed.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDb, type TestDb } from '../testing/db.js';
import { HAVE_POSTGRES } from '../testing/services.js';
import { type Db, openPostgres } from './db.js';

/** The connection's prepared statements, as PostgreSQL lists them. */
const preparedTexts = async (db: Db) =>
  (
    await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db.kysely)
  ).rows.map((row) => row.statement);

describe.skipIf(!HAVE_POSTGRES)('named statements on PostgreSQL', () => {
  let schema: TestDb;
  /** One connection, so the prepared statements listed are the ones our calls made. */
  let db: Db;

  beforeAll(async () => {
    schema = await openTestDb('postgres', { migrate: false });
    db = openPostgres(schema.url!, 1);
  });
  afterAll(async () => {
    await db?.close();
    await schema?.dispose();
  });

  it('names a statement with values the second time it runs, and answers the same', async () => {
    const query = (n: number) => sql<{ doubled: number }>`select ${n}::int * 2 as doubled /* recurring */`;
    expect((await query(1).execute(db.kysely)).rows).toEqual([{ doubled: 2 }]);
    expect((await preparedTexts(db)).some((text) => text.includes('recurring'))).toBe(false);
    expect((await query(2).execute(db.kysely)).rows).toEqual([{ doubled: 4 }]);
    expect((await query(3).execute(db.kysely)).rows).toEqual([{ doubled: 6 }]);
    expect((await preparedTexts(db)).filter((text) => text.includes('recurring'))).toHaveLength(1);
  });

  it('never names a statement without values (DDL, transaction commands, several commands)', async () => {
    for (let i = 0; i < 3; i++) await sql`select 1 as one /* no values */; select 2`.execute(db.kysely);
    expect((await preparedTexts(db)).some((text) => text.includes('no values'))).toBe(false);
  });

  it('runs a statement again unnamed when a migration changed its result columns', async () => {
    await sql`create table named_stale (a int)`.execute(db.kysely);
    await sql`insert into named_stale values (1)`.execute(db.kysely);
    const read = () =>
      sql<Record<string, number>>`select * from named_stale where a = ${1}`.execute(db.kysely);
    await read();
    await read();
    expect((await read()).rows).toEqual([{ a: 1 }]);
    await sql`alter table named_stale add column b int default 7`.execute(db.kysely);
    expect((await read()).rows).toEqual([{ a: 1, b: 7 }]);
    expect((await read()).rows).toEqual([{ a: 1, b: 7 }]);
  });
});
