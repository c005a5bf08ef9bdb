// Kysely's SQLite driver, adapted to several writers on one database file (the server plus a CLI
// command, or two connections in one process):
// - transactions BEGIN IMMEDIATE, taking the write lock up front, so two writers never deadlock
//   upgrading a read lock;
// - a locked database is waited for asynchronously. The driver is synchronous, so SQLite's own
//   busy_timeout would block the event loop: every request of the process would stall, and a
//   transaction of the same process holding the lock could never finish (it needs the event loop).
import {
  CompiledQuery,
  type DatabaseConnection,
  type QueryResult,
  SqliteDialect,
  SqliteDriver,
} from 'kysely';

/** How long a statement waits for another writer before it fails with SQLITE_BUSY. */
export const SQLITE_BUSY_WAIT_MS = 10_000;

/** SQLITE_BUSY and its extended codes: another connection holds the lock. */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

async function whileBusy<T>(run: () => Promise<T>): Promise<T> {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (!isBusy(error) || Date.now() - started >= SQLITE_BUSY_WAIT_MS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(2 ** attempt, 25)));
    }
  }
}

/** Retries statements that found the database locked, except inside a transaction: BEGIN IMMEDIATE
 * already holds the write lock there, and a retry would hide a real error. */
class BusyWaitingConnection implements DatabaseConnection {
  inTransaction = false;

  constructor(private readonly inner: DatabaseConnection) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.inTransaction) return this.inner.executeQuery<R>(query);
    return whileBusy(() => this.inner.executeQuery<R>(query));
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  private connection?: BusyWaitingConnection;
  /** Whether a query or transaction holds the connection (see sqlite-direct.ts). */
  private held = false;

  idle(): boolean {
    return !this.held;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await super.acquireConnection();
    this.held = true;
    this.connection ??= new BusyWaitingConnection(inner);
    return this.connection;
  }

  override async releaseConnection(): Promise<void> {
    this.held = false;
    await super.releaseConnection();
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const conn = connection as BusyWaitingConnection;
    await conn.executeQuery(CompiledQuery.raw('begin immediate'));
    conn.inTransaction = true;
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await super.commitTransaction(connection);
    (connection as BusyWaitingConnection).inTransaction = false;
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.rollbackTransaction(connection);
    } finally {
      (connection as BusyWaitingConnection).inTransaction = false;
    }
  }
}

export class ImmediateSqliteDialect extends SqliteDialect {
  /** The driver Kysely created (it creates one, in its constructor). */
  driver?: ImmediateSqliteDriver;

  constructor(private readonly options: ConstructorParameters<typeof SqliteDialect>[0]) {
    super(options);
  }

  override createDriver() {
    this.driver = new ImmediateSqliteDriver(this.options);
    return this.driver;
  }
}
