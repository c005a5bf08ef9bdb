// One step of a claimed task: submit (once: the job id is stored before any poll), reconcile an
// uncertain submit, or poll; then hand the task back to the queue until its next poll, re-queue it,
// or finalize it. Every write is a compare-and-set on the lease owner, so a worker that lost its
// lease changes nothing.
//
// The deadline (PROVIDER_TIMEOUT_MS) counts only the time the task was in a worker's hands or
// waiting for its scheduled poll (the claim banks it; see TasksRepository.claimDue). At the
// deadline a task with an upstream job is polled once more and completes if the job has finished;
// a job still running is cancelled upstream where the API allows it, then the task fails.

import { taskProviderCost } from '../domain/billing/provider-cost.js';
import { type FailureKind, failureMessage, movesToNextRoute } from '../domain/tasks/failures.js';
import type { TaskPricing } from '../domain/tasks/pricing.js';
import type { ObjectStore } from '../objects/object-store.js';
import { routeCostOf } from '../providers/config.js';
import { NotSentError } from '../providers/http/upstream-http.js';
import type {
  ProviderFailure,
  ProviderOutput,
  ProviderTask,
  ProviderUsage,
  SubmitOutcome,
  TaskProvider,
} from '../providers/task-provider.js';
import type { ResolvedRoute, TaskProviderRegistry } from '../providers/task-registry.js';
import type { Clock } from '../services/clock.js';
import type { Metrics } from '../services/metrics.js';
import type { ProviderHooks } from '../services/provider-hooks.js';
import type { ProviderPool } from '../services/provider-pool.js';
import type { TaskEvents } from '../services/tasks/events.js';
import { type FinalOutcome, finalizeTask } from '../services/tasks/finalize.js';
import type { TaskRow } from '../storage/repositories/tasks.js';
import type { Storage } from '../storage/storage.js';
import { type CopyVerdict, copyOutputs, type TaskResultSettings, taskResult } from './task-result.js';

export interface StepSettings extends TaskResultSettings {
  workerId: string;
  /** How long a claim (or a renewal) keeps the task this worker's. */
  leaseMs: number;
  providerTimeoutMs: number;
  requeueDelayMs: number;
  /** The first poll comes this soon after a submit; later ones back off up to MAX_POLL_DELAY_MS. */
  minPollDelayMs: number;
}

export interface StepDeps {
  storage: Storage;
  clock: Clock;
  events: TaskEvents;
  providers: TaskProviderRegistry;
  objects: ObjectStore;
  log: TaskLog;
  metrics?: Metrics;
  /** Gives each submit our callback URL; without it no callback URL is sent upstream. */
  hooks?: ProviderHooks;
  /** Route order by weight, account health and max_concurrency; without it: plain ordered fallback. */
  pool?: ProviderPool;
}

export interface TaskLog {
  info(message: string, fields: Record<string, unknown>): void;
  error(message: string, error: unknown, fields?: Record<string, unknown>): void;
}

const MAX_POLL_DELAY_MS = 5_000;

/** What the runner keeps between steps in tasks.provider_state. */
interface RunnerState {
  upstream_model?: string;
  polls?: number;
  failures?: number;
  /** Set when a submit's answer was lost: the task is reconciled, never submitted again. */
  uncertain_since?: number;
  /** Result downloads refused as expired: the job is polled once more for a fresh URL. */
  expired_downloads?: number;
  /**
   * Each earlier stretch in processing that ended back in the queue ("Concurrency limit exceeded"):
   * [claimed at, re-queued at]. Kept across the task's life so its every state change has a time.
   */
  requeued?: [number, number][];
}

/** The re-queue history of `state`, to carry into a state written anew. */
const requeueHistory = (state: RunnerState) => (state.requeued ? { requeued: state.requeued } : {});

function parseState(text: string | null): RunnerState {
  if (!text) return {};
  try {
    return JSON.parse(text) as RunnerState;
  } catch {
    return {};
  }
}

