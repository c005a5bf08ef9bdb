// Why a guarded hold was refused: the hold's UPDATE matches no row both when the balance does not
// cover it and when it would pass the key's spend cap, so the refusal reads the key once (a refused
// hold is rare; the accepted path reads nothing).
import { microToRub } from '../domain/billing/money.js';
import { AppError } from '../domain/errors.js';
import { spendRoom } from '../domain/keys/limits.js';
import type { SpendState } from '../storage/repositories/keys.js';

/** 402 spend_limit_reached when the cap is what refused `amount`, else 402 insufficient_balance. */
export async function holdRefusal(
  keys: { spendState(keyId: number): Promise<SpendState | undefined> },
  keyId: number,
  amount: number,
  now: number,
): Promise<AppError> {
  const state = await keys.spendState(keyId);
  const room = state ? spendRoom(state, now) : null;
  // Past the cap, a top-up would not help: that is the answer even when the balance is short too.
  if (state && room !== null && room < amount) return capReached(state, room);
  return new AppError(
    'insufficient_balance',
    `Balance is below the cost of this request (${microToRub(amount)} RUB)`,
  );
}

export function capReached(
  state: Pick<SpendState, 'spend_limit' | 'spend_limit_period'>,
  room: number,
): AppError {
  const period = state.spend_limit_period === 'total' ? 'in total' : `per ${state.spend_limit_period}`;
  return new AppError(
    'spend_limit_reached',
    `This request would exceed the key's spend limit of ${microToRub(Number(state.spend_limit))} RUB ${period} ` +
      `(${microToRub(room)} RUB left)`,
  );
}
