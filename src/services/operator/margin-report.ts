// The margin report: per UTC day, model and provider, requests, revenue, provider cost and margin.
// The cost is shown only when every request of the row has a known provider cost (a route without
// cost_rub records null): a partly known cost would read as a margin the operator does not have.
import { microToRub } from '../../domain/billing/money.js';
import { AppError } from '../../domain/errors.js';
import type { MarginCell } from '../../storage/repositories/analytics.js';
import type { Storage } from '../../storage/storage.js';
import type { Clock } from '../clock.js';

const DAY_MS = 86_400_000;
/** A longer range is refused: the answer stays small and quick. */
export const MAX_REPORT_DAYS = 366;

export interface MarginRow {
  day: string;
  model: string;
  provider: string | null;
  requests: number;
  revenue_rub: number;
  cost_rub: number | null;
  margin_rub: number | null;
}

/** Micro-rubles, for the console (which formats them itself); the API's rubles come from these. */
export interface MarginRowMicro {
  day: string;
  model: string;
  provider: string | null;
  requests: number;
  revenue: number;
  cost: number | null;
  margin: number | null;
}

function parseDay(value: unknown, param: string): number {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value))
    throw new AppError('invalid_parameter', `${param} must be a UTC date such as 2026-11-01`, param);
  const ms = Date.parse(`${value}T00:00:00Z`);
  if (!Number.isFinite(ms) || new Date(ms).toISOString().slice(0, 10) !== value)
    throw new AppError('invalid_parameter', `${param} is not a valid date`, param);
  return ms / DAY_MS;
}

const dayText = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

export function presentMicro(cell: MarginCell): MarginRowMicro {
  const cost = cell.costed === cell.requests && cell.requests > 0 ? cell.cost : null;
  return {
    day: dayText(cell.day),
    model: cell.model_id,
    provider: cell.provider === '' ? null : cell.provider,
    requests: cell.requests,
    revenue: cell.revenue,
    cost,
    margin: cost === null ? null : cell.revenue - cost,
  };
}

export function presentRub(row: MarginRowMicro): MarginRow {
  return {
    day: row.day,
    model: row.model,
    provider: row.provider,
    requests: row.requests,
    revenue_rub: microToRub(row.revenue),
    cost_rub: row.cost === null ? null : microToRub(row.cost),
    margin_rub: row.margin === null ? null : microToRub(row.margin),
  };
}

export class MarginReportService {
  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
  ) {}

  /**
   * `from` and `to` are UTC dates, both included; `to` defaults to today and `from` to 29 days
   * before `to` (30 days).
   */
  async report(query: {
    from?: unknown;
    to?: unknown;
  }): Promise<{ from: string; to: string; rows: MarginRowMicro[] }> {
    const today = Math.floor(this.clock.now() / DAY_MS);
    const toDay = query.to === undefined || query.to === '' ? today : parseDay(query.to, 'to');
    const fromDay = query.from === undefined || query.from === '' ? toDay - 29 : parseDay(query.from, 'from');
    if (fromDay > toDay) throw new AppError('invalid_parameter', 'from must not be after to', 'from');
    if (toDay - fromDay + 1 > MAX_REPORT_DAYS)
      throw new AppError('invalid_parameter', `the range may span at most ${MAX_REPORT_DAYS} days`, 'from');
    const cells = await this.storage.margin.report(fromDay, toDay + 1, this.clock.now());
    return { from: dayText(fromDay), to: dayText(toDay), rows: cells.map(presentMicro) };
  }
}
