import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { afterAttempt, JITTER_FRACTION, MAX_WEBHOOK_ATTEMPTS, retryDelayMs } from './schedule.js';

const DEFAULT_DELAYS = [30_000, 600_000];

describe('webhook retry schedule', () => {
  it('waits the configured delays, then gives up after the third attempt', () => {
    const noJitter = () => 0;
    expect(retryDelayMs(1, DEFAULT_DELAYS, noJitter)).toBe(30_000);
    expect(retryDelayMs(2, DEFAULT_DELAYS, noJitter)).toBe(600_000);
    expect(retryDelayMs(3, DEFAULT_DELAYS, noJitter)).toBeUndefined();
    expect(MAX_WEBHOOK_ATTEMPTS).toBe(3);
  });

  it('adds at most 10% of jitter, never less than the delay', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 }),
        fc.double({ min: 0, max: 0.9999999, noNaN: true }),
        (attempts, r) => {
          const base = DEFAULT_DELAYS[attempts - 1];
          const delay = retryDelayMs(attempts, DEFAULT_DELAYS, () => r)!;
          expect(Number.isInteger(delay)).toBe(true);
          expect(delay).toBeGreaterThanOrEqual(base);
          expect(delay).toBeLessThanOrEqual(base + base * JITTER_FRACTION);
        },
      ),
    );
  });

  it('repeats the last delay of a short list and retries at once with an empty one', () => {
    expect(retryDelayMs(2, [500], () => 0)).toBe(500);
    expect(retryDelayMs(1, [], () => 0.5)).toBe(0);
  });

  it('turns attempt outcomes into delivered, a scheduled retry, or undelivered', () => {
    const failed = { ok: false as const, statusCode: 500, error: 'HTTP 500' };
    expect(afterAttempt(0, { ok: true, statusCode: 204 }, 1_000, DEFAULT_DELAYS)).toEqual({
      status: 'delivered',
      attempts: 1,
      deliveredAt: 1_000,
    });
    expect(afterAttempt(0, failed, 1_000, DEFAULT_DELAYS, () => 0)).toEqual({
      status: 'pending',
      attempts: 1,
      nextAttemptAt: 31_000,
    });
    expect(afterAttempt(1, failed, 1_000, DEFAULT_DELAYS, () => 0)).toEqual({
      status: 'pending',
      attempts: 2,
      nextAttemptAt: 601_000,
    });
    expect(afterAttempt(2, failed, 1_000, DEFAULT_DELAYS, () => 0)).toEqual({
      status: 'undelivered',
      attempts: 3,
    });
  });
});
