// Prometheus metrics. Each AppContext owns one Registry (a process builds one context, so one
// registry per process); other services add their metrics to `ctx.metrics.registry`. Node's default
// metrics are collected once per process and shared by every registry, because each collection
// starts its own event-loop monitor and GC observer that are never stopped.
//
// Labels stay low-cardinality: route patterns (never raw URLs), catalog model ids, provider names
// from PROVIDERS_FILE, and fixed outcome words. Money is counted in integer micro-rubles.
// docs/metrics.md lists every series; deploy/grafana/gengate-dashboard.json charts them.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { TaskRow } from '../storage/repositories/tasks.js';
import { CounterFamily, HistogramFamily } from './metrics-series.js';

export type WebhookOutcome = 'delivered' | 'failed_attempt' | 'undelivered';

/** How a hold ended: the task's or chat request's final state, or swept after its process died. */
export type HoldOutcome = 'completed' | 'failed' | 'cancelled' | 'abandoned';

/** The work queue as a scrape sees it (see storage/queue-stats.ts). */
export interface QueueDepth {
  pending: number;
  processing: number;
  /** Processing tasks whose worker lease has run out: waiting to be taken over. */
  expiredLeases: number;
}

export interface MetricsOptions {
  /** Reads the queue depth; without it the queue gauges are not exposed. */
  queueDepth?: () => Promise<QueueDepth>;
  /** How long one queue reading serves scrapes (default 5 s): scrapes never load the database. */
  queueDepthCacheMs?: number;
  now?: () => number;
}

let processDefaults: Registry | undefined;

function processDefaultMetrics(): Registry {
  if (!processDefaults) {
    processDefaults = new Registry();
    collectDefaultMetrics({ register: processDefaults });
  }
  return processDefaults;
}

/** Seconds, for requests: 1 ms to 30 s. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Seconds, for generations: a second to an hour. */
const TASK_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600];
/** Seconds, for one upstream HTTP call or chat request: 10 ms to 5 min. */
const CALL_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

export class Metrics {
  readonly registry: Registry = Registry.merge([processDefaultMetrics()]);
  private readonly registers = [this.registry];

  // ---- HTTP (recorded by http/plugins/http-metrics.ts) ----------------------------------------

  readonly httpRequests = new CounterFamily({
    name: 'gengate_http_requests_total',
    help: 'HTTP requests answered, by route pattern (unmatched: no route), method and status code',
    labelNames: ['route', 'method', 'status'],
    registers: this.registers,
  });

  readonly httpDuration = new HistogramFamily({
    name: 'gengate_http_request_duration_seconds',
    help: 'Time from receiving a request to the end of its response (whole stream for SSE), by route pattern, method and status code',
    labelNames: ['route', 'method', 'status'],
    buckets: HTTP_BUCKETS,
    registers: this.registers,
  });

  // ---- tasks ------------------------------------------------------------------------------------

  readonly tasksCreated = new CounterFamily({
    name: 'gengate_tasks_created_total',
    help: 'Media tasks created (their hold taken), by model',
    labelNames: ['model'],
    registers: this.registers,
  });

  readonly tasksFinished = new CounterFamily({
    name: 'gengate_tasks_finished_total',
    help: 'Media tasks that reached a final state, by model and status (completed or failed)',
    labelNames: ['model', 'status'],
    registers: this.registers,
  });

  readonly taskTimeToResult = new HistogramFamily({
    name: 'gengate_task_time_to_result_seconds',
    help: 'Time from task creation to its final state, by model and status',
    labelNames: ['model', 'status'],
    buckets: TASK_BUCKETS,
    registers: this.registers,
  });

  /** Tasks this process claimed from a worker whose lease had expired. */
  readonly leaseTakeovers = new Counter({
    name: 'gengate_task_lease_takeovers_total',
    help: 'Tasks claimed by this process from another worker whose lease had expired (a crashed or stalled worker)',
    registers: this.registers,
  });

  /** Chat requests sent upstream while their hold was in flight, whose hold was then refused. */
  readonly chatEarlyCallsAborted = new Counter({
    name: 'gengate_chat_early_calls_aborted_total',
    help: 'Chat requests sent upstream alongside their hold (the key had ample balance), aborted because the hold was refused after all',
    registers: this.registers,
  });

  // ---- money (micro-rubles: 1 RUB = 1,000,000) --------------------------------------------------

  readonly moneyHeld = new CounterFamily({
    name: 'gengate_money_held_microrubles_total',
    help: 'Micro-rubles held on key balances when a task is created or a chat request starts, by model',
    labelNames: ['model'],
    registers: this.registers,
  });

  readonly moneyCaptured = new CounterFamily({
    name: 'gengate_money_captured_microrubles_total',
    help: 'Micro-rubles spent: captured from holds for completed tasks and delivered chat tokens, by model',
    labelNames: ['model'],
    registers: this.registers,
  });

