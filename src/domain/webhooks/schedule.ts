// The retry schedule of webhook deliveries: 3 attempts in total (the spec), separated by the delays
// of WEBHOOK_RETRY_DELAYS_MS (30 s, then 10 min by default), each stretched by up to 10% of random
// jitter so that the retries of many deliveries that failed together do not arrive together.

export const MAX_WEBHOOK_ATTEMPTS = 3;
export const JITTER_FRACTION = 0.1;

/**
 * The delay before the next attempt after `attemptsMade` failed attempts, or undefined when no
 * attempt is left. A delay list shorter than needed repeats its last value; an empty list retries at once.
 */
export function retryDelayMs(
  attemptsMade: number,
  delaysMs: readonly number[],
  random: () => number = Math.random,
): number | undefined {
  if (attemptsMade >= MAX_WEBHOOK_ATTEMPTS) return undefined;
  const base =
    delaysMs.length === 0 ? 0 : delaysMs[Math.max(0, Math.min(attemptsMade - 1, delaysMs.length - 1))];
  return base + Math.floor(base * JITTER_FRACTION * random());
}

export type AttemptOutcome =
  | { ok: true; statusCode: number }
  | { ok: false; statusCode: number | null; error: string };

/** What one attempt changes on its delivery. */
export type DeliveryUpdate =
  | { status: 'delivered'; attempts: number; deliveredAt: number }
  | { status: 'pending'; attempts: number; nextAttemptAt: number }
  | { status: 'undelivered'; attempts: number };

export function afterAttempt(
  attemptsBefore: number,
  outcome: AttemptOutcome,
  now: number,
  delaysMs: readonly number[],
  random: () => number = Math.random,
): DeliveryUpdate {
  const attempts = attemptsBefore + 1;
  if (outcome.ok) return { status: 'delivered', attempts, deliveredAt: now };
  const delay = retryDelayMs(attempts, delaysMs, random);
  return delay === undefined
    ? { status: 'undelivered', attempts }
    : { status: 'pending', attempts, nextAttemptAt: now + delay };
}