export function pollDelay(polls: number, minDelayMs: number, retryAfterMs?: number): number {
  const backoff = Math.min(minDelayMs * 2 ** Math.min(polls, 20), MAX_POLL_DELAY_MS);
  const delay =
    retryAfterMs === undefined ? backoff : Math.min(Math.max(retryAfterMs, minDelayMs), 3_600_000);
  return Math.max(1, Math.round(delay));
}

function providerTask(task: TaskRow, upstreamModel: string): ProviderTask {
  const {
    model_name: _model,
    webhook_url: _webhook,
    ...params
  } = JSON.parse(task.params) as Record<string, unknown>;
  return {
    id: task.id,
    modelId: task.model_id,
    upstreamModel,
    kind: task.kind === 'image' ? 'image' : 'video',
    params,
    requeues: task.requeues,
  };
}

/** What the routes of one submit said, when none took the task. */
interface Tried {
  /** A route was full (busy, max_concurrency) or cooling down: it can take the task later. */
  waitable: boolean;
  /** A route could not be reached: nothing was sent. */
  notSent: boolean;
  /** Routes skipped because their account is down (tried last). */
  down: ResolvedRoute[];
  /** The last refusal that moved on to the next route. */
  refusal?: { failure: ProviderFailure; route: ResolvedRoute };
}

/** A step's view of one claimed task. */
interface Claimed {
  task: TaskRow;
  state: RunnerState;
  /** Epoch ms at which the provider timeout runs out. */
  deadline: number;
  timedOut: boolean;
  /** The latest lease expiry this step wrote or was given (heartbeats may have moved it later). */
  leaseUntil: number;
}

export class TaskStep {
  constructor(
    private readonly deps: StepDeps,
    private readonly settings: StepSettings,
  ) {}

  async run(task: TaskRow): Promise<void> {
    const now = this.deps.clock.now();
    // A claim that reaches its step after its lease ran out (an event loop stalled under load) may
    // already be another worker's: doing nothing is safe, submitting could start a second job.
    if (task.lease_expires_at !== null && task.lease_expires_at <= now) {
      this.deps.log.info('lease ran out before the step started; leaving the task', { task_id: task.id });
      return;
    }
    const elapsed = task.processing_ms + (now - (task.processing_started_at ?? now));
    const claimed: Claimed = {
      task,
      state: parseState(task.provider_state),
      deadline: now + Math.max(0, this.settings.providerTimeoutMs - elapsed),
      timedOut: elapsed >= this.settings.providerTimeoutMs,
      leaseUntil: task.lease_expires_at ?? now + this.settings.leaseMs,
    };
    try {
      if (task.provider_job_id !== null) return await this.poll(claimed);
      if (claimed.timedOut) return await this.fail(claimed, { kind: 'timeout' });
      if (claimed.state.uncertain_since !== undefined) return await this.reconcile(claimed);
      return await this.submit(claimed);
    } catch (error) {
      // A network error or an unexpected answer while polling: try again later, within the deadline.
      // (A submit never lands here with a job possibly started: see submitTo.)
      this.deps.log.error('task step failed; retrying', error, { task_id: task.id });
      if (claimed.timedOut) return this.fail(claimed, { kind: 'timeout', detail: String(error) });
      await this.retryLater(claimed, claimed.state);
    }
  }

  // ---- submit ------------------------------------------------------------------------------

  /** The routes of the task's model: PROVIDERS_FILE's list, else the route stored with the task. */
  private routes({ task, state }: Claimed): ResolvedRoute[] {
    return this.deps.providers.routesOr(task.model_id, {
      providerName: task.provider,
      upstreamModel: state.upstream_model ?? task.model_id,
    });
  }

