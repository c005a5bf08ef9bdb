// The task runner: claims due tasks with a lease, runs one step for each (submit or poll), and hands
// them back to the queue until their next poll time. Up to `concurrency` steps run at once. While a
// step runs, its lease is renewed; a worker that dies leaves leases that expire and are taken over.
// In the embedded mode the API nudges the runner when a task is created, so it starts at once.

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { AppContext } from '../context.js';
import type { Wakeups } from '../storage/pg-wakeups.js';
import type { TaskRow } from '../storage/repositories/tasks.js';
import { claimDueCountingTakeovers } from './claim-counting-takeovers.js';
import type { RunningWorker } from './loop.js';
import { type StepDeps, type StepSettings, TaskStep } from './task-step.js';

export interface RunnerSettings extends Omit<StepSettings, 'workerId'> {
  concurrency: number;
  pollIntervalMs: number;
  workerId?: string;
}

export function newWorkerId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

export class TaskRunner implements RunningWorker {
  readonly name = 'tasks';
  readonly workerId: string;
  private readonly step: TaskStep;
  private readonly inFlight = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = 0;
  private ticking: Promise<unknown> | undefined;
  private again = false;
  private stopped = true;
  private unsubscribe: (() => void)[] = [];

  constructor(
    private readonly deps: StepDeps,
    private readonly settings: RunnerSettings,
    /** PostgreSQL: tasks created by other processes wake the runner through NOTIFY. */
    private readonly wakeups?: Pick<Wakeups, 'on'>,
  ) {
    this.workerId = settings.workerId ?? newWorkerId();
    this.step = new TaskStep(deps, { ...settings, workerId: this.workerId });
  }

  start(): this {
    this.stopped = false;
    this.unsubscribe = [this.deps.events.onCreated(() => this.nudge())];
    if (this.wakeups) this.unsubscribe.push(this.wakeups.on('tasks', () => this.nudge()));
    this.schedule(0);
    return this;
  }

  /** Look for work now instead of at the next tick (a task was created, or a slot came free). */
  nudge(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    // A timer that fires as soon keeps its place: a stream of nudges (one per created task) must
    // not keep postponing the claim.
    if (this.timer && this.timerAt <= Date.now() + delayMs) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = Date.now() + delayMs;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.ticking = this.tick().finally(() => {
        this.ticking = undefined;
        const more = this.again;
        this.again = false;
        this.schedule(more ? 0 : this.settings.pollIntervalMs);
      });
    }, delayMs);
    this.timer.unref?.();
  }

  /** Claims as many due tasks as there are free slots and starts a step for each. */
  async tick(): Promise<number> {
    const free = this.settings.concurrency - this.inFlight.size;
    if (free <= 0) return 0;
    let claimed: TaskRow[];
    try {
      claimed = await claimDueCountingTakeovers(this.deps.storage, this.deps.metrics, {
        workerId: this.workerId,
        now: () => this.deps.clock.now(),
        leaseMs: this.settings.leaseMs,
        limit: free,
      });
    } catch (error) {
      this.deps.log.error('claiming tasks failed', error);
      return 0;
    }
    for (const task of claimed) {
      // Our own step still runs it: its lease ran out while renewals waited (a stalled event loop or
      // database pool) and this claim took it back. The claim renewed the lease; a second step
      // would submit the task again.
      if (this.inFlight.has(task.id)) {
        this.deps.log.info('claimed a task whose step is still running here; not starting another', {
          task_id: task.id,
        });
        continue;
      }
      this.launch(task);
    }
    return claimed.length;
  }

  private launch(task: TaskRow): void {
    const heartbeat = setInterval(
      () => {
        const until = this.deps.clock.now() + this.settings.leaseMs;
        this.deps.storage.tasks
          .renewLease(task.id, this.workerId, until)
          .catch((error) => this.deps.log.error('lease renewal failed', error, { task_id: task.id }));
      },
      Math.max(50, Math.floor(this.settings.leaseMs / 3)),
    );
    heartbeat.unref?.();
    const running = this.step
      .run(task)
      .catch((error) => this.deps.log.error('task step crashed', error, { task_id: task.id }))
      .finally(() => {
        clearInterval(heartbeat);
        this.inFlight.delete(task.id);
        // A slot came free: there may be more due work right now.
        this.nudge();
      });
    this.inFlight.set(task.id, running);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.ticking;
    await Promise.all(this.inFlight.values());
  }
}

/** The runner of this process, configured from the context. */
export function startTaskRunner(
  ctx: AppContext,
  logError: (msg: string, err?: unknown) => void,
  logInfo: (msg: string, fields: Record<string, unknown>) => void = () => {},
): TaskRunner {
  const { config } = ctx;
  return new TaskRunner(
    {
      storage: ctx.storage,
      clock: ctx.clock,
      events: ctx.taskEvents,
      providers: ctx.taskProviders,
      objects: ctx.objects,
      metrics: ctx.metrics,
      hooks: ctx.config.providerCallbacks ? ctx.providerHooks : undefined,
      pool: ctx.providerPool,
      log: {
        info: logInfo,
        error: (message, error, fields) =>
          logError(fields ? `${message} ${JSON.stringify(fields)}` : message, error),
      },
    },
    {
      concurrency: config.workerConcurrency,
      pollIntervalMs: config.workerPollIntervalMs,
      leaseMs: config.leaseMs,
      providerTimeoutMs: config.providerTimeoutMs,
      requeueDelayMs: config.requeueDelayMs,
      minPollDelayMs: Math.min(config.workerPollIntervalMs, 250),
      maxResultBytes: config.maxResultBytes,
      publicUrl: config.publicUrl,
    },
    ctx.wakeups,
  ).start();
}
