// The bench's side of the load process (bench/load-child.ts): start it once, then hand it jobs.
// The load runs in that separate process, so the load generator never shares an event loop with the
// bench, the baselines or the system under test.
import type { LatencyJob } from './latency-client.js';
import type { LoadJobKind } from './load-child.js';
import type { Child, ProcessGroup } from './processes.js';
import type { StreamJob } from './stream-client.js';
import type { AutocannonJob, HttpTarget, LatencySummary, LoadStats, StreamSummary } from './types.js';

export type { AutocannonJob, HttpTarget, LatencyJob, StreamJob };

export class LoadGenerator {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  private constructor(private readonly child: Child) {
    child.proc.on('message', (message: { id?: number; result?: unknown; error?: string }) => {
      const waiter = message.id === undefined ? undefined : this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id!);
      if (message.error) waiter.reject(new Error(`load process: ${message.error}`));
      else waiter.resolve(message.result);
    });
    child.exited.then((code) => {
      for (const waiter of this.pending.values())
        waiter.reject(new Error(`load process exited (code ${code}):\n${child.tail()}`));
      this.pending.clear();
    });
  }

  static async start(group: ProcessGroup): Promise<LoadGenerator> {
    const child = group.spawnTs('load generator', 'bench/load-child.ts', [], { ipc: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`load process not ready after 30 s:\n${child.tail()}`)),
        30_000,
      );
      child.proc.once('message', () => {
        clearTimeout(timer);
        resolve();
      });
      child.exited.then((code) => reject(new Error(`load process exited (code ${code}):\n${child.tail()}`)));
    });
    return new LoadGenerator(child);
  }

  private run<T>(kind: LoadJobKind, job: unknown): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.child.proc.send({ id, kind, job });
    });
  }

  autocannon(job: AutocannonJob): Promise<LoadStats> {
    return this.run('autocannon', job);
  }

  /** A short run whose numbers are thrown away: JIT, connection pools and caches get warm. */
  async warmup(job: AutocannonJob, seconds: number): Promise<void> {
    if (seconds > 0) await this.autocannon({ ...job, durationSec: seconds, amount: undefined });
  }

  latency(job: LatencyJob): Promise<Record<string, LatencySummary>> {
    return this.run('latency', job);
  }

  streams(job: StreamJob): Promise<Record<string, StreamSummary>> {
    return this.run('streams', job);
  }
}