  private async submit(claimed: Claimed): Promise<void> {
    const pool = this.deps.pool;
    const listed = this.routes(claimed);
    const routes = pool ? pool.order(listed) : listed;
    // What the routes that could not take the task said, to decide once all were tried: a route
    // that is full or cooling down can take it later (re-queue), an unreachable one soon (retry),
    // and a refusal that moves on fails the task only when no route is left to wait for.
    const tried: Tried = { waitable: false, notSent: false, down: [] };
    // Every submit tries the routes from the first: a route that was busy a moment ago may not be now.
    for (const route of routes) {
      const done = await this.tryRoute(claimed, route, tried, false);
      if (done) return done();
    }
    if (tried.waitable) return this.requeue(claimed);
    // Accounts marked down are the last resort: with no other account to wait for, the upstream's
    // own answer (and its exact message) is better than refusing without asking.
    for (const route of tried.down) {
      const done = await this.tryRoute(claimed, route, tried, true);
      if (done) return done();
    }
    if (tried.waitable) return this.requeue(claimed);
    if (tried.notSent) return this.retryLater(claimed, claimed.state);
    if (tried.refusal) return this.fail(claimed, tried.refusal.failure, tried.refusal.route.providerName);
    return this.fail(claimed, { kind: 'upstream', detail: 'no route could take the task' });
  }

  /**
   * One route: asks the pool, submits, records. Returns how the step ends when this route decided
   * it, or undefined to go on with the next route (what it said is noted in `tried`).
   */
  private async tryRoute(
    claimed: Claimed,
    route: ResolvedRoute,
    tried: Tried,
    lastResort: boolean,
  ): Promise<(() => Promise<void>) | undefined> {
    const pool = this.deps.pool;
    if (pool) {
      const admitted = await pool.admit(route.providerName, claimed.task.id, { ignoreDown: lastResort });
      if (admitted.status !== 'admitted') {
        this.deps.log.info('route skipped', {
          task_id: claimed.task.id,
          provider: route.providerName,
          reason: admitted.status === 'busy' ? 'max_concurrency' : admitted.state,
        });
        if (admitted.status === 'busy' || admitted.state === 'cooling') tried.waitable = true;
        else if (!lastResort) tried.down.push(route);
        return undefined;
      }
    }
    if (!(await this.leaseStillOurs(claimed))) {
      // Another worker may have the task now and submit it itself: sending ours too would start a
      // second job. Its place at the account (keyed by the task) stays for whoever runs it.
      this.deps.log.info('lease lost before the submit; leaving the task', {
        task_id: claimed.task.id,
        provider: route.providerName,
      });
      return () => Promise.resolve();
    }
    const outcome = await this.submitTo(claimed, route);
    await this.recordOutcome(claimed, route, outcome);
    const { task } = claimed;
    switch (outcome.status) {
      case 'not_sent':
        tried.notSent = true;
        return undefined;
      case 'busy':
        tried.waitable = true;
        return undefined;
      case 'failed':
        if (movesToNextRoute(outcome.failure.kind)) {
          tried.refusal = { failure: outcome.failure, route };
          return undefined;
        }
        return () => this.fail(claimed, outcome.failure, route.providerName);
      case 'uncertain':
        return () => this.markUncertain(claimed, route, outcome.detail);
      case 'succeeded':
        return () => {
          this.logSubmitted(task, route.providerName, outcome.jobId, false);
          // Nothing to resume: the result and the job id are stored together when the task finishes.
          return this.complete(claimed, route, outcome.outputs, outcome.usage, { syncJobId: outcome.jobId });
        };
      case 'submitted':
        return () => this.recordJob(claimed, route, outcome.jobId, outcome.retryAfterMs);
    }
  }

