// A top-up's ruble amount as the payer types it: whole kopecks at most (2 decimals), within the
// operator's bounds. Integer arithmetic only.
import { AppError } from '../errors.js';
import { MICRO_PER_RUB } from './money.js';

const KOPECK = MICRO_PER_RUB / 100;

/** "500", "500.5", "500.50" or the JSON number 500.5 → micro-rubles; anything else → undefined. */
export function kopeckAmount(value: unknown): number | undefined {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) return undefined;
    text = String(value);
  } else if (typeof value === 'string') {
    text = value.trim();
  } else {
    return undefined;
  }
  const match = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(text);
  if (!match) return undefined;
  const micro = Number(match[1]) * MICRO_PER_RUB + Number((match[2] ?? '').padEnd(2, '0')) * KOPECK;
  return Number.isSafeInteger(micro) ? micro : undefined;
}

/** The amount of one top-up, or 422 invalid_amount naming the bounds. */
export function topupAmount(
  value: unknown,
  minMicro: number,
  maxMicro: number,
  param = 'amount_rub',
): number {
  const micro = kopeckAmount(value);
  if (micro === undefined || micro < minMicro || micro > maxMicro) {
    throw new AppError(
      'invalid_amount',
      `${param} must be a number of rubles with at most 2 decimals, from ${minMicro / MICRO_PER_RUB} to ${maxMicro / MICRO_PER_RUB}`,
      param,
    );
  }
  return micro;
}

/** A payer's email, as loosely as receipts need (one @, a dot in the domain, no spaces). */
export function validEmail(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const email = value.trim();
  return email.length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) ? email : undefined;
}
