// Money is an integer count of micro-rubles (1 RUB = 1,000,000). Conversions go through decimal
// strings so that no float ever takes part in arithmetic on a balance.
import { AppError } from '../errors.js';

export type Micro = number;
export const MICRO_PER_RUB = 1_000_000;
/** The largest amount we accept in one operation: well inside Number.MAX_SAFE_INTEGER. */
export const MAX_MICRO = 1_000_000_000 * MICRO_PER_RUB;

/** Parses a ruble amount given as a JSON number or decimal string ("12.5") into micro-rubles. */
export function rubToMicro(value: unknown, param = 'amount_rub'): Micro {
  const text =
    typeof value === 'number' ? numberToDecimal(value) : typeof value === 'string' ? value.trim() : '';
  const match = /^(-?)(\d+)(?:\.(\d{1,6}))?$/.exec(text);
  if (!match)
    throw new AppError('invalid_parameter', `${param} must be a number with at most 6 decimals`, param);
  const [, sign, whole, frac = ''] = match;
  const micro = Number(whole) * MICRO_PER_RUB + Number(frac.padEnd(6, '0'));
  if (!Number.isSafeInteger(micro) || micro > MAX_MICRO) {
    throw new AppError('invalid_parameter', `${param} is too large`, param);
  }
  return sign === '-' ? -micro : micro;
}

/** Renders micro-rubles as a JSON number of rubles (presentation only). */
export function microToRub(micro: Micro): number {
  return micro / MICRO_PER_RUB;
}

function numberToDecimal(value: number): string {
  if (!Number.isFinite(value)) return '';
  // toString gives the shortest round-trip form; expand exponent forms such as 1e-7.
  const text = value.toString();
  return text.includes('e') ? value.toFixed(12).replace(/0+$/, '').replace(/\.$/, '') : text;
}

/** A coefficient such as 1.25 as an integer count of millionths (1_250_000). */
export function coefficientToPpm(value: unknown): number {
  const micro = rubToMicro(value, 'coefficient');
  if (micro <= 0) throw new AppError('invalid_parameter', 'coefficient must be positive', 'coefficient');
  return micro;
}

/** amount × coefficient, rounded up to the micro-ruble so we never undercharge. Integer-only. */
export function applyCoefficient(amount: Micro, coefficientPpm: number): Micro {
  const product = BigInt(amount) * BigInt(coefficientPpm);
  const result = (product + 999_999n) / 1_000_000n;
  return Number(result);
}

/** price (micro-rubles per 1M tokens) × tokens, rounded up to the micro-ruble. Integer-only. */
export function tokenCost(pricePerMillion: Micro, tokens: number): Micro {
  const product = BigInt(pricePerMillion) * BigInt(tokens);
  return Number((product + 999_999n) / 1_000_000n);
}