  /**
   * The fence before a submit, which cannot be taken back. The pool's admission (database writes,
   * a lock per account) can take longer than a lease under load while renewals wait for a
   * connection; another worker may then have claimed the task and be submitting it. A lease known
   * to run at least half a lease more is still ours (nobody claims before it expires); otherwise it
   * is renewed by compare-and-set on the owner, and a renewal that came back too late to leave half
   * a lease counts as lost too.
   */
  private async leaseStillOurs(claimed: Claimed): Promise<boolean> {
    const margin = this.settings.leaseMs / 2;
    if (claimed.leaseUntil - this.deps.clock.now() >= margin) return true;
    const until = this.deps.clock.now() + this.settings.leaseMs;
    if (!(await this.deps.storage.tasks.renewLease(claimed.task.id, this.settings.workerId, until)))
      return false;
    claimed.leaseUntil = until;
    return until - this.deps.clock.now() >= margin;
  }

  /** Tells the pool what the account answered; a failure to record never fails the task. */
  private async recordOutcome(
    { task }: Claimed,
    route: ResolvedRoute,
    outcome: SubmitOutcome | { status: 'not_sent'; detail: string },
  ): Promise<void> {
    if (!this.deps.pool) return;
    try {
      await this.deps.pool.recordSubmit(route.providerName, task.id, outcome);
    } catch (error) {
      this.deps.log.error('provider health not recorded', error, {
        task_id: task.id,
        provider: route.providerName,
      });
    }
  }

  /**
   * One submit to one route. A connection that was never made is reported as not sent (safe to send
   * elsewhere or again); any other exception may have started a job, so it counts as uncertain.
   */
  private async submitTo(
    { task }: Claimed,
    route: ResolvedRoute,
  ): Promise<SubmitOutcome | { status: 'not_sent'; detail: string }> {
    let outcome: SubmitOutcome | { status: 'not_sent'; detail: string };
    let provider: TaskProvider;
    try {
      provider = this.deps.providers.providerByName(route.providerName);
    } catch (error) {
      outcome = { status: 'failed', failure: { kind: 'upstream', detail: (error as Error).message } };
      this.countSubmit(task, route.providerName, outcome);
      return outcome;
    }
    const job = providerTask(task, route.upstreamModel);
    try {
      const callbackUrl = await this.deps.hooks?.callbackUrl(route.providerName, task.id);
      const startedAt = performance.now();
      try {
        outcome = await provider.submit(job, { callbackUrl });
      } finally {
        this.deps.metrics?.providerCall(route.providerName, 'submit', performance.now() - startedAt);
      }
    } catch (error) {
      outcome =
        error instanceof NotSentError
          ? { status: 'not_sent', detail: error.message }
          : { status: 'uncertain', detail: String((error as Error)?.stack ?? error) };
    }
    if (outcome.status === 'not_sent' || outcome.status === 'busy' || outcome.status === 'failed')
      this.deps.log.info('submit refused', {
        task_id: task.id,
        provider: route.providerName,
        outcome: outcome.status,
        ...(outcome.status === 'failed'
          ? { kind: outcome.failure.kind, detail: outcome.failure.detail }
          : {}),
        ...(outcome.status === 'not_sent' ? { detail: outcome.detail } : {}),
      });
    this.countSubmit(task, route.providerName, outcome);
    return outcome;
  }

  private countSubmit(
    task: TaskRow,
    provider: string,
    outcome: { status: string; failure?: ProviderFailure },
  ) {
    const label = outcome.status === 'failed' ? `failed:${outcome.failure?.kind}` : outcome.status;
    this.deps.metrics?.providerSubmits.inc({ provider, model: task.model_id, outcome: label });
  }

  private logSubmitted(task: TaskRow, provider: string, jobId: string, stored: boolean): void {
    // Logged for every accepted submit, stored or not: the crash test counts these lines.
    this.deps.log.info('task submitted', { task_id: task.id, job_id: jobId, provider, stored });
  }