  readonly moneyRefunded = new CounterFamily({
    name: 'gengate_money_refunded_microrubles_total',
    help: 'Micro-rubles of holds returned to the balance, by model and how the hold ended (completed: the part above the captured cost)',
    labelNames: ['model', 'outcome'],
    registers: this.registers,
  });

  // ---- chat -------------------------------------------------------------------------------------

  readonly chatRequests = new CounterFamily({
    name: 'gengate_chat_requests_total',
    help: 'Chat requests sent upstream, by model, provider and how they ended (completed, failed, cancelled)',
    labelNames: ['model', 'provider', 'status'],
    registers: this.registers,
  });

  readonly chatDuration = new HistogramFamily({
    name: 'gengate_chat_duration_seconds',
    help: 'Time from the hold to the settlement of a chat request (the whole stream), by model and status',
    labelNames: ['model', 'status'],
    buckets: CALL_BUCKETS,
    registers: this.registers,
  });

  readonly chatTokens = new CounterFamily({
    name: 'gengate_chat_tokens_total',
    help: 'Chat tokens billed, by model and direction (input: prompt, output: completion)',
    labelNames: ['model', 'direction'],
    registers: this.registers,
  });

  // ---- upstream providers (media tasks) -----------------------------------------------------------

  /** Every submit to an upstream, by its outcome (submitted, succeeded, busy, failed:<kind>, uncertain, not_sent). */
  readonly providerSubmits = new Counter({
    name: 'gengate_provider_submits_total',
    help: 'Submits of media tasks to upstream providers, by provider, model and outcome',
    labelNames: ['provider', 'model', 'outcome'] as const,
    registers: this.registers,
  });

  /** Every status poll of an upstream job, by its answer (running, busy, succeeded, failed:<kind>, error). */
  readonly providerPolls = new CounterFamily({
    name: 'gengate_provider_polls_total',
    help: 'Status polls of upstream jobs, by provider, model and outcome (error: no usable answer)',
    labelNames: ['provider', 'model', 'outcome'],
    registers: this.registers,
  });

  readonly providerCallDuration = new HistogramFamily({
    name: 'gengate_provider_call_duration_seconds',
    help: 'Duration of one submit or poll call to an upstream provider, by provider and call',
    labelNames: ['provider', 'call'],
    buckets: CALL_BUCKETS,
    registers: this.registers,
  });

  /** Every task that ended at a provider: completed, or the failure kind. */
  readonly providerOutcomes = new Counter({
    name: 'gengate_provider_outcomes_total',
    help: 'Final outcomes of media tasks by provider, model and outcome (completed or the failure kind)',
    labelNames: ['provider', 'model', 'outcome'] as const,
    registers: this.registers,
  });

