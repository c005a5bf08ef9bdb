// The panel's analytics: an account's spend, requests and tokens over a chosen range (the last day
// by hour; the last week, the last month or custom dates by UTC day), per key and per model, the
// top models by spend, and how its tasks ended. The database does the aggregation (SQL GROUP BY
// over covering indexes); this shapes the grouped cells into chart series and tables.
import { AppError } from '../../domain/errors.js';
import type { TaskOutcome, UsageCell } from '../../storage/repositories/analytics.js';
import type { Storage } from '../../storage/storage.js';
import type { Clock } from '../clock.js';
import { parseDate } from './ledger-history.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
export const MAX_CUSTOM_DAYS = 366;
/** Models with their own line in the spend chart; the rest add up as "other". */
export const CHART_MODELS = 6;

export type RangeName = 'day' | 'week' | 'month' | 'custom';

export interface AnalyticsQueryText {
  range?: string;
  from?: string;
  to?: string;
  key?: string;
}

export interface AnalyticsRangeSpec {
  name: RangeName;
  from: number;
  to: number;
  bucketMs: number;
  /** The custom dates as typed (YYYY-MM-DD), for the form. */
  fromText: string;
  toText: string;
  keyId?: number;
}

export function parseAnalyticsQuery(q: AnalyticsQueryText, now: number): AnalyticsRangeSpec {
  const name = (q.range || (q.from || q.to ? 'custom' : 'month')) as RangeName;
  let keyId: number | undefined;
  if (q.key) {
    keyId = /^\d{1,15}$/.test(q.key) ? Number(q.key) : Number.NaN;
    if (!Number.isSafeInteger(keyId) || keyId <= 0) throw new AppError('not_found', 'Key not found');
  }
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const base = { fromText: q.from ?? '', toText: q.to ?? '', keyId };
  switch (name) {
    case 'day': {
      const to = Math.floor(now / HOUR_MS) * HOUR_MS + HOUR_MS;
      return { ...base, name, from: to - 24 * HOUR_MS, to, bucketMs: HOUR_MS };
    }
    case 'week':
      return { ...base, name, from: today - 6 * DAY_MS, to: today + DAY_MS, bucketMs: DAY_MS };
    case 'month':
      return { ...base, name, from: today - 29 * DAY_MS, to: today + DAY_MS, bucketMs: DAY_MS };
    case 'custom': {
      const from = q.from ? parseDate(q.from, 'from') : today - 29 * DAY_MS;
      const to = (q.to ? parseDate(q.to, 'to') : today) + DAY_MS;
      if (from >= to) throw new AppError('invalid_parameter', 'from must not be after to', 'from');
      if ((to - from) / DAY_MS > MAX_CUSTOM_DAYS)
        throw new AppError('invalid_parameter', `A range may span at most ${MAX_CUSTOM_DAYS} days`, 'from');
      return { ...base, name, from, to, bucketMs: DAY_MS };
    }
    default:
      throw new AppError('invalid_parameter', 'range must be day, week, month or custom', 'range');
  }
}

export interface Totals {
  requests: number;
  spent: number;
  input_tokens: number;
  output_tokens: number;
}

export interface AnalyticsReport {
  range: AnalyticsRangeSpec;
  /** Bucket start times in epoch seconds (uPlot's x axis), one per hour or day of the range. */
  times: number[];
  /** Micro-rubles per bucket and model (top CHART_MODELS by spend, then "other"). */
  spendByModel: { label: string; values: number[] }[];
  /** Requests per bucket and key. */
  requestsByKey: { keyId: number; values: number[] }[];
  tokens: { input: number[]; output: number[] };
  byKey: (Totals & { keyId: number })[];
  /** Top models by spend, then by requests. */
  byModel: (Totals & { model: string })[];
  outcomes: TaskOutcome[];
  total: Totals;
}

const zero = (): Totals => ({ requests: 0, spent: 0, input_tokens: 0, output_tokens: 0 });

function add(into: Totals, cell: Totals): void {
  into.requests += cell.requests;
  into.spent += cell.spent;
  into.input_tokens += cell.input_tokens;
  into.output_tokens += cell.output_tokens;
}

/** Shapes the database's grouped cells into the charts' series and the tables' totals. */
export function shapeReport(
  range: AnalyticsRangeSpec,
  cells: UsageCell[],
  outcomes: TaskOutcome[],
): AnalyticsReport {
  const first = Math.floor(range.from / range.bucketMs);
  const count = Math.round((range.to - range.from) / range.bucketMs);
  const times = Array.from({ length: count }, (_, i) => ((first + i) * range.bucketMs) / 1000);
  const byKey = new Map<number, Totals>();
  const byModel = new Map<string, Totals>();
  const total = zero();
  for (const cell of cells) {
    add(total, cell);
    if (!byKey.has(cell.key_id)) byKey.set(cell.key_id, zero());
    add(byKey.get(cell.key_id)!, cell);
    if (!byModel.has(cell.model_id)) byModel.set(cell.model_id, zero());
    add(byModel.get(cell.model_id)!, cell);
  }
  const models = [...byModel.entries()]
    .map(([model, t]) => ({ model, ...t }))
    .sort((a, b) => b.spent - a.spent || b.requests - a.requests || a.model.localeCompare(b.model));
  const charted = new Map(models.slice(0, CHART_MODELS).map((m, i) => [m.model, i]));
  const otherIndex = models.length > CHART_MODELS ? CHART_MODELS : -1;
  const spendSeries = [...charted.keys(), ...(otherIndex >= 0 ? ['other models'] : [])].map((label) => ({
    label,
    values: new Array<number>(count).fill(0),
  }));
  const keys = [...byKey.keys()].sort((a, b) => a - b);
  const keyIndex = new Map(keys.map((k, i) => [k, i]));
  const requestsByKey = keys.map((keyId) => ({ keyId, values: new Array<number>(count).fill(0) }));
  const tokens = { input: new Array<number>(count).fill(0), output: new Array<number>(count).fill(0) };
  for (const cell of cells) {
    const i = cell.bucket - first;
    if (i < 0 || i >= count) continue;
    const series = charted.get(cell.model_id) ?? otherIndex;
    spendSeries[series].values[i] += cell.spent;
    requestsByKey[keyIndex.get(cell.key_id)!].values[i] += cell.requests;
    tokens.input[i] += cell.input_tokens;
    tokens.output[i] += cell.output_tokens;
  }
  return {
    range,
    times,
    spendByModel: spendSeries,
    requestsByKey,
    tokens,
    byKey: keys.map((keyId) => ({ keyId, ...byKey.get(keyId)! })),
    byModel: models,
    outcomes,
    total,
  };
}

export class PanelAnalyticsService {
  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
  ) {}

  async report(accountId: number, range: AnalyticsRangeSpec): Promise<AnalyticsReport> {
    const filter = { from: range.from, to: range.to, keyId: range.keyId };
    const now = this.clock.now();
    // One after the other: the first seals the range's finished days, the second reads them.
    const cells = await this.storage.analytics.usageCells(accountId, filter, range.bucketMs, now);
    const outcomes = await this.storage.analytics.taskOutcomes(accountId, filter, now);
    return shapeReport(range, cells, outcomes);
  }
}
