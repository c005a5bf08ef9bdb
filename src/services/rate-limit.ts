// Per-key request limits over a fixed one-minute window. In memory for the embedded mode; Redis when
// several API processes must share one limit (REDIS_URL).
//
// One counter per key, whatever its limit: the limiter itself never rejects (its point budget is
// unreachable) and the decision compares the count with the key's current limit. So a limit changed
// mid-window applies to the requests already counted, instead of starting a fresh counter.
//
// Redis faults fail open to a per-process limit, never to "no limit" nor to refusing every request
// (docs/resilience.md): while Redis is down, restarting or not answering within `timeoutMs`, each
// process counts in its own memory, so a key gets at most its limit per API process. A Redis that
// stalled is skipped for `retryAfterMs`, so requests do not each wait out the timeout.
//
// On Redis a process reserves runs of consecutive counts and hands them out locally
// (rate-limit-reservations.ts): a hot key costs one Redis round trip per run, not per request.
import type { Redis } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  type RateLimiterRes,
} from 'rate-limiter-flexible';
import { type Counted, ReservedCounts } from './rate-limit-reservations.js';

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

export interface RedisFaultOptions {
  /** A Redis answer slower than this counts as a fault (a stalled server keeps the socket open). */
  timeoutMs?: number;
  /** After a timeout, count in memory for this long before asking Redis again. */
  retryAfterMs?: number;
}

export const REDIS_LIMIT_TIMEOUT_MS = 250;
export const REDIS_LIMIT_RETRY_AFTER_MS = 1_000;

export class FlexibleRateLimiter implements RateLimiter {
  /** This process's own counters: the embedded limiter, or the fallback while Redis is faulty. */
  private readonly local: RateLimiterMemory;
  private readonly shared: RateLimiterAbstract | undefined;
  private readonly reserved: ReservedCounts | undefined;
  private readonly timeoutMs: number;
  private readonly retryAfterMs: number;
  private redisSkippedUntil = 0;

  constructor(redis?: Redis, faults: RedisFaultOptions = {}) {
    const options = {
      points: UNREACHABLE_POINTS,
      duration: RATE_WINDOW_SECONDS,
      keyPrefix: RATE_LIMIT_KEY_PREFIX,
    };
    this.local = new RateLimiterMemory(options);
    this.timeoutMs = faults.timeoutMs ?? REDIS_LIMIT_TIMEOUT_MS;
    this.retryAfterMs = faults.retryAfterMs ?? REDIS_LIMIT_RETRY_AFTER_MS;
    this.shared = redis
      ? new RateLimiterRedis({
          ...options,
          storeClient: redis,
          // A client not connected (down, restarting) or a failed command: counted in memory
          // instead of failing the request or waiting for a reconnect. (buildContext waits for the
          // first connection.)
          rejectIfRedisNotReady: true,
          insuranceLimiter: this.local,
        })
      : undefined;
    this.reserved = this.shared
      ? new ReservedCounts(async (subject, length) => {
          const res = await this.countShared(subject, length);
          return { total: res.consumedPoints, msBeforeReset: res.msBeforeNext };
        })
      : undefined;
  }

  async consume(subject: string, limitPerMin: number): Promise<RateDecision> {
    const { position, msBeforeReset } = await this.count(subject, limitPerMin);
    return {
      allowed: position <= limitPerMin,
      limit: limitPerMin,
      remaining: Math.max(0, limitPerMin - position),
      resetSeconds: Math.max(1, Math.ceil(msBeforeReset / 1000)),
    };
  }

  private async count(subject: string, limitPerMin: number): Promise<Counted> {
    if (!this.reserved || Date.now() < this.redisSkippedUntil) {
      const res = await this.local.consume(subject, 1);
      return { position: res.consumedPoints, msBeforeReset: res.msBeforeNext };
    }
    return this.reserved.count(subject, limitPerMin);
  }

  /** Adds `points` to the shared count; a stalled Redis counts them in memory instead. */
  private countShared(subject: string, points: number): Promise<RateLimiterRes> {
    const shared = this.shared as RateLimiterAbstract;
    const asked = shared.consume(subject, points);
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<RateLimiterRes>((resolve) => {
      timer = setTimeout(() => {
        this.redisSkippedUntil = Date.now() + this.retryAfterMs;
        // The late answer, if any, is dropped; the request is counted here instead.
        asked.catch(() => undefined);
        resolve(this.local.consume(subject, points));
      }, this.timeoutMs);
    });
    return Promise.race([asked, stalled]).finally(() => clearTimeout(timer));
  }
}
