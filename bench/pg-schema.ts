// A fresh PostgreSQL schema for the database-side benches (pg-storage.ts, pg-batch-cost.ts): migrated,
// opened as gengate opens it (with the relaxed pool), and dropped afterwards.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { type Db, openPostgres } from '../src/storage/db.js';
import { migrateToLatest } from '../src/storage/migrations.js';
import { PG_URL } from './gengate.js';

export async function freshSchema(
  prefix: string,
  poolSize: number,
): Promise<{ db: Db; drop: () => Promise<void> }> {
  const schema = `${prefix}_${randomUUID().slice(0, 8)}`;
  const admin = openPostgres(PG_URL, 1);
  await sql.raw(`create schema ${schema}`).execute(admin.kysely);
  const url = `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  const db = openPostgres(url, poolSize, { relaxedCommits: true });
  await migrateToLatest(db);
  return {
    db,
    drop: async () => {
      await db.close();
      await sql.raw(`drop schema ${schema} cascade`).execute(admin.kysely);
      await admin.close();
    },
  };
}
