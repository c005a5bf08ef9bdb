// A hot key's row lock held across a WAL flush. PostgreSQL releases a transaction's row locks only
// after its commit record is on disk, so the batched statements that all update one key's row (new
// tasks with their holds, final transitions with their settlements) waited for each other's disk
// flushes one at a time: in the task pipeline one of them was always waiting for the row's lock
// (bench/NOTES.md, round 6).
//
// Here such a statement commits on the relaxed pool (synchronous_commit off: the commit, and the
// release of its locks, do not wait for the disk), and its callers are answered only after a
// barrier: a tiny transaction on a connection that does wait, whose commit record comes after the
// statement's in the WAL. PostgreSQL flushes the WAL in order, so once the barrier has committed
// the statement is on disk too. The barrier must write WAL of its own, or its commit would not wait:
// it emits an empty transactional logical-decoding message (prefix `gengate`), which any role may.
// Should the server refuse it, the process goes back to plain synchronous statements. The callers
// get exactly the promise of a synchronous commit; the key's row is free while the disk works, and
// concurrent flushes are shared by PostgreSQL's own group commit.
//
// What others may see before the flush: the rows themselves (a task in GET /tasks, a balance),
// never an effect outside the database. Anything that acts on them (a worker's claim, a webhook
// sender's claim) commits synchronously itself, which flushes everything before it first.
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';

export interface FlushBarrier {
  /** Runs `statement` on the relaxed pool, then returns once its commit is on disk. */
  durably<T>(statement: (db: Kysely<Database>) => Promise<T>): Promise<T>;
}

/** No barrier: the statement runs on `db` and is answered after its own commit, as `db` commits. */
export function commitsOn(db: Kysely<Database>): FlushBarrier {
  return { durably: (statement) => statement(db) };
}

/** PostgreSQL's insufficient_privilege and undefined_function: no barrier on this server. */
const UNAVAILABLE = new Set(['42501', '42883']);

/** Commits a transaction that writes WAL of its own (and so waits for its flush) on `db`. */
export type Barrier = (db: Kysely<Database>) => Promise<unknown>;

const emitMessage: Barrier = (db) => sql`select pg_logical_emit_message(true, 'gengate', '')`.execute(db);

export function flushBarrier(
  strict: Kysely<Database>,
  relaxed: Kysely<Database>,
  barrier: Barrier = emitMessage,
): FlushBarrier {
  // Tried once, before the first relaxed statement: a server that refuses it gets plain statements.
  let usable: Promise<boolean> | undefined;
  const probe = async () => {
    try {
      await barrier(strict);
      return true;
    } catch (error) {
      if (UNAVAILABLE.has((error as { code?: string }).code ?? '')) return false;
      usable = undefined;
      throw error;
    }
  };
  return {
    async durably(statement) {
      usable ??= probe();
      if (!(await usable)) return statement(strict);
      const result = await statement(relaxed);
      // Fails only with the connection; the statement's commit then stands, like a lost COMMIT answer.
      await barrier(strict);
      return result;
    },
  };
}
