// The embedded SQLite connection. The driver is @photostructure/sqlite: Node's own `node:sqlite`
// (DatabaseSync) published as a package whose compiled binaries ship inside it, so installing it
// compiles nothing (better-sqlite3 compiled SQLite from source for 71 s on a first install), and
// Node 20 has no `node:sqlite` yet. This file adapts it to the statement interface Kysely's SQLite
// dialect and sqlite-direct.ts use, and gives its errors the SQLite code names the rest of storage
// tests for (`SQLITE_BUSY`, `SQLITE_CONSTRAINT_UNIQUE`, …).
import { createRequire } from 'node:module';
import { DatabaseSync, type DatabaseSyncInstance, type StatementSyncInstance } from '@photostructure/sqlite';

/** Where the driver's entry point is: the checkpointer's worker thread loads it from there. */
export const SQLITE_DRIVER_PATH = createRequire(import.meta.url).resolve('@photostructure/sqlite');

export interface SqliteStatement {
  /** Whether the statement returns rows (a select, or a write with RETURNING). */
  readonly reader: boolean;
  all(parameters: readonly unknown[]): unknown[];
  run(parameters: readonly unknown[]): { changes: number; lastInsertRowid: number | bigint };
  iterate(parameters: readonly unknown[]): IterableIterator<unknown>;
}

export interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
  /** Runs one or more statements that bind nothing (pragmas, DDL). */
  exec(sql: string): void;
  close(): void;
}

/** Extended result codes by name, for the codes storage distinguishes (sqlite.org/rescode.html). */
const EXTENDED_CODE_NAMES: Record<number, string> = {
  261: 'SQLITE_BUSY_RECOVERY',
  517: 'SQLITE_BUSY_SNAPSHOT',
  773: 'SQLITE_BUSY_TIMEOUT',
  275: 'SQLITE_CONSTRAINT_CHECK',
  787: 'SQLITE_CONSTRAINT_FOREIGNKEY',
  1299: 'SQLITE_CONSTRAINT_NOTNULL',
  1555: 'SQLITE_CONSTRAINT_PRIMARYKEY',
  2067: 'SQLITE_CONSTRAINT_UNIQUE',
};

/**
 * Errors of statements that return rows (`all`, `iterate`) come with no codes at all, only SQLite's
 * message; its messages for the codes storage distinguishes are fixed texts.
 */
const CODE_BY_MESSAGE: [RegExp, string][] = [
  [/^database is locked/, 'SQLITE_BUSY'],
  [/^UNIQUE constraint failed/, 'SQLITE_CONSTRAINT_UNIQUE'],
  [/^CHECK constraint failed/, 'SQLITE_CONSTRAINT_CHECK'],
  [/^NOT NULL constraint failed/, 'SQLITE_CONSTRAINT_NOTNULL'],
  [/^FOREIGN KEY constraint failed/, 'SQLITE_CONSTRAINT_FOREIGNKEY'],
];

interface DriverError {
  code?: unknown;
  message?: unknown;
  sqliteCodeName?: unknown;
  sqliteExtendedCode?: unknown;
}

/** The driver reports `ERR_SQLITE_ERROR`; `code` becomes SQLite's own name, as better-sqlite3 gave it. */
function withSqliteCode(error: unknown): unknown {
  const fields = error as DriverError | null;
  if (fields?.code !== 'ERR_SQLITE_ERROR') return error;
  if (typeof fields.sqliteCodeName === 'string') {
    const extended = typeof fields.sqliteExtendedCode === 'number' ? fields.sqliteExtendedCode : -1;
    fields.code = EXTENDED_CODE_NAMES[extended] ?? fields.sqliteCodeName;
  } else if (typeof fields.message === 'string') {
    const message = fields.message;
    const known = CODE_BY_MESSAGE.find(([pattern]) => pattern.test(message));
    if (known) fields.code = known[1];
  }
  return error;
}

