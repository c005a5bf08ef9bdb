// Per-key request limits over a fixed one-minute window. In memory for the embedded mode; Redis when
// several API processes must share one limit (REDIS_URL).
//
// One counter per key, whatever its limit: the limiter itself never rejects (its point budget is
// unreachable) and the decision compares the count with the key's current limit. So a limit changed
// mid-window applies to the requests already counted, instead of starting a fresh counter.
import type { Redis } from 'ioredis';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (at least 1 while the window is open). */
  resetSeconds: number;
}

export interface RateLimiter {
  /** Counts one request of `subject` (a globally unique key identity) against `limitPerMin`. */
  consume(subject: string, limitPerMin: number): Promise<RateDecision>;
}

export const RATE_WINDOW_SECONDS = 60;
/** Redis keys of the limiter; the prefix keeps them apart from anything else in a shared Redis. */
export const RATE_LIMIT_KEY_PREFIX = 'gengate:rl';
const UNREACHABLE_POINTS = Number.MAX_SAFE_INTEGER;

export class FlexibleRateLimiter implements RateLimiter {
  private readonly limiter: RateLimiterAbstract;

  constructor(redis?: Redis) {
    const options = {
      points: UNREACHABLE_POINTS,
      duration: RATE_WINDOW_SECONDS,
      keyPrefix: RATE_LIMIT_KEY_PREFIX,
    };
    this.limiter = redis
      ? new RateLimiterRedis({
          ...options,
          storeClient: redis,
          // While Redis is unreachable each process limits on its own instead of failing requests
          // or waiting for a reconnect. (buildContext waits for the first connection.)
          rejectIfRedisNotReady: true,
          insuranceLimiter: new RateLimiterMemory(options),
        })
      : new RateLimiterMemory(options);
  }

  async consume(subject: string, limitPerMin: number): Promise<RateDecision> {
    const res = await this.limiter.consume(subject, 1);
    const resetSeconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    return {
      allowed: res.consumedPoints <= limitPerMin,
      limit: limitPerMin,
      remaining: Math.max(0, limitPerMin - res.consumedPoints),
      resetSeconds,
    };
  }
}
