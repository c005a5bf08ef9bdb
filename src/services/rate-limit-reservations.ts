// Counting a hot key's requests in Redis without a round trip per request. A process reserves a run
// of consecutive counts in the key's shared window at once (one INCRBY of the run's length) and hands
// them out locally, one per request; each request is judged by its own position in the window, so a
// key never gets more than its limit, across any number of processes.
//
// Runs are small when the limit is: a run takes at most 1/RUN_DIVISOR of what was left of the window
// when it was reserved (at most MAX_RUN), so below 2 × RUN_DIVISOR requests a minute every request
// is counted on its own, exactly as before. The cost: counts a process reserved but did not use by
// the end of the window (traffic stopped, or moved to another process) are lost, so a key spread
// over several processes can be refused up to that many requests early. With the divisor of 32 that
// is at most a few percent of the limit per process, and nothing for a key that keeps sending.

/** A reservation of `length` counts; resolves with the window's total after it, and the time to reset. */
export type Reserve = (subject: string, length: number) => Promise<{ total: number; msBeforeReset: number }>;

export const RUN_DIVISOR = 32;
export const MAX_RUN = 64;
/** Entries kept before expired runs are swept. */
const SWEEP_AT = 10_000;

interface Run {
  /** The next position to hand out, and the last one reserved. */
  next: number;
  last: number;
  resetsAt: number;
}

export interface Counted {
  /** This request's position in the window (1 = the first request). */
  position: number;
  msBeforeReset: number;
}

export class ReservedCounts {
  private readonly runs = new Map<string, Run>();
  /** A reservation under way per subject: requests arriving meanwhile wait for it. */
  private readonly reserving = new Map<string, Promise<void>>();

  constructor(
    private readonly reserve: Reserve,
    private readonly now: () => number = Date.now,
  ) {}

  async count(subject: string, limit: number): Promise<Counted> {
    for (;;) {
      const taken = this.take(subject);
      if (taken) return taken;
      const pending = this.reserving.get(subject);
      if (pending) {
        await pending;
        continue;
      }
      const reservation = this.reserveRun(subject, limit);
      this.reserving.set(subject, reservation);
      try {
        await reservation;
      } finally {
        this.reserving.delete(subject);
      }
    }
  }

  private take(subject: string): Counted | undefined {
    const run = this.runs.get(subject);
    if (!run || run.next > run.last) return undefined;
    const msBeforeReset = run.resetsAt - this.now();
    if (msBeforeReset <= 0) {
      this.runs.delete(subject);
      return undefined;
    }
    return { position: run.next++, msBeforeReset };
  }

  private async reserveRun(subject: string, limit: number): Promise<void> {
    const earlier = this.runs.get(subject);
    const now = this.now();
    // What this process last saw of the window; a fresh window starts from nothing.
    const seen = earlier && earlier.resetsAt > now ? earlier.last : 0;
    const length = Math.max(1, Math.min(MAX_RUN, Math.floor((limit - seen) / RUN_DIVISOR)));
    const { total, msBeforeReset } = await this.reserve(subject, length);
    if (this.runs.size >= SWEEP_AT) this.sweep(now);
    this.runs.set(subject, { next: total - length + 1, last: total, resetsAt: this.now() + msBeforeReset });
  }

  private sweep(now: number): void {
    for (const [subject, run] of this.runs) if (run.resetsAt <= now) this.runs.delete(subject);
  }
}
