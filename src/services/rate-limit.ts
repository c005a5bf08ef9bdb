// Per-key request limits over a one-minute window. In memory for the embedded mode; Redis when
// several API processes must share one limit (REDIS_URL).
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

export interface RateLimiter {
  consume(keyId: number, limitPerMin: number): Promise<RateDecision>;
}

export class FlexibleRateLimiter implements RateLimiter {
  private readonly limiters = new Map<number, RateLimiterAbstract>();

  constructor(private readonly redis?: Redis) {}

  private limiterFor(points: number): RateLimiterAbstract {
    let limiter = this.limiters.get(points);
    if (!limiter) {
      const options = { points, duration: 60, keyPrefix: `gengate:rl:${points}` };
      limiter = this.redis ? new RateLimiterRedis({ ...options, storeClient: this.redis }) : new RateLimiterMemory(options);
      this.limiters.set(points, limiter);
    }
    return limiter;
  }

  async consume(keyId: number, limitPerMin: number): Promise<RateDecision> {
    const limiter = this.limiterFor(limitPerMin);
    try {
      const res = await limiter.consume(String(keyId), 1);
      return { allowed: true, limit: limitPerMin, remaining: res.remainingPoints, resetSeconds: Math.ceil(res.msBeforeNext / 1000) };
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        return { allowed: false, limit: limitPerMin, remaining: 0, resetSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
      }
      throw rejection;
    }
  }
}
