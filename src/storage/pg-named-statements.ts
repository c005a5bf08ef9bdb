// PostgreSQL parses and plans a statement sent without a name on every call. Kysely sends every query
// that way, and the hot statements are large (the batched holds and settlements are CTEs of five or
// six parts): parsing and planning took about 0.35 ms of the server's CPU per call, twice what
// executing them took (bench/NOTES.md, round 6). Here a statement text that recurs becomes a named
// prepared statement: node-postgres then parses it once per connection and afterwards sends only its
// values (and PostgreSQL may keep a generic plan for it).
//
// - Only statements with values are named: a text without any is DDL, a transaction command or a
//   migration, often several commands, which only the simple protocol takes.
// - A text is named the second time it is seen, so one-off statements cost no server memory; the
//   names are bounded (MAX_NAMES), and texts past the bound stay unnamed.
// - A prepared statement whose result columns changed under it (a migration by another process
//   while this one runs) fails with "cached plan must not change result type": the text then stays
//   unnamed from now on, and the call runs again unnamed.
import type pg from 'pg';

const MAX_NAMES = 2_000;
/** Texts seen once, not named yet; cleared when large (texts of varying shape). */
const MAX_CANDIDATES = 10_000;

const names = new Map<string, string>();
const candidates = new Set<string>();
const retired = new Set<string>();
let counter = 0;

function nameOf(text: string): string | undefined {
  const name = names.get(text);
  if (name !== undefined || retired.has(text)) return name;
  if (!candidates.has(text)) {
    if (candidates.size >= MAX_CANDIDATES) candidates.clear();
    candidates.add(text);
    return undefined;
  }
  candidates.delete(text);
  if (names.size >= MAX_NAMES) return undefined;
  const fresh = `gengate_${++counter}`;
  names.set(text, fresh);
  return fresh;
}

/** PostgreSQL's feature_not_supported for a prepared statement whose result row type changed. */
function isStalePlan(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return e?.code === '0A000' && typeof e.message === 'string' && e.message.includes('cached plan');
}

type Query = (...args: unknown[]) => unknown;

/** Makes each new connection of `pool` send recurring statements by name. */
export function nameRecurringStatements(pool: pg.Pool): void {
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as Query;
    (client as unknown as { query: Query }).query = (text: unknown, values?: unknown, callback?: unknown) => {
      if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0 || callback !== undefined)
        return query(text, values, callback);
      const name = nameOf(text);
      if (name === undefined) return query(text, values);
      return (query({ name, text, values }) as Promise<unknown>).catch((error: unknown) => {
        if (!isStalePlan(error)) throw error;
        names.delete(text);
        retired.add(text);
        return query(text, values);
      });
    };
  });
}
