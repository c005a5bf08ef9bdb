// A shortcut for prepared queries on SQLite. The driver runs a statement synchronously, but
// through Kysely each one still passes a connection mutex, a connection provider, a promise chain
// per layer and a result transform: on the chat path that cost as much as the statements. A
// prepared query runs its statement directly when that is safe:
//   - inside a transaction: the transaction holds the process's only connection, and its own
//     statements are what would run next;
//   - outside one: only while no one holds the connection (no transaction is open), so the
//     statement cannot land inside somebody else's transaction.
// Otherwise (the connection is busy, or the database is locked by another process) the query takes
// Kysely's path, which waits its turn.
import type { Kysely, QueryResult } from 'kysely';
import type { Database } from './schema.js';
import type { SqliteStatement } from './sqlite-connection.js';
import { isBusy } from './sqlite-driver.js';

export interface SqliteDirect {
  /** The cached prepared statement for this SQL text. */
  prepare(sql: string): SqliteStatement;
  /** True while no Kysely query or transaction holds the connection. */
  idle(): boolean;
}

// Keyed by the Kysely adapter, which a database and all its transactions share.
const directByAdapter = new WeakMap<object, SqliteDirect>();

export function registerSqliteDirect(db: Kysely<Database>, direct: SqliteDirect): void {
  directByAdapter.set(db.getExecutor().adapter, direct);
}

/**
 * Runs the statement now and returns its result, or undefined when it must go through Kysely
 * instead (not SQLite, the connection held by someone else, or the file locked by another process).
 */
export function tryDirect<R>(
  db: Kysely<Database>,
  sql: string,
  parameters: readonly unknown[],
): QueryResult<R> | undefined {
  const direct = directByAdapter.get(db.getExecutor().adapter);
  if (!direct) return undefined;
  const inTransaction = db.isTransaction;
  if (!inTransaction && !direct.idle()) return undefined;
  const statement = direct.prepare(sql);
  try {
    // The same result shape as Kysely's SQLite connection.
    if (statement.reader) return { rows: statement.all(parameters) as R[] };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  } catch (error) {
    // Outside a transaction another process may hold the write lock: Kysely's path waits for it.
    if (!inTransaction && isBusy(error)) return undefined;
    throw error;
  }
}
