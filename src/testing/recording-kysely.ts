// A Kysely on a pool of its own that reports the SQL of every query it runs, for tests that check
// which connection pool a statement went through.
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../storage/schema.js';

export function recordingKysely(url: string, onQuery: (sql: string) => void, poolSize = 2): Kysely<Database> {
  return new Kysely<Database>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: poolSize }) }),
    log: (event) => {
      if (event.level === 'query') onQuery(event.query.sql);
    },
  });
}
