// This process's lease on its chat holds. Every hold it opens names it (chat_holds.process_id),
// and one heartbeat per process, not one write per request, keeps the lease alive: every
// LEASE_MS / 3 it extends the lease to now + LEASE_MS. If the process dies, its lease runs out
// within LEASE_MS and the next sweep of any other process releases its holds
// (releaseHoldsOfDeadProcesses). The heartbeat also runs that sweep, so every serving process looks
// after the others. The lease is taken at the first chat request (processes that never serve chat,
// such as CLI commands, write nothing), and given up on close.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { ProcessLeaseRepository } from '../../storage/repositories/process-leases.js';
import type { Storage } from '../../storage/storage.js';
import type { Clock } from '../clock.js';
import type { Metrics } from '../metrics.js';
import { releaseHoldsOfDeadProcesses } from './abandoned-holds.js';

export interface ChatHoldLeaseOptions {
  /** How long the lease lasts without a renewal (LEASE_MS). */
  leaseMs: number;
  onError?: (message: string, error: unknown) => void;
}

export class ChatHoldLease {
  /** Unique per process start: a restarted process never inherits the holds of its previous life. */
  readonly processId = `${hostname()}/${process.pid}/${randomBytes(6).toString('hex')}`;
  private readonly leases: ProcessLeaseRepository;
  private starting: Promise<void> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> = Promise.resolve();
  private closed = false;
  /** True once the lease is written: the chat path then checks this flag and nothing else. */
  live = false;

  constructor(
    private readonly deps: { storage: Storage; clock: Clock; metrics?: Metrics },
    private readonly options: ChatHoldLeaseOptions,
  ) {
    this.leases = new ProcessLeaseRepository(deps.storage.db);
  }

  get intervalMs(): number {
    return Math.max(10, Math.floor(this.options.leaseMs / 3));
  }

  /** Takes the lease and starts the heartbeat; resolves once the lease row is written. */
  start(): Promise<void> {
    this.starting ??= this.renew().then(
      () => {
        this.live = true;
        this.schedule();
      },
      (error) => {
        // Let the next request try again rather than fail every request after one bad start.
        this.starting = null;
        throw error;
      },
    );
    return this.starting;
  }

  /** One heartbeat: renew the lease, then release the holds of processes whose lease ran out. */
  async beat(): Promise<{ released: number }> {
    await this.renew();
    const now = this.deps.clock.now();
    const released = await releaseHoldsOfDeadProcesses(this.deps.storage, now, this.deps.metrics);
    await this.leases.purgeExpired(now);
    return { released };
  }

  /** Stops the heartbeat and gives the lease up: holds still open become releasable at once. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.beating;
    if (this.live) await this.leases.end(this.processId).catch(() => undefined);
    this.live = false;
  }

  private renew(): Promise<void> {
    const now = this.deps.clock.now();
    return this.leases.renew(this.processId, now, now + this.options.leaseMs);
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.beating = this.beat()
        .then(
          () => undefined,
          (error) => this.options.onError?.('chat hold lease heartbeat failed', error),
        )
        .then(() => this.schedule());
    }, this.intervalMs);
    // The lease must not keep a finished process alive.
    this.timer.unref?.();
  }
}
