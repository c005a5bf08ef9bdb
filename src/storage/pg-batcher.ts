// Merges single-statement writes that arrive together into one multi-row statement (PostgreSQL).
// A statement that commits by itself still holds the rows it locked until its commit has flushed
// the WAL; the chat requests of one hot key all lock that key's row, so they waited for each other's
// commits one at a time. Here a call runs at once while fewer than `maxInFlight` statements are in
// flight (a lone request waits for nothing: its latency is unchanged); calls that arrive while all
// are busy queue, and the next free slot sends them all as ONE statement, one round trip and one
// commit for the lot. Each caller is answered after its statement committed. With the default of
// one statement in flight, the calls of a process apply strictly in arrival order; more would
// overlap round trips, but concurrent statements take a hot key's row in whatever order they reach
// it.
//
// A statement that PostgreSQL refused for a deadlock or a serialization failure was rolled back
// whole (it commits by itself), so it simply runs again, up to RETRIES times after a short random
// pause: merged statements lock the rows of several keys, and two of them (two processes, or a
// hold batch and a settlement batch) can take the same keys in opposite orders.
//
// `many` may decline some items (answering undefined for them): those run one by one, in arrival
// order, through `one`, after the batch. That is how a batch keeps the exact outcome of running the
// calls one after another where a merged statement cannot decide (a key whose balance does not
// cover all of the batch's holds, a duplicate). If `many` fails, nothing of it was applied (one
// statement), and every item runs through `one`.

import { isRetryableConflict } from './pg-group-commit.js';

const RETRIES = 5;

export interface BatcherStats {
  calls: number;
  statements: number;
  largestBatch: number;
  /** Statements run again after a deadlock or serialization failure. */
  retries: number;
}

interface Pending<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

export class PgBatcher<I, O> {
  private queue: Pending<I, O>[] = [];
  private inFlight = 0;
  readonly stats: BatcherStats = { calls: 0, statements: 0, largestBatch: 0, retries: 0 };

  constructor(
    private readonly one: (item: I) => Promise<O>,
    private readonly many: (items: I[]) => Promise<(O | undefined)[]>,
    private readonly options: { maxBatch?: number; maxInFlight?: number } = {},
  ) {}

  run(item: I): Promise<O> {
    this.stats.calls++;
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.inFlight < (this.options.maxInFlight ?? 1)) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.inFlight++;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.options.maxBatch ?? 256);
        this.stats.statements++;
        this.stats.largestBatch = Math.max(this.stats.largestBatch, batch.length);
        if (batch.length === 1) await this.runOne(batch[0]);
        else await this.runMany(batch);
      }
    } finally {
      this.inFlight--;
    }
  }

  private async runOne(pending: Pending<I, O>): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        pending.resolve(await this.one(pending.item));
        return;
      } catch (error) {
        if (attempt < RETRIES && isRetryableConflict(error)) {
          this.stats.retries++;
          await new Promise((resolve) => setTimeout(resolve, 1 + Math.random() * 5 * (attempt + 1)));
          continue;
        }
        pending.reject(error);
        return;
      }
    }
  }

  private async runMany(batch: Pending<I, O>[]): Promise<void> {
    let results: (O | undefined)[];
    try {
      results = await this.many(batch.map((p) => p.item));
    } catch {
      results = [];
    }
    const declined: Pending<I, O>[] = [];
    for (const [i, pending] of batch.entries()) {
      const result = results[i];
      if (result === undefined) declined.push(pending);
      else pending.resolve(result);
    }
    for (const pending of declined) await this.runOne(pending);
  }
}
