// Opens the database: SQLite (embedded default, WAL) or PostgreSQL when DATABASE_URL is set.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, SqliteDriver, type DatabaseConnection } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';

export type Engine = 'sqlite' | 'postgres';

export interface Db {
  kysely: Kysely<Database>;
  engine: Engine;
  close(): Promise<void>;
}

// PostgreSQL returns BIGINT as a string; our values (micro-rubles, epoch ms) fit a double exactly.
pg.types.setTypeParser(20, (value: string) => Number(value));

/** IMMEDIATE takes the write lock at BEGIN, so two processes never deadlock upgrading a read lock. */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly options: ConstructorParameters<typeof SqliteDialect>[0]) {
    super(options);
  }
  override createDriver() {
    return new ImmediateSqliteDriver(this.options);
  }
}

/** better-sqlite3 prepares a statement per call inside Kysely; caching them saves a parse per query. */
function withStatementCache(db: BetterSqlite3.Database) {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    prepare(sql: string) {
      let stmt = statements.get(sql);
      if (!stmt) {
        stmt = db.prepare(sql);
        if (statements.size > 2000) statements.clear();
        statements.set(sql, stmt);
      }
      return stmt;
    },
    close() {
      db.close();
    },
  };
}

export function openSqlite(file: string): Db {
  if (file !== ':memory:') mkdirSync(join(file, '..'), { recursive: true });
  const raw = new BetterSqlite3(file);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('busy_timeout = 10000');
  raw.pragma('foreign_keys = ON');
  const kysely = new Kysely<Database>({
    dialect: new ImmediateSqliteDialect({ database: withStatementCache(raw) as never }),
  });
  return { kysely, engine: 'sqlite', close: () => kysely.destroy() };
}

export function openPostgres(url: string, poolSize = 10): Db {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { kysely, engine: 'postgres', close: () => kysely.destroy() };
}

export function openDatabase(options: { databaseUrl?: string; dataDir: string }): Db {
  return options.databaseUrl ? openPostgres(options.databaseUrl) : openSqlite(join(options.dataDir, 'gengate.db'));
}