  /** Stores the job id (the recovery point: from now on the task is only polled). */
  private async recordJob(
    claimed: Claimed,
    route: ResolvedRoute,
    jobId: string,
    retryAfterMs?: number,
  ): Promise<void> {
    const { task } = claimed;
    const now = this.deps.clock.now();
    const nextState: RunnerState = {
      upstream_model: route.upstreamModel,
      polls: 0,
      ...requeueHistory(claimed.state),
    };
    // A job the provider says is ready at once (the simulator at 0 ms latency) is polled in this
    // same step: the job id is stored first but the lease is kept, which saves a hand-back to the
    // queue, a claim and a second step per task.
    const pollNow = retryAfterMs !== undefined && retryAfterMs <= 0;
    const stored = await this.deps.storage.tasks.recordSubmission(task.id, this.settings.workerId, {
      jobId,
      provider: route.providerName,
      providerState: JSON.stringify(nextState),
      nextPollAt: Math.min(now + pollDelay(0, this.settings.minPollDelayMs, retryAfterMs), claimed.deadline),
      now,
      keepLease: pollNow,
    });
    this.logSubmitted(task, route.providerName, jobId, stored);
    if (pollNow && stored) {
      // From here on the step works on the recorded job: a failure of this poll is retried with it.
      claimed.task = { ...task, provider: route.providerName, provider_job_id: jobId };
      claimed.state = nextState;
      await this.poll(claimed);
    }
  }

  /** The answer to a submit was lost: keep the hold, never submit again, find the job instead. */
  private async markUncertain(claimed: Claimed, route: ResolvedRoute, detail: string): Promise<void> {
    const { task } = claimed;
    this.deps.log.error('submit uncertain: the job may exist upstream; reconciling', detail, {
      task_id: task.id,
      provider: route.providerName,
    });
    const now = this.deps.clock.now();
    const canLookUp = this.deps.providers.providerByName(route.providerName).reconcile !== undefined;
    await this.deps.storage.tasks.releaseUncertain(task.id, this.settings.workerId, {
      // Without a lookup only the provider's callback can name the job: wait for it (it moves
      // run_at forward) until the deadline.
      runAt: canLookUp
        ? Math.min(now + pollDelay(0, this.settings.minPollDelayMs), claimed.deadline)
        : claimed.deadline,
      providerState: JSON.stringify({
        upstream_model: route.upstreamModel,
        uncertain_since: now,
        polls: 0,
        ...requeueHistory(claimed.state),
      }),
      provider: route.providerName,
      now,
    });
  }

  private async reconcile(claimed: Claimed): Promise<void> {
    const { task, state } = claimed;
    const provider = this.deps.providers.providerByName(task.provider);
    const now = this.deps.clock.now();
    const upstreamModel = state.upstream_model ?? task.model_id;
    const outcome = provider.reconcile
      ? await provider.reconcile(providerTask(task, upstreamModel))
      : ({ status: 'unknown' } as const);
    if (outcome.status === 'found') {
      this.deps.log.info('uncertain submit reconciled', { task_id: task.id, job_id: outcome.jobId });
      return this.recordJob(claimed, { providerName: task.provider, upstreamModel }, outcome.jobId, 0);
    }
    // Not found (yet) or unknown: a job created by a lost request can show up late, and waiting
    // costs the client only time. At the deadline the task fails and the hold is returned.
    const polls = (state.polls ?? 0) + 1;
    await this.deps.storage.tasks.releaseUncertain(task.id, this.settings.workerId, {
      runAt: provider.reconcile
        ? Math.min(now + pollDelay(polls, this.settings.minPollDelayMs), claimed.deadline)
        : claimed.deadline,
      providerState: JSON.stringify({ ...state, polls }),
      now,
    });
  }

  // ---- poll --------------------------------------------------------------------------------

