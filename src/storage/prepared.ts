// Hot queries, built and compiled by Kysely once instead of on every call. Building a query
// (immutable nodes, freezing, the compiler's visitor) cost about as much CPU as SQLite running it, on
// every request. A prepared query is built once per SQL dialect with named placeholders in place of
// its values; each call only binds the values and executes the compiled SQL (the connection then
// reuses its statement, cached by SQL text in sqlite-connection.ts). Only for queries whose shape never changes:
// no optional clauses, no IN lists of varying length.
import type { Compilable, CompiledQuery, Kysely, QueryResult, RawBuilder } from 'kysely';
import type { Database } from './schema.js';
import { tryDirect } from './sqlite-direct.js';

/** Stands for the value of parameter `name` (or `row.column`) while the query is built. */
class Placeholder {
  readonly path: string[];
  constructor(readonly name: string) {
    this.path = name.split('.');
  }
}

/**
 * Placeholders for a whole row, for `insertInto(…).values(row)` (Kysely reads an insert's columns
 * from the object's keys, so they must be listed). With a `prefix`, the values are read from that
 * field of the call's values: `placeholderRow(['a', 'b'], 'first')` binds `values.first.a`.
 */
export function placeholderRow<T>(columns: readonly (keyof T & string)[], prefix?: string): T {
  return Object.fromEntries(
    columns.map((column) => [column, new Placeholder(prefix ? `${prefix}.${column}` : column)]),
  ) as T;
}

interface Template<R> {
  query: CompiledQuery<R>;
  /** For each compiled parameter: the path of the call's value, or the constant to keep. */
  slots: { path: string[] | null; constant: unknown }[];
}

export interface PreparedQuery<P, R> {
  (db: Kysely<Database>, values: P): Promise<QueryResult<R>>;
  /**
   * SQLite, inside a transaction: runs the statement synchronously on the connection the
   * transaction holds (see sqlite-direct.ts), for work that needs no promise between statements.
   * Throws anywhere else.
   */
  direct(db: Kysely<Database>, values: P): QueryResult<R>;
}

/**
 * `build` receives placeholders for the values (typed as the values themselves) and returns the
 * query. Run it with the database or transaction at hand: `await query(this.db, { id })`.
 */
export function prepared<P extends object, R>(
  build: (db: Kysely<Database>, values: P) => Compilable<R> | RawBuilder<R>,
): PreparedQuery<P, R> {
  // One template per dialect: the adapter's class tells SQLite and PostgreSQL apart.
  const templates = new Map<unknown, Template<R>>();
  const placeholders = new Proxy({} as P, {
    get: (_target, name) => new Placeholder(String(name)),
  });
  /** The compiled query for this database's dialect. */
  const templateFor = (db: Kysely<Database>): Template<R> => {
    const dialect = db.getExecutor().adapter.constructor;
    let template = templates.get(dialect);
    if (!template) {
      // A raw `sql` query compiles against an executor; a query builder ignores the argument.
      const query = (build(db, placeholders) as RawBuilder<R>).compile(db);
      template = {
        query,
        slots: query.parameters.map((parameter) =>
          parameter instanceof Placeholder
            ? { path: parameter.path, constant: undefined }
            : { path: null, constant: parameter },
        ),
      };
      templates.set(dialect, template);
    }
    return template;
  };
  /** The call's values in the order of the template's parameters. */
  const bind = (template: Template<R>, values: P): unknown[] => {
    const parameters = new Array<unknown>(template.slots.length);
    for (let i = 0; i < parameters.length; i++) {
      const slot = template.slots[i];
      if (slot.path === null) {
        parameters[i] = slot.constant;
        continue;
      }
      let value: unknown = values;
      for (const key of slot.path) value = (value as Record<string, unknown>)[key];
      // Kysely would leave out an undefined column; a prepared query binds NULL instead.
      parameters[i] = value ?? null;
    }
    return parameters;
  };
  const query = (db: Kysely<Database>, values: P): Promise<QueryResult<R>> => {
    const template = templateFor(db);
    const parameters = bind(template, values);
    // SQLite: run the statement at once when that is safe (see sqlite-direct.ts).
    let direct: QueryResult<R> | undefined;
    try {
      direct = tryDirect<R>(db, template.query.sql, parameters);
    } catch (error) {
      return Promise.reject(error);
    }
    if (direct) return Promise.resolve(direct);
    return db.executeQuery<R>({ ...template.query, parameters });
  };
  query.direct = (db: Kysely<Database>, values: P): QueryResult<R> => {
    if (!db.isTransaction) throw new Error('a direct statement runs only inside a transaction');
    const template = templateFor(db);
    const result = tryDirect<R>(db, template.query.sql, bind(template, values));
    if (!result) throw new Error('a direct statement runs only on SQLite');
    return result;
  };
  return query;
}
