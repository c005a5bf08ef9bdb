// Redis faults, on a private redis-server (its own port, stopped by its PID; never the machine's
// Redis): killed, restarted, frozen. The rate limiter fails open to a per-process limit and goes
// back to the shared count once Redis is back; key invalidation forgets every cached key on
// reconnect (messages sent meanwhile are lost), then carries messages again.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app.js';
import { HAVE_REDIS_SERVER, RedisServer } from '../testing/redis-server.js';
import { IN_CI } from '../testing/services.js';
import { ALL_KEYS, RedisKeyInvalidation } from './key-invalidation.js';
import { FlexibleRateLimiter, type RateLimiter } from './rate-limit.js';

const subject = () => randomBytes(16).toString('hex');
const LIMIT = 4;

async function decisions(limiter: RateLimiter, who: string, n: number) {
  const allowed: boolean[] = [];
  let slowestMs = 0;
  for (let i = 0; i < n; i++) {
    const started = Date.now();
    allowed.push((await limiter.consume(who, LIMIT)).allowed);
    slowestMs = Math.max(slowestMs, Date.now() - started);
  }
  return { allowed, slowestMs };
}

async function until(probe: () => boolean | Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// In CI a missing redis-server binary fails the run instead of skipping.
describe.skipIf(!HAVE_REDIS_SERVER && !IN_CI)('Redis faults', () => {
  let server: RedisServer;
  const clients: Redis[] = [];
  /** A connected client, as buildContext makes it. */
  const client = async () => {
    const redis = new Redis(server.url, { maxRetriesPerRequest: 2 });
    // Connection errors while the server is down are expected here.
    redis.on('error', () => undefined);
    clients.push(redis);
    await redis.ping();
    return redis;
  };
  const ready = (...redis: Redis[]) =>
    until(() => redis.every((r) => r.status === 'ready'), 15_000, 'reconnect');

  beforeAll(async () => {
    server = await RedisServer.start();
  });
  afterEach(async () => {
    server.thaw();
    if (!server.running) await server.restart();
  });
  afterAll(async () => {
    for (const redis of clients) redis.disconnect();
    await server.kill();
  });

  it('rate limiter: one shared count, a per-process count while Redis is down, the shared count again once it is back', async () => {
    const [a, b] = [new FlexibleRateLimiter(await client()), new FlexibleRateLimiter(await client())];
    const alternate = async (who: string, n: number) => {
      const allowed: boolean[] = [];
      for (let i = 0; i < n; i++) allowed.push((await (i % 2 ? b : a).consume(who, LIMIT)).allowed);
      return allowed;
    };
    expect(await alternate(subject(), 6)).toEqual([true, true, true, true, false, false]);

    await server.kill();
    // Down: no request fails or waits; each process allows the limit on its own.
    const down = subject();
    const [onA, onB] = [await decisions(a, down, 5), await decisions(b, down, 5)];
    expect(onA.allowed).toEqual([true, true, true, true, false]);
    expect(onB.allowed).toEqual([true, true, true, true, false]);
    expect(Math.max(onA.slowestMs, onB.slowestMs)).toBeLessThan(500);

    // Back (empty: no persistence): the processes share one count again.
    await server.restart();
    await ready(...clients);
    expect(await alternate(subject(), 6)).toEqual([true, true, true, true, false, false]);
  }, 60_000);

  it('rate limiter: a frozen Redis costs one timeout, then requests are counted in memory until it answers again', async () => {
    const redis = await client();
    const limiter = new FlexibleRateLimiter(redis, { timeoutMs: 150, retryAfterMs: 600 });
    const who = subject();
    expect((await limiter.consume(who, LIMIT)).allowed).toBe(true);

    server.freeze();
    const frozen = await decisions(limiter, who, 5);
    // The first waits the timeout; the others skip Redis. The in-memory count starts afresh.
    expect(frozen.slowestMs).toBeGreaterThanOrEqual(140);
    expect(frozen.slowestMs).toBeLessThan(1_000);
    expect(frozen.allowed).toEqual([true, true, true, true, false]);

    server.thaw();
    await new Promise((resolve) => setTimeout(resolve, 700));
    // Counted in Redis again: the request after the pause lands on the shared counter.
    const after = subject();
    await limiter.consume(after, LIMIT);
    expect(await redis.exists(`gengate:rl:${after}`)).toBe(1);
  }, 60_000);

  describe('key invalidation', () => {
    async function bus() {
      const errors: string[] = [];
      const instance = new RedisKeyInvalidation(await client(), (message) => errors.push(message), 300);
      const heard: string[] = [];
      instance.subscribe((hash) => heard.push(hash));
      await instance.start();
      return { instance, heard, errors };
    }

    it('a message sent while Redis is down is lost, so every process forgets every cached key once it is back', async () => {
      const [a, b] = [await bus(), await bus()];
      const first = subject();
      a.instance.publish(first);
      await until(() => b.heard.includes(first), 5_000, 'the message through Redis');

      await server.kill();
      const lost = subject();
      a.instance.publish(lost);
      // This process evicts at once; the other cannot hear it.
      expect(a.heard).toContain(lost);
      await server.restart();
      // On reconnect the other process evicts everything, the lost key with it.
      await until(() => b.heard.includes(ALL_KEYS), 15_000, 'the flush on reconnect');
      // Whether the publish itself arrives late (ioredis may resend it from its offline queue once
      // the connection is back) does not matter: the flush evicted the lost key either way.

      // And messages flow again.
      const later = subject();
      await until(
        async () => {
          a.instance.publish(later);
          await new Promise((resolve) => setTimeout(resolve, 100));
          return b.heard.includes(later);
        },
        15_000,
        'messages after the restart',
      );
      await a.instance.close();
      await b.instance.close();
    }, 60_000);

    it('close() does not hang on a frozen Redis (a CLI command exits), and says the publish is unconfirmed', async () => {
      const a = await bus();
      server.freeze();
      a.instance.publish(subject());
      const started = Date.now();
      await a.instance.close();
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(a.errors.some((m) => /not confirmed/.test(m))).toBe(true);
    }, 30_000);
  });

  describe('the API while Redis is down', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await createTestApp({ config: { redisUrl: server.url } });
    });
    afterAll(async () => {
      await app.dispose();
    });

    it('keeps answering key requests with rate-limit headers, and keeps serving after Redis is back', async () => {
      const key = await app.newKey({ balanceRub: 10, restrictions: { rate_limit_per_min: 3 } });
      const get = () => app.http.inject({ method: 'GET', url: '/me/balance', headers: key.auth });
      expect((await get()).statusCode).toBe(200);

      await server.kill();
      const down = [];
      for (let i = 0; i < 4; i++) down.push(await get());
      // Counted in this process from zero: three pass, the fourth is refused; none is a 5xx.
      expect(down.map((r) => r.statusCode)).toEqual([200, 200, 200, 429]);
      expect(down[0].headers['ratelimit-limit']).toBe('3');

      await server.restart();
      // The fresh Redis has no count: the key gets its limit again there.
      await until(async () => (await get()).statusCode === 200, 15_000, 'requests after the restart');
    }, 60_000);
  });
});
