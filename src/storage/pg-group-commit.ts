// Group commit for PostgreSQL. Every request of one key locks that key's row (a hold, a settlement),
// and a transaction keeps the lock until its COMMIT has flushed the WAL: one transaction per request
// made the requests of a hot key wait for each other's commits, one at a time (851 POST /generate a
// second where SQLite did 18,000). Transactions that arrive while a batch runs now queue, and the
// next batch runs them one after another inside ONE database transaction on one connection, each
// behind its own SAVEPOINT: a transaction that fails is rolled back to its savepoint alone and the
// others still commit. The key row is then locked once per batch, not once per request. Each caller
// is answered only after the shared COMMIT, so nothing is answered before it is durable.
//
// - Alone (nothing else queued), a transaction runs as before, at once, without savepoints.
// - A batch holds at most MAX_BATCH transactions: PostgreSQL keeps the subtransaction ids of up to
//   64 savepoints per transaction in shared memory; beyond that every snapshot of every session
//   gets slower.
// - Savepoints are never released (one round trip fewer per transaction); COMMIT ends them all.
// - A batch mixes keys, so two processes' batches can deadlock where single-key transactions could
//   not. A transaction refused for a deadlock or a serialization failure (inside its savepoint, or
//   with the whole batch) runs again alone after the batch: it was rolled back, so nothing applies
//   twice.
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.js';

type Work = (trx: Transaction<Database>) => Promise<unknown>;

interface Queued {
  work: Work;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export const PG_MAX_BATCH = 48;

/** SQLSTATEs that guarantee the failed work was rolled back and may simply run again. */
const RETRYABLE = new Set(['40P01', '40001']);

export function isRetryableConflict(error: unknown): boolean {
  return RETRYABLE.has((error as { code?: unknown } | null)?.code as string);
}

const savepoints = Array.from({ length: PG_MAX_BATCH }, (_, i) => ({
  set: CompiledQuery.raw(`savepoint g${i}`),
  rollback: CompiledQuery.raw(`rollback to savepoint g${i}`),
}));

/** What a batch did, for metrics and tests. */
export interface PgGroupCommitStats {
  transactions: number;
  commits: number;
  largestBatch: number;
}

export class PgGroupCommit {
  private queue: Queued[] = [];
  private busy = false;
  readonly stats: PgGroupCommitStats = { transactions: 0, commits: 0, largestBatch: 0 };

  constructor(private readonly db: Kysely<Database>) {}

  run<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.busy) {
        this.busy = true;
        // Unlike SQLite's statements, PostgreSQL's are asynchronous: a transaction started at once
        // still lets the others of the burst queue behind it, to form the next batch.
        void this.drain();
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, PG_MAX_BATCH);
      this.stats.transactions += batch.length;
      this.stats.commits++;
      this.stats.largestBatch = Math.max(this.stats.largestBatch, batch.length);
      if (batch.length === 1) await this.runAlone(batch[0]);
      else await this.runTogether(batch);
    }
    this.busy = false;
  }

  private async runAlone(item: Queued, retries = 5): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        item.resolve(await this.db.transaction().execute(item.work));
        return;
      } catch (error) {
        if (attempt < retries && isRetryableConflict(error)) {
          // A short random pause, so that the two sides of a deadlock do not meet again at once.
          await new Promise((resolve) => setTimeout(resolve, 1 + Math.random() * 5 * (attempt + 1)));
          continue;
        }
        item.reject(error);
        return;
      }
    }
  }

  private async runTogether(batch: Queued[]): Promise<void> {
    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      await this.db.transaction().execute(async (trx) => {
        for (const [i, item] of batch.entries()) {
          await trx.executeQuery(savepoints[i].set);
          try {
            outcomes.push({ ok: true, value: await item.work(trx) });
          } catch (error) {
            await trx.executeQuery(savepoints[i].rollback);
            outcomes.push({ ok: false, value: error });
          }
        }
      });
    } catch (error) {
      // The shared COMMIT (or a savepoint statement) failed: nothing of the batch was kept.
      if (isRetryableConflict(error)) {
        for (const item of batch) await this.runAlone(item);
      } else {
        for (const item of batch) item.reject(error);
      }
      return;
    }
    const again: Queued[] = [];
    for (const [i, item] of batch.entries()) {
      const { ok, value } = outcomes[i];
      if (ok) item.resolve(value);
      else if (isRetryableConflict(value)) again.push(item);
      else item.reject(value);
    }
    for (const item of again) await this.runAlone(item);
  }
}
