// Test databases: a fresh SQLite file or a fresh PostgreSQL schema per suite, migrated.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type Db, type Engine, openPostgres, openSqlite } from '../storage/db.js';
import { migrateToLatest } from '../storage/migrations.js';
import { HAVE_POSTGRES, PG_URL } from './services.js';

export interface TestDb extends Db {
  /** The DATABASE_URL for processes that must open the same database (PostgreSQL only). */
  url?: string;
  /** SQLite file path, for processes that must open the same database. */
  file?: string;
  dispose(): Promise<void>;
}

/** Engines to run storage contract tests on: SQLite always, PostgreSQL when reachable. */
export const ENGINES: Engine[] = HAVE_POSTGRES ? ['sqlite', 'postgres'] : ['sqlite'];

export async function openTestDb(engine: Engine, options: { migrate?: boolean } = {}): Promise<TestDb> {
  let db: TestDb;
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'gengate-test-'));
    const file = join(dir, 'test.db');
    const inner = openSqlite(file);
    db = {
      ...inner,
      file,
      async dispose() {
        await inner.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } else {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    const url = `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const inner = openPostgres(url, 20, { relaxedCommits: true });
    db = {
      ...inner,
      url,
      async dispose() {
        await inner.close();
        const cleanup = new pg.Client({ connectionString: PG_URL });
        await cleanup.connect();
        await cleanup.query(`drop schema ${schema} cascade`);
        await cleanup.end();
      },
    };
  }
  if (options.migrate !== false) await migrateToLatest(db);
  return db;
}
