// Opens the database: SQLite (embedded default, WAL) or PostgreSQL when DATABASE_URL is set.
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { nameRecurringStatements } from './pg-named-statements.js';
import type { Database } from './schema.js';
import { BACKSTOP_CHECKPOINT_PAGES, type Checkpointer, startCheckpointer } from './sqlite-checkpointer.js';
import { openSqliteConnection } from './sqlite-connection.js';
import { registerSqliteDirect } from './sqlite-direct.js';
import { ImmediateSqliteDialect, SQLITE_BUSY_WAIT_MS } from './sqlite-driver.js';

export type Engine = 'sqlite' | 'postgres';

export interface Db {
  kysely: Kysely<Database>;
  /**
   * PostgreSQL only: a small pool whose commits do not wait for the WAL flush
   * (`synchronous_commit = off`), for the batched hot statements: chat holds and settlements
   * (docs/DECISIONS.md, "Chat commits on PostgreSQL"), and new tasks and final transitions, which
   * are then followed by a flush barrier (pg-flush-barrier.ts). Absent on SQLite.
   */
  relaxed?: Kysely<Database>;
  /** With `relaxed`: chat holds and settlements wait for the flush too (PG_CHAT_SYNC_COMMIT), through a barrier. */
  chatSyncCommit?: boolean;
  engine: Engine;
  close(): Promise<void>;
}

/** pg is loaded at the first PostgreSQL connection: the embedded mode's start skips it. */
let pgModule: typeof pg | undefined;
function loadPg(): typeof pg {
  if (!pgModule) {
    pgModule = createRequire(import.meta.url)('pg') as typeof pg;
    // PostgreSQL returns BIGINT as a string; our values (micro-rubles, epoch ms) fit a double exactly.
    pgModule.types.setTypeParser(20, (value: string) => Number(value));
  }
  return pgModule;
}

/** `backgroundCheckpoint`: checkpoint the WAL on a worker thread (the server; see sqlite-checkpointer.ts). */
export function openSqlite(file: string, options: { backgroundCheckpoint?: boolean } = {}): Db {
  if (file !== ':memory:') mkdirSync(join(file, '..'), { recursive: true });
  const connection = openSqliteConnection(file);
  // Opening may wait for another process synchronously (once, at start); afterwards a locked
  // database is waited for without blocking the event loop (see sqlite-driver.ts).
  connection.exec(`pragma busy_timeout = ${SQLITE_BUSY_WAIT_MS}`);
  connection.exec('pragma journal_mode = WAL');
  connection.exec('pragma synchronous = NORMAL');
  connection.exec('pragma foreign_keys = ON');
  connection.exec('pragma busy_timeout = 0');
  // Temporary tables and sorts in memory, not in temp files; a 32 MB page cache (the default is 2 MB)
  // keeps the hot tables' pages in memory.
  connection.exec('pragma temp_store = MEMORY');
  connection.exec('pragma cache_size = -32000');
  let checkpointer: Checkpointer | undefined;
  if (options.backgroundCheckpoint && file !== ':memory:') {
    checkpointer = startCheckpointer(file);
    connection.exec(`pragma wal_autocheckpoint = ${BACKSTOP_CHECKPOINT_PAGES}`);
  }
  const dialect = new ImmediateSqliteDialect({ database: connection });
  const kysely = new Kysely<Database>({ dialect });
  const driver = dialect.driver;
  if (driver)
    registerSqliteDirect(kysely, { prepare: (sql) => connection.prepare(sql), idle: () => driver.idle() });
  return {
    kysely,
    engine: 'sqlite',
    close: async () => {
      await checkpointer?.stop();
      await kysely.destroy();
    },
  };
}

/**
 * Connections of the relaxed pool: the batched statements in flight (chat holds 1, chat settlements
 * 1, new tasks 1, final transitions 2) and spares.
 */
const RELAXED_POOL_SIZE = 8;

export function openPostgres(
  url: string,
  poolSize = 10,
  options: { relaxedCommits?: boolean; chatSyncCommit?: boolean } = {},
): Db {
  const { Pool } = loadPg();
  const pool = new Pool({ connectionString: url, max: poolSize });
  nameRecurringStatements(pool);
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  if (!options.relaxedCommits) return { kysely, engine: 'postgres', close: () => kysely.destroy() };
  const relaxedPool = new Pool({ connectionString: url, max: RELAXED_POOL_SIZE });
  nameRecurringStatements(relaxedPool);
  // Queued ahead of any query on the new connection. Should it fail, the connection keeps waiting
  // for the flush: the safe direction.
  // No sequential scan where an index serves: this pool runs only the batched hot statements, whose
  // plans are kept from their first calls. chat_holds, planned while it was a few pages, fills
  // with dead rows between vacuums, and a kept plan that scanned it whole went from 1.4 to 2.1 ms a
  // settlement within 4,000 statements (bench/NOTES.md, round 7).
  // And each statement planned once: PostgreSQL judged the batched hold's generic plan dearer than
  // a custom one and planned it anew on every call (0.90 → 0.55 ms a statement of one request,
  // 0.75 → 0.69 ms of sixteen; bench/NOTES.md, round 8).
  relaxedPool.on('connect', (client) => {
    client
      .query(
        'set synchronous_commit = off; set enable_seqscan = off; set plan_cache_mode = force_generic_plan',
      )
      .catch(() => undefined);
  });
  const relaxed = new Kysely<Database>({ dialect: new PostgresDialect({ pool: relaxedPool }) });
  return {
    kysely,
    relaxed,
    chatSyncCommit: options.chatSyncCommit ?? false,
    engine: 'postgres',
    close: async () => {
      await Promise.all([kysely.destroy(), relaxed.destroy()]);
    },
  };
}

/** A UNIQUE or PRIMARY KEY violation, on either engine (e.g. a second settlement of one task). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** A CHECK constraint violation, on either engine (e.g. a balance driven below zero). */
export function isCheckViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23514' || code === 'SQLITE_CONSTRAINT_CHECK';
}

export function openDatabase(options: {
  databaseUrl?: string;
  dataDir: string;
  pgChatSyncCommit?: boolean;
}): Db {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, 10, {
        relaxedCommits: true,
        chatSyncCommit: options.pgChatSyncCommit,
      })
    : openSqlite(join(options.dataDir, 'gengate.db'), { backgroundCheckpoint: true });
}
