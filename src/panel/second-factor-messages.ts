// What the owner reads when a second-factor code is refused: how many tries are left, or until when
// code checks are locked (in UTC, as the panel shows every time).
import { AppError } from '../domain/errors.js';
import type { CodeCheck } from '../services/panel/panel-second-factor-limit.js';

/** "14:05 UTC" (the date too when it is not today). */
export function lockEnd(until: number, now: number): string {
  const end = new Date(until).toISOString();
  const sameDay = end.slice(0, 10) === new Date(now).toISOString().slice(0, 10);
  return `${sameDay ? '' : `${end.slice(0, 10)} `}${end.slice(11, 16)} UTC`;
}

export function lockedMessage(until: number, now: number): string {
  return `Too many wrong codes: code checks are locked until ${lockEnd(until, now)}. Every attempt before then is refused, even with the right code.`;
}

/** The 429 of a locked account, with Retry-After. */
export function secondFactorLocked(until: number, now: number): AppError {
  return new AppError('rate_limited', lockedMessage(until, now), null, {
    headers: { 'Retry-After': String(Math.max(1, Math.ceil((until - now) / 1000))) },
  });
}

export function wrongCodeMessage(
  checked: Extract<CodeCheck<unknown>, { outcome: 'rejected' }>,
  now: number,
  hint = '',
): string {
  if (checked.lockedUntil !== undefined) {
    return `That code is not right. Too many wrong codes: code checks are locked until ${lockEnd(checked.lockedUntil, now)}.`;
  }
  const left = `${checked.attemptsLeft} attempt${checked.attemptsLeft === 1 ? '' : 's'} left before code checks lock.`;
  return `That code is not right.${hint ? ` ${hint}` : ''} ${left}`;
}