  private async poll(claimed: Claimed): Promise<void> {
    const { task, state } = claimed;
    let provider: TaskProvider;
    try {
      provider = this.deps.providers.providerByName(task.provider);
    } catch (error) {
      // The job's provider left PROVIDERS_FILE: nobody can fetch its result any more.
      return this.fail(claimed, { kind: 'upstream', detail: (error as Error).message });
    }
    const job = providerTask(task, state.upstream_model ?? task.model_id);
    const jobId = task.provider_job_id as string;
    const outcome = await this.timedPoll(provider, task, jobId, job);
    switch (outcome.status) {
      case 'succeeded':
        return this.complete(
          claimed,
          { providerName: task.provider, upstreamModel: job.upstreamModel },
          outcome.outputs,
          outcome.usage,
        );
      case 'failed':
        if (this.deps.pool)
          await this.deps.pool
            .recordPollRefusal(task.provider, outcome.failure)
            .catch((error) =>
              this.deps.log.error('provider health not recorded', error, { task_id: task.id }),
            );
        return this.fail(claimed, outcome.failure);
      case 'running':
      case 'busy':
        if (claimed.timedOut) return this.cancelAndTimeOut(claimed, provider, job, jobId);
        if (outcome.status === 'busy') return this.requeue(claimed);
        return this.waitForNextPoll(claimed, outcome.retryAfterMs);
    }
  }

  /** One poll, counted by its answer (error: it threw) and timed. */
  private async timedPoll(provider: TaskProvider, task: TaskRow, jobId: string, job: ProviderTask) {
    const startedAt = performance.now();
    let label = 'error';
    try {
      const outcome = await provider.poll(jobId, job);
      label = outcome.status === 'failed' ? `failed:${outcome.failure.kind}` : outcome.status;
      return outcome;
    } finally {
      const metrics = this.deps.metrics;
      if (metrics) {
        metrics.providerCall(task.provider, 'poll', performance.now() - startedAt);
        metrics.providerPolls.labels(task.provider, task.model_id, label).inc();
      }
    }
  }

  private async waitForNextPoll(claimed: Claimed, retryAfterMs?: number): Promise<void> {
    const { task, state } = claimed;
    const polls = (state.polls ?? 0) + 1;
    const now = this.deps.clock.now();
    await this.deps.storage.tasks.release(task.id, this.settings.workerId, {
      runAt: Math.min(now + pollDelay(polls, this.settings.minPollDelayMs, retryAfterMs), claimed.deadline),
      providerState: JSON.stringify({ ...state, polls, failures: 0 }),
      now,
    });
  }

  /** The job is still running at the deadline: stop it upstream (best effort), then fail. */
  private async cancelAndTimeOut(
    claimed: Claimed,
    provider: TaskProvider,
    job: ProviderTask,
    jobId: string,
  ): Promise<void> {
    if (provider.cancel) {
      try {
        await provider.cancel(jobId, job);
        this.deps.log.info('upstream job cancelled at the deadline', { task_id: job.id, job_id: jobId });
      } catch (error) {
        this.deps.log.error('upstream cancel failed', error, { task_id: job.id, job_id: jobId });
      }
    }
    return this.fail(claimed, { kind: 'timeout' });
  }

  // ---- results and endings -------------------------------------------------------------------

  private async complete(
    claimed: Claimed,
    route: ResolvedRoute,
    outputs: ProviderOutput[],
    usage: ProviderUsage | undefined,
    sync?: { syncJobId: string },
  ): Promise<void> {
    const { task, state } = claimed;
    const verdict: CopyVerdict = await copyOutputs(
      { objects: this.deps.objects },
      outputs,
      this.settings.maxResultBytes,
    );
    if (verdict.status === 'failed') return this.fail(claimed, verdict.failure, route.providerName);
    if (verdict.status === 'expired') {
      const expired = (state.expired_downloads ?? 0) + 1;
      // A result from the submit has no job to poll again; a polled one gets one more poll for a
      // fresh URL, then the task fails and the hold is returned.
      if (sync || expired > 1)
        return this.fail(claimed, { kind: 'upstream', detail: verdict.detail }, route.providerName);
      const now = this.deps.clock.now();
      await this.deps.storage.tasks.release(task.id, this.settings.workerId, {
        runAt: now,
        providerState: JSON.stringify({ ...state, expired_downloads: expired }),
        now,
      });
      return;
    }
    if (verdict.status === 'retry') {
      if (sync) return this.fail(claimed, { kind: 'upstream', detail: verdict.detail }, route.providerName);
      throw verdict.error;
    }
    const outcome = taskResult(task, verdict.stored, usage, this.settings);
    const pricing = JSON.parse(task.pricing ?? '{"unit":"shot"}') as TaskPricing;
    const providerCost = taskProviderCost(
      routeCostOf(this.deps.providers.config, task.model_id, route.providerName),
      {
        unit: pricing.unit,
        completed: true,
        seconds: typeof outcome.result.duration === 'number' ? outcome.result.duration : null,
        tokens: usage?.tokens ?? pricing.max_tokens ?? null,
      },
    );
    await this.finish(claimed, {
      ...outcome,
      providerJobId: sync?.syncJobId,
      provider: route.providerName,
      providerCost,
    });
  }

