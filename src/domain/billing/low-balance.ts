import { AppError } from '../errors.js';
import { type Micro, rubToMicro } from './money.js';

// The low-balance notice's rule. A key's funds are its balance plus what requests in progress hold
// (held money is not spent: a release gives it back), so holds and releases never cross the
// threshold: only captures, debits and transfers out lower the funds, and top-ups, credits and
// transfers in raise them. A movement crosses when it takes the funds from at or above the
// threshold to below it; the notice is re-armed by the funds going back to or above it.
export function crossedBelow(fundsAfter: number, lowered: number, threshold: number | null): boolean {
  return threshold !== null && lowered > 0 && fundsAfter < threshold && fundsAfter + lowered >= threshold;
}

/** `low_balance_rub`: a positive ruble amount, or null for no notice. */
export function parseLowBalance(value: unknown): Micro | null {
  if (value === null) return null;
  const micro = rubToMicro(value, 'low_balance_rub');
  if (micro <= 0)
    throw new AppError('invalid_parameter', 'low_balance_rub must be positive, or null', 'low_balance_rub');
  return micro;
}
