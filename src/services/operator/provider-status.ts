// The console's Providers page: each configured upstream and each route (PROVIDERS_FILE, with its
// cost), and what this process's metrics saw of them since it started: outcomes of media tasks and
// chat requests, the mean time to a result and the mean upstream call. Metrics are per process (a
// Prometheus scrape sums them across processes). The health state (up, cooling, down) of each
// PROVIDERS_FILE account comes from `health` (the provider pool's shared record, read once a page).
import type { ProvidersConfig } from '../../providers/config.js';
import type { Metrics } from '../metrics.js';

export interface ProviderRow {
  name: string;
  type: string;
  baseUrl: string;
  /** up | cooling | down; null for the built-in simulator, which has no account. */
  state: string | null;
  /** Outcome → count: completed, rejected, timeout… (tasks) and chat statuses. */
  outcomes: Record<string, number>;
  /** Mean seconds from task creation to result; null without completed tasks. */
  meanTimeToResultS: number | null;
  /** Mean seconds of one upstream call (submit or poll); null without calls. */
  meanCallS: number | null;
}

export interface RouteRow {
  model: string;
  /** Position in the list: 1 is tried first. */
  order: number;
  provider: string;
  upstreamModel: string;
  costMicro: number | null;
  costOutputMicro: number | null;
}

interface MetricJson {
  name: string;
  values: { value: number; labels: Record<string, string | number>; metricName?: string }[];
}

export class ProviderStatus {
  constructor(
    private readonly config: ProvidersConfig,
    private readonly metrics: Metrics,
    /** Each PROVIDERS_FILE account's state by name (ProviderPool.status()). */
    private readonly health: () => Promise<ReadonlyMap<string, string>> = async () => new Map(),
  ) {}

  routes(): RouteRow[] {
    const rows: RouteRow[] = [];
    for (const [model, routes] of [...this.config.routes.entries()].sort(([a], [b]) => a.localeCompare(b)))
      for (const [index, route] of routes.entries())
        rows.push({
          model,
          order: index + 1,
          provider: route.provider,
          upstreamModel: route.model,
          costMicro: route.costMicro ?? null,
          costOutputMicro: route.costOutputMicro ?? null,
        });
    return rows;
  }

  async providers(): Promise<ProviderRow[]> {
    const json = (await this.metrics.registry.getMetricsAsJSON()) as unknown as MetricJson[];
    const metric = (name: string) => json.find((m) => m.name === name)?.values ?? [];
    const names = new Set<string>(['simulator', ...this.config.providers.keys()]);
    const states = this.config.providers.size > 0 ? await this.health() : new Map<string, string>();
    const rows = new Map<string, ProviderRow>();
    for (const name of names) {
      const settings = this.config.providers.get(name);
      rows.set(name, {
        name,
        type: settings?.type ?? 'simulator',
        baseUrl: settings?.baseUrl ?? '(built in)',
        state: states.get(name) ?? null,
        outcomes: {},
        meanTimeToResultS: null,
        meanCallS: null,
      });
    }
    const row = (name: string) => {
      if (!rows.has(name))
        rows.set(name, {
          name,
          type: '?',
          baseUrl: '',
          state: null,
          outcomes: {},
          meanTimeToResultS: null,
          meanCallS: null,
        });
      return rows.get(name)!;
    };
    for (const v of metric('gengate_provider_outcomes_total')) {
      const r = row(String(v.labels.provider));
      r.outcomes[String(v.labels.outcome)] = (r.outcomes[String(v.labels.outcome)] ?? 0) + v.value;
    }
    for (const v of metric('gengate_chat_requests_total')) {
      const r = row(String(v.labels.provider));
      const key = `chat ${v.labels.status}`;
      r.outcomes[key] = (r.outcomes[key] ?? 0) + v.value;
    }
    const means = (name: string, set: (r: ProviderRow, mean: number) => void) => {
      const sums = new Map<string, { sum: number; count: number }>();
      for (const v of metric(name)) {
        const provider = String(v.labels.provider);
        const into = sums.get(provider) ?? { sum: 0, count: 0 };
        if (v.metricName?.endsWith('_sum')) into.sum += v.value;
        else if (v.metricName?.endsWith('_count')) into.count += v.value;
        sums.set(provider, into);
      }
      for (const [provider, { sum, count }] of sums) if (count > 0) set(row(provider), sum / count);
    };
    means('gengate_provider_time_to_result_seconds', (r, mean) => {
      r.meanTimeToResultS = mean;
    });
    means('gengate_provider_call_duration_seconds', (r, mean) => {
      r.meanCallS = mean;
    });
    return [...rows.values()];
  }
}
