// Group commit for SQLite. Every transaction of the process runs on the one connection, one after
// another, and each paid its own COMMIT (the WAL append, the lock round trip), which cost more than
// the statements of a typical request. Transactions that arrive while one is running now queue and
// then run together inside ONE database transaction, each in its own SAVEPOINT: a transaction that
// fails is rolled back to its savepoint alone, and the others still commit. Each caller's promise
// settles only after the shared COMMIT, so nothing is answered before it is durable, and each
// transaction stays atomic (its writes commit together or not at all). Alone, a transaction runs as
// before, without savepoints.
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.js';
import { tryDirect } from './sqlite-direct.js';

type Work = (trx: Transaction<Database>) => Promise<unknown>;

interface Queued {
  work: Work;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Bounds how long the transactions of one batch hold the write lock together. */
const MAX_BATCH = 64;

const SAVEPOINT = CompiledQuery.raw('savepoint grouped');
const RELEASE = CompiledQuery.raw('release grouped');
const ROLLBACK_TO = CompiledQuery.raw('rollback to grouped');

/** A savepoint statement, run directly on the connection the batch holds (see sqlite-direct.ts). */
async function execute(trx: Transaction<Database>, query: CompiledQuery): Promise<void> {
  if (!tryDirect(trx, query.sql, query.parameters)) await trx.executeQuery(query);
}

export class GroupCommit {
  private queue: Queued[] = [];
  private busy = false;

  constructor(private readonly db: Kysely<Database>) {}

  run<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.busy) {
        this.busy = true;
        // One turn of the event loop lets the transactions started by the same burst join in.
        // (Starting at once instead, to spare a lone request the turn, measured worse under load.)
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      if (batch.length === 1) await this.runAlone(batch[0]);
      else await this.runTogether(batch);
    }
    this.busy = false;
  }

  private async runAlone(item: Queued): Promise<void> {
    try {
      item.resolve(await this.db.transaction().execute(item.work));
    } catch (error) {
      item.reject(error);
    }
  }

  private async runTogether(batch: Queued[]): Promise<void> {
    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      await this.db.transaction().execute(async (trx) => {
        for (const item of batch) {
          await execute(trx, SAVEPOINT);
          try {
            const value = await item.work(trx);
            await execute(trx, RELEASE);
            outcomes.push({ ok: true, value });
          } catch (error) {
            await execute(trx, ROLLBACK_TO);
            await execute(trx, RELEASE);
            outcomes.push({ ok: false, value: error });
          }
        }
      });
    } catch (error) {
      // The shared COMMIT (or a savepoint statement) failed: nothing of the batch was kept.
      for (const item of batch) item.reject(error);
      return;
    }
    for (const [i, item] of batch.entries()) {
      if (outcomes[i].ok) item.resolve(outcomes[i].value);
      else item.reject(outcomes[i].value);
    }
  }
}
