import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { HAVE_REDIS, REDIS_URL } from '../testing/services.js';
import { FlexibleRateLimiter, RATE_LIMIT_KEY_PREFIX, type RateLimiter } from './rate-limit.js';
import { MAX_RUN } from './rate-limit-reservations.js';

const subject = () => randomBytes(16).toString('hex');

async function consumeN(limiter: RateLimiter, who: string, limit: number, n: number) {
  const decisions = [];
  for (let i = 0; i < n; i++) decisions.push(await limiter.consume(who, limit));
  return decisions;
}

describe('FlexibleRateLimiter in memory', () => {
  it('allows `limit` requests a minute, then refuses with the time to the reset', async () => {
    const limiter = new FlexibleRateLimiter();
    const decisions = await consumeN(limiter, subject(), 5, 7);
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0]);
    for (const d of decisions) {
      expect(d.limit).toBe(5);
      expect(d.resetSeconds).toBeGreaterThanOrEqual(1);
      expect(d.resetSeconds).toBeLessThanOrEqual(60);
    }
  });

  it('counts every subject apart', async () => {
    const limiter = new FlexibleRateLimiter();
    const [a, b] = [subject(), subject()];
    await consumeN(limiter, a, 2, 3);
    expect((await limiter.consume(b, 2)).allowed).toBe(true);
    expect((await limiter.consume(a, 2)).allowed).toBe(false);
  });

  it('applies a changed limit to the requests already counted in the window', async () => {
    const limiter = new FlexibleRateLimiter();
    const who = subject();
    await consumeN(limiter, who, 5, 4);
    // Lowered below what was used: refused at once, no fresh counter.
    expect((await limiter.consume(who, 3)).allowed).toBe(false);
    // Raised: the 5 already counted leave 5 of 10.
    const raised = await limiter.consume(who, 10);
    expect(raised).toMatchObject({ allowed: true, remaining: 4 });
  });
});

describe.skipIf(!HAVE_REDIS)('FlexibleRateLimiter on Redis', () => {
  const clients: Redis[] = [];
  // Connected first, as buildContext does: a client that is not ready counts as Redis being down.
  const client = async () => {
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
    clients.push(redis);
    await redis.ping();
    return redis;
  };
  afterAll(() => {
    for (const redis of clients) redis.disconnect();
  });

  it('shares one counter between limiters of two processes', async () => {
    const [a, b] = [new FlexibleRateLimiter(await client()), new FlexibleRateLimiter(await client())];
    const who = subject();
    const results: boolean[] = [];
    for (let i = 0; i < 6; i++) results.push((await (i % 2 === 0 ? a : b).consume(who, 5)).allowed);
    expect(results).toEqual([true, true, true, true, true, false]);
  });

  it('counts a hot key in runs: one Redis round trip per run of counts, not per request', async () => {
    const redis = await client();
    const limiter = new FlexibleRateLimiter(redis);
    const who = subject();
    const decisions = await consumeN(limiter, who, 1_000_000, 100);
    expect(decisions.every((d) => d.allowed)).toBe(true);
    expect(decisions.at(-1)?.remaining).toBe(1_000_000 - 100);
    // Two runs of 64 were reserved for the 100 requests.
    expect(await redis.get(`${RATE_LIMIT_KEY_PREFIX}:${who}`)).toBe(String(2 * MAX_RUN));
  });

  it('keeps its counters under the gengate: prefix, named by the subject', async () => {
    const redis = await client();
    const who = subject();
    await new FlexibleRateLimiter(redis).consume(who, 5);
    expect(RATE_LIMIT_KEY_PREFIX.startsWith('gengate:')).toBe(true);
    expect(await redis.keys(`${RATE_LIMIT_KEY_PREFIX}:${who}`)).toEqual([`${RATE_LIMIT_KEY_PREFIX}:${who}`]);
    const ttl = await redis.pttl(`${RATE_LIMIT_KEY_PREFIX}:${who}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('falls back to a per-process limit while Redis is unreachable instead of failing requests', async () => {
    const dead = new Redis('redis://127.0.0.1:1', {
      maxRetriesPerRequest: 0,
      lazyConnect: true,
      retryStrategy: () => null,
    });
    clients.push(dead);
    const limiter = new FlexibleRateLimiter(dead);
    const decisions = await consumeN(limiter, subject(), 2, 3);
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, false]);
  });
});