  private async fail(claimed: Claimed, failure: ProviderFailure, provider?: string): Promise<void> {
    if (failure.detail)
      this.deps.log.info('provider failure', {
        task_id: claimed.task.id,
        provider: provider ?? claimed.task.provider,
        kind: failure.kind,
        detail: failure.detail,
      });
    // A failed task delivered nothing: it cost 0 on a route with a cost, unknown on one without.
    const routeCost = routeCostOf(
      this.deps.providers.config,
      claimed.task.model_id,
      provider ?? claimed.task.provider,
    );
    await this.finish(
      claimed,
      { status: 'failed', error: failureMessage(failure), provider, providerCost: routeCost ? 0 : null },
      failure.kind,
    );
  }

  /** Tries the step again after a transient error, within the deadline. */
  private async retryLater(claimed: Claimed, state: RunnerState): Promise<void> {
    const failures = (state.failures ?? 0) + 1;
    const now = this.deps.clock.now();
    await this.deps.storage.tasks.release(claimed.task.id, this.settings.workerId, {
      runAt: Math.min(now + pollDelay(failures, this.settings.minPollDelayMs * 4), claimed.deadline),
      providerState: JSON.stringify({ ...state, failures }),
      now,
    });
  }

  private async requeue({ task, state }: Claimed): Promise<void> {
    await this.deps.pool?.release(task.id);
    const now = this.deps.clock.now();
    await this.deps.storage.tasks.requeue(task.id, this.settings.workerId, {
      runAt: now + this.settings.requeueDelayMs,
      now,
      // A re-queued task starts again from the model's first route.
      providerState: JSON.stringify({
        upstream_model: state.upstream_model,
        requeued: [...(state.requeued ?? []), [Number(task.processing_started_at ?? now), now]],
      }),
    });
    this.deps.log.info('task re-queued: concurrency limit exceeded', { task_id: task.id });
  }

  private async finish(
    { task }: Claimed,
    outcome: FinalOutcome & { provider?: string },
    failureKind?: FailureKind,
  ): Promise<void> {
    const now = this.deps.clock.now();
    const final = await finalizeTask(
      this.deps.storage,
      this.deps.events,
      task.id,
      this.settings.workerId,
      outcome,
      now,
    );
    if (!final) return;
    // Its place at the account is free from now on (a row left behind no longer counts anyway).
    await this.deps.pool?.release(task.id).catch(() => {});
    this.deps.metrics?.taskFinished(final);
    const labels = { provider: final.provider, model: task.model_id };
    this.deps.metrics?.providerOutcomes.inc({ ...labels, outcome: failureKind ?? 'completed' });
    if (outcome.status === 'completed')
      this.deps.metrics?.providerTimeToResult.observe(labels, (now - task.created_at) / 1000);
    this.deps.log.info(`task ${outcome.status}`, {
      task_id: task.id,
      error: outcome.status === 'failed' ? outcome.error : undefined,
    });
  }
}
