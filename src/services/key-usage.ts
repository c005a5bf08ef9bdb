// GET /me/usage: what the calling key used, per model and UTC day, over a range of days (both ends
// included): requests, spend (rubles captured) and chat tokens. Per key, like GET /me/balance.
import { microToRub } from '../domain/billing/money.js';
import { AppError } from '../domain/errors.js';
import type { Storage } from '../storage/storage.js';

const DAY_MS = 86_400_000;
export const USAGE_DEFAULT_DAYS = 30;
export const USAGE_MAX_DAYS = 366;

export interface UsageQuery {
  from?: string;
  to?: string;
}

export interface UsageRow {
  date: string;
  model_name: string;
  requests: number;
  spent: number;
  input_tokens: number;
  output_tokens: number;
}

export interface KeyUsage {
  object: 'usage';
  from: string;
  to: string;
  data: UsageRow[];
  total: Omit<UsageRow, 'date' | 'model_name'>;
}

/** A YYYY-MM-DD date as its day number since the epoch (UTC); a bad date is a 422 on `param`. */
function parseDay(value: string, param: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const ms = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : Number.NaN;
  if (!match || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value)
    throw new AppError('invalid_parameter', `${param} must be a date as YYYY-MM-DD`, param);
  return ms / DAY_MS;
}

const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The range asked for: `to` defaults to today (UTC), `from` to 29 days before `to`. */
export function usageRange(query: UsageQuery, now: number): { from: number; to: number } {
  const to = query.to === undefined ? Math.floor(now / DAY_MS) : parseDay(query.to, 'to');
  const from = query.from === undefined ? to - (USAGE_DEFAULT_DAYS - 1) : parseDay(query.from, 'from');
  if (from > to) throw new AppError('invalid_parameter', 'from must not be after to', 'from');
  if (to - from + 1 > USAGE_MAX_DAYS)
    throw new AppError('invalid_parameter', `The range may span at most ${USAGE_MAX_DAYS} days`, 'from');
  return { from, to };
}

export async function keyUsage(
  storage: Storage,
  key: { accountId: number; keyId: number },
  query: UsageQuery,
  now: number,
): Promise<KeyUsage> {
  const { from, to } = usageRange(query, now);
  const rows = await storage.analytics.dailyUsageOfKey(
    key.accountId,
    key.keyId,
    from * DAY_MS,
    (to + 1) * DAY_MS,
  );
  const total = { requests: 0, spent: 0, input_tokens: 0, output_tokens: 0 };
  const data = rows.map((row) => {
    total.requests += row.requests;
    total.spent += row.spent;
    total.input_tokens += row.input_tokens;
    total.output_tokens += row.output_tokens;
    return {
      date: dateOf(row.day),
      model_name: row.model_id,
      requests: row.requests,
      spent: microToRub(row.spent),
      input_tokens: row.input_tokens,
      output_tokens: row.output_tokens,
    };
  });
  return {
    object: 'usage',
    from: dateOf(from),
    to: dateOf(to),
    data,
    total: { ...total, spent: microToRub(total.spent) },
  };
}
