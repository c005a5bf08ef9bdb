// Merges single-statement writes that arrive together into one multi-row statement (PostgreSQL).
// A statement that commits by itself still holds the rows it locked until its commit has flushed
// the WAL; the chat requests of one hot key all lock that key's row, so they waited for each other's
// commits one at a time. Here the first call runs at once on its own (nothing to wait for: the
// latency of a lone request is unchanged); calls that arrive while a statement is in flight queue,
// and the next round sends them all as ONE statement, one round trip and one commit for the lot.
// Each caller is answered after that statement committed.
//
// `many` may decline some items (answering undefined for them): those run one by one, in arrival
// order, through `one`, after the batch. That is how a batch keeps the exact outcome of running the
// calls one after another where a merged statement cannot decide (a key whose balance does not
// cover all of the batch's holds, a duplicate). If `many` fails, nothing of it was applied (one
// statement), and every item runs through `one`.

export interface BatcherStats {
  calls: number;
  statements: number;
  largestBatch: number;
}

interface Pending<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

export class PgBatcher<I, O> {
  private queue: Pending<I, O>[] = [];
  private busy = false;
  readonly stats: BatcherStats = { calls: 0, statements: 0, largestBatch: 0 };

  constructor(
    private readonly one: (item: I) => Promise<O>,
    private readonly many: (items: I[]) => Promise<(O | undefined)[]>,
    private readonly maxBatch = 256,
  ) {}

  run(item: I): Promise<O> {
    this.stats.calls++;
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.busy) {
        this.busy = true;
        void this.drain();
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.stats.statements++;
      this.stats.largestBatch = Math.max(this.stats.largestBatch, batch.length);
      if (batch.length === 1) await this.runOne(batch[0]);
      else await this.runMany(batch);
    }
    this.busy = false;
  }

  private async runOne(pending: Pending<I, O>): Promise<void> {
    try {
      pending.resolve(await this.one(pending.item));
    } catch (error) {
      pending.reject(error);
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
