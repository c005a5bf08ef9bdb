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
  private inFlight = 0;
  readonly stats: BatcherStats = { calls: 0, statements: 0, largestBatch: 0 };

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
