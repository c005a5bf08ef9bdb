// The public status report: each component's health and the last hour's figures per model family,
// from our own data. Nothing in it names an account, a key, a task or a prompt. One report serves
// every request for STATUS_CACHE_MS (concurrent requests share one computation), so the public page
// costs the database a few indexed range scans per process every few seconds, whatever its traffic.
import type { CatalogModel, ModelKind } from '../domain/catalog/model.js';
import type {
  FinishedCounts,
  ProviderCounts,
  StatusRepository,
  StatusWindow,
} from '../storage/repositories/status.js';
import type { WorkerHeartbeatsRepository } from '../storage/repositories/worker-heartbeats.js';
import type { Clock } from './clock.js';
import { HEARTBEAT_STALE_MS } from './status-heartbeat.js';

export type Health = 'operational' | 'degraded' | 'down' | 'maintenance' | 'unknown';

export const STATUS_CACHE_MS = 5_000;
/** The figures' window. */
export const WINDOW_MS = 3_600_000;
/** A provider's health looks at its last 15 minutes: recent enough to show an outage soon. */
export const RECENT_MS = 900_000;
/** Fewer finished requests than this in RECENT_MS is too little to call a provider unwell. */
export const MIN_RECENT_SAMPLE = 5;
/** A task that could run but has waited this long means the workers are not keeping up. */
export const QUEUE_DEGRADED_MS = 60_000;
/** A check that takes longer than this counts as failed. */
export const CHECK_TIMEOUT_MS = 2_000;

export const FAMILIES: readonly ModelKind[] = ['video', 'image', 'text'];

export interface LastHour {
  succeeded: number;
  failed: number;
  /** succeeded / (succeeded + failed), or null when nothing finished. */
  success_rate: number | null;
}

export interface ComponentStatus {
  id: string;
  name: string;
  type: 'core' | 'provider';
  status: Health;
  /** Workers: live worker processes and how long the oldest runnable task has waited. */
  workers?: { live: number; queue_wait_seconds: number };
  /** Providers: their finished work over the window. */
  last_hour?: LastHour;
}

export interface FamilyFigures extends LastHour {
  family: ModelKind;
  /** Median time from request to result of the succeeded ones, in seconds; null when none. */
  median_seconds: number | null;
}

export interface StatusReport {
  status: Health;
  updated_at: string;
  window_seconds: number;
  components: ComponentStatus[];
  /** Empty when the database cannot be read. */
  families: FamilyFigures[];
}

export interface StatusDeps {
  clock: Clock;
  status: StatusRepository;
  heartbeats: WorkerHeartbeatsRepository;
  pingDatabase(): Promise<void>;
  /** Undefined when Redis is not configured. */
  pingRedis?: () => Promise<void>;
  maintenance(): Promise<boolean>;
  models(): Promise<CatalogModel[]>;
  /** The providers of PROVIDERS_FILE, in the file's order. */
  configuredProviders: string[];
  /** The provider that serves a model's chat requests and first task route. */
  providerOf(model: CatalogModel): string;
  /** Tasks older than this (ms) when they finish are left out of the figures. */
  providerTimeoutMs: number;
  cacheMs?: number;
}

