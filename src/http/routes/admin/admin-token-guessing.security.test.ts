// The admin API slows down whoever guesses its token: past ADMIN_TOKEN_FAILURES_PER_MIN wrong tokens
// in a minute, an address's wrong tokens answer 429 with Retry-After, exactly, however many
// connections send them, and across processes sharing Redis. The right token is never counted and
// never refused, even from that address and in the middle of the guessing.
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../../../testing/app.js';
import { HAVE_REDIS, REDIS_URL } from '../../../testing/services.js';
import { ADMIN_TOKEN_FAILURES_PER_MIN } from '../../plugins/guard.js';

const right = { authorization: `Bearer ${ADMIN_TOKEN}` };
const wrong = (n: number) => ({ authorization: `Bearer wrong-admin-token-${n}` });
/** A fresh address per test run: counters in a shared Redis outlive the test. */
const freshIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

function call(app: TestApp, headers: Record<string, string>, ip: string) {
  return app.http.inject({ method: 'GET', url: '/admin/models', headers, remoteAddress: ip });
}

describe('guessing the admin token', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.dispose());

  it('answers 401 to the first wrong tokens of an address, then 429 with Retry-After', async () => {
    const ip = freshIp();
    const statuses: number[] = [];
    for (let n = 0; n < ADMIN_TOKEN_FAILURES_PER_MIN + 3; n++) {
      const res = await call(app, wrong(n), ip);
      statuses.push(res.statusCode);
      if (res.statusCode === 429) {
        const retryAfter = Number(res.headers['retry-after']);
        expect(retryAfter).toBeGreaterThan(0);
        expect(retryAfter).toBeLessThanOrEqual(60);
        expect(res.json()).toMatchObject({ error: { code: 'rate_limited', type: 'rate_limit_error' } });
      } else {
        expect(res.json()).toMatchObject({ error: { code: 'invalid_api_key' } });
      }
    }
    expect(statuses).toEqual([...Array(ADMIN_TOKEN_FAILURES_PER_MIN).fill(401), 429, 429, 429]);
    // Another address is not affected.
    expect((await call(app, wrong(99), freshIp())).statusCode).toBe(401);
  });

  it('never slows down the right token: not counted, and accepted from a blocked address', async () => {
    const ip = freshIp();
    // Right tokens in between do not use up the address's allowance…
    for (let n = 0; n < ADMIN_TOKEN_FAILURES_PER_MIN; n++) {
      expect((await call(app, right, ip)).statusCode).toBe(200);
      expect((await call(app, wrong(n), ip)).statusCode).toBe(401);
    }
    expect((await call(app, wrong(100), ip)).statusCode).toBe(429);
    // …and while the address is refused, the right token still gets in, at once.
    for (let n = 0; n < 5; n++) {
      const started = performance.now();
      const res = await call(app, right, ip);
      expect(res.statusCode).toBe(200);
      expect(res.headers['retry-after']).toBeUndefined();
      expect(performance.now() - started).toBeLessThan(1_000);
    }
  });

  it('does not count requests with no token at all', async () => {
    const ip = freshIp();
    for (let n = 0; n < ADMIN_TOKEN_FAILURES_PER_MIN * 2; n++) {
      expect((await call(app, {}, ip)).statusCode).toBe(401);
    }
    expect((await call(app, wrong(0), ip)).statusCode).toBe(401);
  });

  it('holds exactly under 16 concurrent guessers from one address', async () => {
    const ip = freshIp();
    const statuses = await Promise.all(
      Array.from({ length: 16 }, (_, n) => call(app, wrong(n), ip).then((r) => r.statusCode)),
    );
    expect(statuses.filter((s) => s === 401)).toHaveLength(ADMIN_TOKEN_FAILURES_PER_MIN);
    expect(statuses.filter((s) => s === 429)).toHaveLength(16 - ADMIN_TOKEN_FAILURES_PER_MIN);
  });
});

describe.runIf(HAVE_REDIS)('guessing the admin token across processes sharing Redis', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    a = await createTestApp({ env: { REDIS_URL } });
    b = await createTestApp({ env: { REDIS_URL } });
  });
  afterAll(async () => {
    await a.dispose();
    await b.dispose();
  });

  it('shares one count: guesses alternated between two processes are refused past the limit', async () => {
    const ip = freshIp();
    const statuses: number[] = [];
    for (let n = 0; n < ADMIN_TOKEN_FAILURES_PER_MIN + 4; n++) {
      statuses.push((await call(n % 2 === 0 ? a : b, wrong(n), ip)).statusCode);
    }
    expect(statuses).toEqual([...Array(ADMIN_TOKEN_FAILURES_PER_MIN).fill(401), 429, 429, 429, 429]);
    expect((await call(b, right, ip)).statusCode).toBe(200);
  });
});