type RowBuilder = (values: unknown[]) => Record<string, unknown>;

/**
 * A function that turns one row's values into the row object, compiled once per statement. The
 * driver builds each row object through N-API, one property and one name string at a time; an array
 * plus this literal costs about half for a wide row (bench/NOTES.md, round 15). The names come from
 * the database schema; each is a quoted key, and `__proto__` a computed one so that it is a
 * property, not the prototype.
 */
function rowBuilder(names: readonly string[]): RowBuilder {
  const properties = names.map((name, index) => {
    const key = JSON.stringify(name);
    return `${name === '__proto__' ? `[${key}]` : key}: values[${index}]`;
  });
  return new Function('values', `return { ${properties.join(', ')} };`) as RowBuilder;
}

/**
 * Whether a statement's result columns are fixed by its text: no `*` anywhere in it (a `*` in a
 * string or a product only makes this answer no). SQLite prepares a statement again when the schema
 * changes, here or in another process; the columns of `select *` or `returning *` then follow the
 * table, and names compiled earlier would label the values wrongly. Those rows the driver builds.
 */
function hasFixedColumns(sql: string): boolean {
  return !sql.includes('*');
}

class Statement implements SqliteStatement {
  readonly reader: boolean;
  private readonly toRow?: RowBuilder;

  constructor(
    private readonly statement: StatementSyncInstance,
    sql: string,
  ) {
    const columns = statement.columns();
    this.reader = columns.length > 0;
    if (this.reader && hasFixedColumns(sql)) {
      statement.setReturnArrays(true);
      this.toRow = rowBuilder(columns.map((column) => column.name));
    }
  }

  all(parameters: readonly unknown[]): unknown[] {
    let rows: unknown[];
    try {
      rows = this.statement.all(...(parameters as never[]));
    } catch (error) {
      throw withSqliteCode(error);
    }
    const toRow = this.toRow;
    if (toRow) for (let i = 0; i < rows.length; i++) rows[i] = toRow(rows[i] as unknown[]);
    return rows;
  }

  run(parameters: readonly unknown[]): { changes: number; lastInsertRowid: number | bigint } {
    try {
      const { changes, lastInsertRowid } = this.statement.run(...(parameters as never[]));
      return { changes: Number(changes), lastInsertRowid };
    } catch (error) {
      throw withSqliteCode(error);
    }
  }

  *iterate(parameters: readonly unknown[]): IterableIterator<unknown> {
    let rows: Iterator<unknown>;
    try {
      rows = this.statement.iterate(...(parameters as never[]));
    } catch (error) {
      throw withSqliteCode(error);
    }
    const toRow = this.toRow;
    for (;;) {
      let next: IteratorResult<unknown>;
      try {
        next = rows.next();
      } catch (error) {
        throw withSqliteCode(error);
      }
      if (next.done) return;
      yield toRow ? toRow(next.value as unknown[]) : next.value;
    }
  }
}

/**
 * Opens the database file (created when missing; `:memory:` for a private in-memory one). Statements
 * are prepared once per SQL text and kept: Kysely asks for one on every query.
 */
export function openSqliteConnection(file: string, options: { readOnly?: boolean } = {}): SqliteConnection {
  let db: DatabaseSyncInstance;
  try {
    db = new DatabaseSync(file, { readOnly: options.readOnly ?? false });
  } catch (error) {
    throw withSqliteCode(error);
  }
  const statements = new Map<string, Statement>();
  return {
    prepare(sql) {
      let statement = statements.get(sql);
      if (!statement) {
        try {
          statement = new Statement(db.prepare(sql), sql);
        } catch (error) {
          throw withSqliteCode(error);
        }
        if (statements.size > 2000) statements.clear();
        statements.set(sql, statement);
      }
      return statement;
    },
    exec(sql) {
      try {
        db.exec(sql);
      } catch (error) {
        throw withSqliteCode(error);
      }
    },
    close() {
      statements.clear();
      db.close();
    },
  };
}
