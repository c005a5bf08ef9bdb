// Per-key limits: an expiry date and a spend cap per UTC day, ISO week (from Monday), calendar month,
// or in total. Parsed here so the admin API, CLI and panel apply the same rules. The cap itself is
// enforced by the storage layer's guarded hold (a per-key counter of spend in the current period,
// moved by the same statement as the balance); these helpers give it the period boundaries.
import { type Micro, microToRub, rubToMicro } from '../billing/money.js';
import { AppError } from '../errors.js';

export const SPEND_PERIODS = ['day', 'week', 'month', 'total'] as const;
export type SpendPeriod = (typeof SPEND_PERIODS)[number];

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;
/** 1970-01-01 was a Thursday: shifting by 3 days puts Mondays on multiples of a week. */
const MONDAY_SHIFT_MS = 3 * DAY_MS;

/** The starts (epoch ms, UTC) of the day, week and month that contain `now`: the hold's parameters. */
export interface PeriodStarts {
  day: number;
  week: number;
  month: number;
}

export function periodStarts(now: number): PeriodStarts {
  const date = new Date(now);
  return {
    day: now - mod(now, DAY_MS),
    week: now - mod(now + MONDAY_SHIFT_MS, WEEK_MS),
    month: Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1),
  };
}

/** Where the period of `period` containing `now` starts (0 for `total` and for no period). */
export function periodStart(period: string | null, now: number): number {
  if (period === 'day' || period === 'week' || period === 'month') return periodStarts(now)[period];
  return 0;
}

/** The key's counted spend in the period containing `now` (the counter restarts with each period). */
export function spentInPeriod(
  key: { spend_limit_period: string | null; spend_in_period: number; spend_since: number },
  now: number,
): Micro {
  return Number(key.spend_since) >= periodStart(key.spend_limit_period, now)
    ? Number(key.spend_in_period)
    : 0;
}

/** What the key may still hold before its cap (null: no cap). Never negative. */
export function spendRoom(
  key: {
    spend_limit: number | null;
    spend_limit_period: string | null;
    spend_in_period: number;
    spend_since: number;
  },
  now: number,
): Micro | null {
  if (key.spend_limit === null) return null;
  return Math.max(0, Number(key.spend_limit) - spentInPeriod(key, now));
}

function mod(a: number, b: number): number {
  return ((a % b) + b) % b;
}

/** `expires_at`: an ISO 8601 date-time with its zone (or a date, read as UTC midnight), or null. */
export function parseExpiresAt(value: unknown): number | null {
  if (value === null) return null;
  const text = typeof value === 'string' ? value.trim() : '';
  const iso = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/i;
  const at = iso.test(text) ? Date.parse(text) : Number.NaN;
  if (!Number.isFinite(at)) {
    throw new AppError(
      'invalid_parameter',
      'expires_at must be an ISO 8601 date-time with a time zone (e.g. 2026-12-31T23:59:59Z), or null',
      'expires_at',
    );
  }
  return at;
}

/** `spend_limit_rub`: a positive ruble amount, or null for no cap. */
export function parseSpendLimit(value: unknown): Micro | null {
  if (value === null) return null;
  const micro = rubToMicro(value, 'spend_limit_rub');
  if (micro <= 0)
    throw new AppError('invalid_parameter', 'spend_limit_rub must be positive, or null', 'spend_limit_rub');
  return micro;
}

export function parseSpendPeriod(value: unknown): SpendPeriod | null {
  if (value === null) return null;
  if (typeof value !== 'string' || !(SPEND_PERIODS as readonly string[]).includes(value)) {
    throw new AppError(
      'invalid_parameter',
      `spend_limit_period must be one of ${SPEND_PERIODS.join(', ')}, or null`,
      'spend_limit_period',
    );
  }
  return value as SpendPeriod;
}

/** The settings of a key a create or update body may carry, beyond a new key's name. */
export const KEY_SETTING_FIELDS = [
  'allowed_models',
  'allowed_ip_cidrs',
  'rate_limit_per_min',
  'expires_at',
  'spend_limit_rub',
  'spend_limit_period',
] as const;

/** The key's limits as stored (only the fields a request set). */
export interface KeyLimitsPatch {
  expires_at?: number | null;
  spend_limit?: number | null;
  spend_limit_period?: SpendPeriod | null;
}

/**
 * Reads `expires_at`, `spend_limit_rub` and `spend_limit_period` from a create or update body. A cap
 * needs its period: a cap given without one counts per `month` on a key that has none yet; a
 * period cleared while the cap stays is refused.
 */
export function parseKeyLimits(
  body: Record<string, unknown>,
  current?: { spend_limit: number | null; spend_limit_period: string | null },
): KeyLimitsPatch {
  const patch: KeyLimitsPatch = {};
  if (body.expires_at !== undefined) patch.expires_at = parseExpiresAt(body.expires_at);
  if (body.spend_limit_rub !== undefined) patch.spend_limit = parseSpendLimit(body.spend_limit_rub);
  if (body.spend_limit_period !== undefined)
    patch.spend_limit_period = parseSpendPeriod(body.spend_limit_period);
  const limit = patch.spend_limit !== undefined ? patch.spend_limit : (current?.spend_limit ?? null);
  const period =
    patch.spend_limit_period !== undefined ? patch.spend_limit_period : (current?.spend_limit_period ?? null);
  if (limit !== null && period === null) {
    if (patch.spend_limit_period === null)
      throw new AppError(
        'invalid_parameter',
        'a spend limit needs its period: clear spend_limit_rub too, or give day, week, month or total',
        'spend_limit_period',
      );
    patch.spend_limit_period = 'month';
  }
  return patch;
}

/** The limits as the API shows them. */
export function presentKeyLimits(
  key: {
    expires_at: number | null;
    spend_limit: number | null;
    spend_limit_period: string | null;
    spend_in_period: number;
    spend_since: number;
  },
  now: number,
) {
  return {
    expires_at: key.expires_at === null ? null : new Date(Number(key.expires_at)).toISOString(),
    spend_limit_rub: key.spend_limit === null ? null : microToRub(Number(key.spend_limit)),
    spend_limit_period: key.spend_limit_period,
    spent_in_period_rub: key.spend_limit === null ? null : microToRub(spentInPeriod(key, now)),
  };
}
