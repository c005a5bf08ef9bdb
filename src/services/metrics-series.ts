// Counters and histograms for the request path (every HTTP request, every chat request). prom-client's
// own observe/inc hash the label object into a string on every call; these keep each label
// combination as a series object found through nested Maps (or held by the caller), so recording is
// a lookup and a few additions. They register in a prom-client Registry like any metric: the
// exposition and getMetricsAsJSON() are prom-client's.
import type { Metric, MetricValue, Registry } from 'prom-client';

export class CounterSeries {
  value = 0;
  constructor(readonly labels: Readonly<Record<string, string>>) {}

  inc(amount = 1): void {
    this.value += amount;
  }

  reset(): void {
    this.value = 0;
  }
}

export class HistogramSeries {
  /** Per bucket, the observations that fell in it (not cumulative; summed at scrape time). */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    this.sum += value;
    this.count++;
    const { bounds } = this;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]) {
        this.counts[i]++;
        return;
      }
    }
    // Above the last bound: counted only in +Inf (= count).
  }

  reset(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
  }
}

interface FamilyConfig {
  name: string;
  help: string;
  labelNames: readonly string[];
  registers?: Registry[];
}

type Node<S> = Map<string, Node<S> | S>;

abstract class Family<S extends CounterSeries | HistogramSeries> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly aggregator = 'sum' as const;
  abstract readonly type: 'counter' | 'histogram';
  private readonly root: Node<S> = new Map();
  protected readonly all: S[] = [];

  constructor(config: FamilyConfig) {
    if (config.labelNames.length < 1 || config.labelNames.length > 3)
      throw new Error(`${config.name}: between 1 and 3 label names`);
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames;
    // prom-client's Registry accepts any object with a name, get() and reset().
    for (const registry of config.registers ?? []) registry.registerMetric(this as unknown as Metric);
  }

  protected abstract create(labels: Record<string, string>): S;

  /** The series of these label values (as many as labelNames), created on first use. */
  labels(a: string, b?: string, c?: string): S {
    const depth = this.labelNames.length;
    let node = this.root;
    for (let level = 0; level < depth; level++) {
      const value = level === 0 ? a : level === 1 ? (b as string) : (c as string);
      let next = node.get(value);
      if (next === undefined) {
        next = level === depth - 1 ? this.born(a, b, c) : new Map();
        node.set(value, next);
      }
      if (level === depth - 1) return next as S;
      node = next as Node<S>;
    }
    throw new Error('unreachable');
  }

  private born(a: string, b?: string, c?: string): S {
    const values = [a, b, c];
    const labels: Record<string, string> = {};
    this.labelNames.forEach((name, i) => {
      const value = values[i];
      if (typeof value !== 'string') throw new Error(`${this.name}: label ${name} is missing`);
      labels[name] = value;
    });
    const series = this.create(labels);
    this.all.push(series);
    return series;
  }

  protected abstract values(): MetricValue<string>[];

  async get() {
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values: this.values(),
    };
  }

  /** Zeroes every series in place: callers may hold series objects (see http-metrics.ts). */
  reset(): void {
    for (const series of this.all) series.reset();
  }
}

export class CounterFamily extends Family<CounterSeries> {
  readonly type = 'counter' as const;

  protected create(labels: Record<string, string>): CounterSeries {
    return new CounterSeries(labels);
  }

  protected values(): MetricValue<string>[] {
    return this.all.map((series) => ({ labels: { ...series.labels }, value: series.value }));
  }
}

export class HistogramFamily extends Family<HistogramSeries> {
  readonly type = 'histogram' as const;
  readonly buckets: readonly number[];

  constructor(config: FamilyConfig & { buckets: readonly number[] }) {
    super(config);
    const sorted = [...config.buckets].sort((x, y) => x - y);
    if (sorted.length === 0 || sorted.some((bound, i) => i > 0 && bound === sorted[i - 1]))
      throw new Error(`${config.name}: buckets must be distinct`);
    this.buckets = sorted;
  }

  protected create(labels: Record<string, string>): HistogramSeries {
    return new HistogramSeries(labels, this.buckets);
  }

  protected values(): Array<MetricValue<string> & { metricName: string }> {
    const out: Array<MetricValue<string> & { metricName: string }> = [];
    for (const series of this.all) {
      let cumulative = 0;
      this.buckets.forEach((bound, i) => {
        cumulative += series.counts[i];
        out.push({
          metricName: `${this.name}_bucket`,
          labels: { le: bound, ...series.labels },
          value: cumulative,
        });
      });
      out.push({
        metricName: `${this.name}_bucket`,
        labels: { le: '+Inf', ...series.labels },
        value: series.count,
      });
      out.push({ metricName: `${this.name}_sum`, labels: { ...series.labels }, value: series.sum });
      out.push({ metricName: `${this.name}_count`, labels: { ...series.labels }, value: series.count });
    }
    return out;
  }
}