function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function lastHour(succeeded: number, failed: number): LastHour {
  const finished = succeeded + failed;
  return { succeeded, failed, success_rate: finished === 0 ? null : round(succeeded / finished, 4) };
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** A provider's health from its recent work; a refused prompt does not count against it. */
export function providerHealth(counts: Pick<ProviderCounts, 'recentSucceeded' | 'recentFailed'>): Health {
  const finished = counts.recentSucceeded + counts.recentFailed;
  if (finished < MIN_RECENT_SAMPLE) return 'operational';
  const rate = counts.recentSucceeded / finished;
  return rate >= 0.9 ? 'operational' : rate >= 0.5 ? 'degraded' : 'down';
}

/** Workers: none alive is down; a queue they do not keep up with is degraded. */
export function workersHealth(live: number, queueWaitMs: number): Health {
  if (live === 0) return 'down';
  return queueWaitMs >= QUEUE_DEGRADED_MS ? 'degraded' : 'operational';
}

/** The page's headline: a core component down is an outage; anything else amiss is degraded. */
export function overallHealth(components: ComponentStatus[]): Health {
  if (components.some((c) => c.status === 'maintenance')) return 'maintenance';
  if (components.some((c) => c.type === 'core' && c.status === 'down')) return 'down';
  if (components.some((c) => c.status !== 'operational')) return 'degraded';
  return 'operational';
}

function addCounts(into: Map<string, ProviderCounts>, name: string, more: ProviderCounts): void {
  const have = into.get(name);
  into.set(
    name,
    have
      ? {
          succeeded: have.succeeded + more.succeeded,
          failed: have.failed + more.failed,
          recentSucceeded: have.recentSucceeded + more.recentSucceeded,
          recentFailed: have.recentFailed + more.recentFailed,
        }
      : more,
  );
}

export class StatusService {
  private cached: { at: number; report: StatusReport } | undefined;
  private inFlight: Promise<StatusReport> | undefined;

  constructor(private readonly deps: StatusDeps) {}

  /** The report, at most STATUS_CACHE_MS old. */
  async report(): Promise<StatusReport> {
    const now = this.deps.clock.now();
    if (this.cached && now - this.cached.at < (this.deps.cacheMs ?? STATUS_CACHE_MS))
      return this.cached.report;
    if (!this.inFlight) {
      this.inFlight = this.compute(now)
        .then((report) => {
          this.cached = { at: now, report };
          return report;
        })
        .finally(() => {
          this.inFlight = undefined;
        });
    }
    return this.inFlight;
  }

  private async compute(now: number): Promise<StatusReport> {
    const deps = this.deps;
    const check = async (ping: () => Promise<void>, what: string): Promise<Health> =>
      within(ping(), CHECK_TIMEOUT_MS, what).then(
        () => 'operational' as const,
        () => 'down' as const,
      );
    const [maintenance, database, redis] = await Promise.all([
      deps.maintenance().catch(() => false),
      check(deps.pingDatabase, 'the database'),
      deps.pingRedis ? check(deps.pingRedis, 'Redis') : Promise.resolve(undefined),
    ]);
    const core: ComponentStatus[] = [
      { id: 'api', name: 'API', type: 'core', status: maintenance ? 'maintenance' : 'operational' },
      { id: 'database', name: 'Database', type: 'core', status: database },
    ];
    if (redis) core.push({ id: 'redis', name: 'Redis', type: 'core', status: redis });

    const figures = database === 'operational' ? await this.figures(now).catch(() => undefined) : undefined;
    if (!figures) {
      // Without the database nothing else can be told: say so rather than guess.
      core.push({ id: 'workers', name: 'Workers', type: 'core', status: 'unknown' });
      const providers = deps.configuredProviders.map(
        (name): ComponentStatus => ({ id: `provider:${name}`, name, type: 'provider', status: 'unknown' }),
      );
      const components = [...core, ...providers];
      return this.assemble(now, components, []);
    }
    const queueWaitMs = figures.oldestRunnable === null ? 0 : Math.max(0, now - figures.oldestRunnable);
    core.push({
      id: 'workers',
      name: 'Workers',
      type: 'core',
      status: workersHealth(figures.liveWorkers, queueWaitMs),
      workers: { live: figures.liveWorkers, queue_wait_seconds: Math.floor(queueWaitMs / 1000) },
    });
    const providers = [...figures.providers].map(
      ([name, counts]): ComponentStatus => ({
        id: `provider:${name}`,
        name,
        type: 'provider',
        status: providerHealth(counts),
        last_hour: lastHour(counts.succeeded, counts.failed),
      }),
    );
    const families = FAMILIES.map((family): FamilyFigures => {
      const counts = figures.families.get(family) ?? { succeeded: 0, failed: 0, medianMs: null };
      return {
        family,
        ...lastHour(counts.succeeded, counts.failed),
        median_seconds: counts.medianMs === null ? null : round(counts.medianMs / 1000, 1),
      };
    });
    return this.assemble(now, [...core, ...providers], families);
  }

  private assemble(now: number, components: ComponentStatus[], families: FamilyFigures[]): StatusReport {
    return {
      status: overallHealth(components),
      updated_at: new Date(now).toISOString(),
      window_seconds: WINDOW_MS / 1000,
      components,
      families,
    };
  }

  private async figures(now: number) {
    const deps = this.deps;
    const window: StatusWindow = {
      since: now - WINDOW_MS,
      recentSince: now - RECENT_MS,
      // A task finishes at most the provider timeout after it starts; an hour more covers the queue.
      createdSince: now - WINDOW_MS - deps.providerTimeoutMs - WINDOW_MS,
    };
    const work = Promise.all([
      deps.status.taskFamilies(window),
      deps.status.chatFamily(window),
      deps.status.taskProviders(window),
      deps.status.chatModels(window),
      deps.status.oldestRunnableSince(now),
      deps.heartbeats.liveCount(now - HEARTBEAT_STALE_MS),
      deps.models(),
    ]);
    const [taskFamilies, chat, taskProviders, chatModels, oldestRunnable, liveWorkers, models] = await within(
      work,
      CHECK_TIMEOUT_MS * 2,
      'the status figures',
    );
    const families = new Map<string, FinishedCounts>(taskFamilies);
    families.set('text', chat);

    // Listed: every configured provider, then any other that serves an active model or did work.
    const providers = new Map<string, ProviderCounts>();
    const none: ProviderCounts = { succeeded: 0, failed: 0, recentSucceeded: 0, recentFailed: 0 };
    for (const name of deps.configuredProviders) providers.set(name, { ...none });
    const byId = new Map(models.map((model) => [model.id, model]));
    const serving = models.filter((model) => model.active).map((model) => deps.providerOf(model));
    for (const name of [...serving].sort()) if (!providers.has(name)) providers.set(name, { ...none });
    for (const [name, counts] of taskProviders) addCounts(providers, name, counts);
    for (const [modelId, counts] of chatModels) {
      const model = byId.get(modelId);
      if (model) addCounts(providers, deps.providerOf(model), counts);
    }
    return { families, providers, oldestRunnable, liveWorkers };
  }
}