  /** From the task's creation to its result, for completed tasks. */
  readonly providerTimeToResult = new Histogram({
    name: 'gengate_provider_time_to_result_seconds',
    help: 'Time from task creation to a completed result, by provider and model',
    labelNames: ['provider', 'model'] as const,
    buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1200],
    registers: this.registers,
  });

  // ---- webhooks ---------------------------------------------------------------------------------

  /** Every recorded attempt: delivered or failed_attempt; undelivered once a delivery runs out of attempts. */
  readonly webhookDeliveries = new Counter({
    name: 'gengate_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (undelivered: a delivery ran out of attempts)',
    labelNames: ['outcome'] as const,
    registers: this.registers,
  });

  constructor(options: MetricsOptions = {}) {
    if (options.queueDepth) this.exposeQueueDepth(options.queueDepth, options);
  }

  // ---- what the services record -----------------------------------------------------------------

  /** A task and its hold were committed. */
  taskCreated(task: Pick<TaskRow, 'model_id' | 'hold_amount'>): void {
    this.tasksCreated.labels(task.model_id).inc();
    this.moneyHeld.labels(task.model_id).inc(task.hold_amount);
  }

  /** A task's final transition (status, settlement) was committed; `row` is the final row. */
  taskFinished(
    row: Pick<TaskRow, 'model_id' | 'status' | 'hold_amount' | 'cost' | 'created_at' | 'finished_at'>,
  ): void {
    const status = row.status === 'completed' ? 'completed' : 'failed';
    const captured = status === 'completed' ? (row.cost ?? 0) : 0;
    this.tasksFinished.labels(row.model_id, status).inc();
    const finishedAt = row.finished_at ?? row.created_at;
    this.taskTimeToResult
      .labels(row.model_id, status)
      .observe(Math.max(0, finishedAt - row.created_at) / 1000);
    if (captured > 0) this.moneyCaptured.labels(row.model_id).inc(captured);
    const refunded = row.hold_amount - captured;
    if (refunded > 0) this.moneyRefunded.labels(row.model_id, status).inc(refunded);
  }

  /** A chat request's hold was committed. */
  chatHeld(model: string, amount: number): void {
    this.moneyHeld.labels(model).inc(amount);
  }

  /** A chat request's settlement was committed (capture the cost, release the rest of the hold). */
  chatSettled(settled: {
    model: string;
    provider: string;
    status: 'completed' | 'failed' | 'cancelled';
    inputTokens: number;
    outputTokens: number;
    cost: number;
    hold: number;
    durationMs: number;
  }): void {
    const { model, status } = settled;
    this.chatRequests.labels(model, settled.provider, status).inc();
    this.chatDuration.labels(model, status).observe(settled.durationMs / 1000);
    if (settled.inputTokens > 0) this.chatTokens.labels(model, 'input').inc(settled.inputTokens);
    if (settled.outputTokens > 0) this.chatTokens.labels(model, 'output').inc(settled.outputTokens);
    if (settled.cost > 0) this.moneyCaptured.labels(model).inc(settled.cost);
    const refunded = settled.hold - settled.cost;
    if (refunded > 0) this.moneyRefunded.labels(model, status).inc(refunded);
  }

  /** A hold whose process died was returned by the sweep. */
  holdAbandoned(model: string, amount: number): void {
    if (amount > 0) this.moneyRefunded.labels(model, 'abandoned').inc(amount);
  }

  /** One submit or poll call to an upstream, timed by the caller. */
  providerCall(provider: string, call: 'submit' | 'poll', durationMs: number): void {
    this.providerCallDuration.labels(provider, call).observe(durationMs / 1000);
  }

  // ---- the queue gauges -------------------------------------------------------------------------

  private exposeQueueDepth(read: () => Promise<QueueDepth>, options: MetricsOptions): void {
    const cacheMs = options.queueDepthCacheMs ?? 5_000;
    const now = options.now ?? Date.now;
    let readAt = Number.NEGATIVE_INFINITY;
    let reading: Promise<QueueDepth | undefined> | undefined;
    let last: QueueDepth | undefined;
    const current = async (): Promise<QueueDepth | undefined> => {
      if (now() - readAt < cacheMs) return last;
      // Concurrent scrapes share one query.
      reading ??= read()
        .then(
          (depth) => depth,
          // An unreachable database must not fail the whole scrape: the gauges go absent instead.
          () => undefined,
        )
        .then((depth) => {
          last = depth;
          readAt = now();
          reading = undefined;
          return depth;
        });
      return reading;
    };
    const depthGauge = new Gauge({
      name: 'gengate_task_queue_depth',
      help: 'Tasks not final, by status (pending: waiting for a worker; processing: at a provider). The same for every process: it is read from the database',
      labelNames: ['status'] as const,
      registers: this.registers,
      async collect() {
        const depth = await current();
        depthGauge.reset();
        if (!depth) return;
        depthGauge.set({ status: 'pending' }, depth.pending);
        depthGauge.set({ status: 'processing' }, depth.processing);
      },
    });
    const expiredGauge = new Gauge({
      name: 'gengate_task_leases_expired',
      help: 'Processing tasks whose worker lease has expired, waiting to be taken over (read from the database)',
      registers: this.registers,
      async collect() {
        const depth = await current();
        expiredGauge.reset();
        if (depth) expiredGauge.set(depth.expiredLeases);
      },
    });
  }

  // ---- provider accounts ------------------------------------------------------------------------

  /**
   * The state and jobs in flight of each PROVIDERS_FILE account, read from the database (the same
   * for every process) at most once per `cacheMs`; an unreadable database leaves the gauges absent.
   */
  exposeProviderAccounts(
    read: () => Promise<Array<{ name: string; state: string; in_flight: number }>>,
    cacheMs = 5_000,
    now: () => number = Date.now,
  ): void {
    let readAt = Number.NEGATIVE_INFINITY;
    let last: Array<{ name: string; state: string; in_flight: number }> | undefined;
    let reading: Promise<typeof last> | undefined;
    const current = async () => {
      if (now() - readAt < cacheMs) return last;
      reading ??= read()
        .then(
          (rows) => rows,
          () => undefined,
        )
        .then((rows) => {
          last = rows;
          readAt = now();
          reading = undefined;
          return rows;
        });
      return reading;
    };
    const stateGauge = new Gauge({
      name: 'gengate_provider_account_state',
      help: 'Health of each provider account: 1 for its current state (up, cooling: breaker open or probing, down: auth or billing refused), 0 for the others (read from the database)',
      labelNames: ['provider', 'state'] as const,
      registers: this.registers,
      async collect() {
        const rows = await current();
        stateGauge.reset();
        for (const row of rows ?? [])
          for (const state of ['up', 'cooling', 'down'])
            stateGauge.set({ provider: row.name, state }, row.state === state ? 1 : 0);
      },
    });
    const inFlightGauge = new Gauge({
      name: 'gengate_provider_in_flight',
      help: 'Jobs in flight at each provider account, across every worker process (read from the database)',
      labelNames: ['provider'] as const,
      registers: this.registers,
      async collect() {
        const rows = await current();
        inFlightGauge.reset();
        for (const row of rows ?? []) inFlightGauge.set({ provider: row.name }, row.in_flight);
      },
    });
  }

  /** The Prometheus text exposition. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
