// The IP allowlist and the per-key rate limit, through the whole app (SQLite, in-memory limiter).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, patchKey, type TestApp, type TestKey } from '../../testing/app.js';
import { startWorkers } from '../../workers/index.js';

const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.dispose();
});

async function start(options: Parameters<typeof createTestApp>[0] = {}): Promise<TestApp> {
  const app = await createTestApp(options);
  apps.push(app);
  return app;
}

function balance(
  app: TestApp,
  key: TestKey,
  options: { remoteAddress?: string; headers?: Record<string, string> } = {},
) {
  return app.http.inject({
    method: 'GET',
    url: '/me/balance',
    headers: { ...key.auth, ...options.headers },
    remoteAddress: options.remoteAddress,
  });
}

function expectError(res: { statusCode: number; json(): unknown }, status: number, code: string) {
  expect(res.statusCode).toBe(status);
  expect(res.json()).toEqual({
    error: { message: expect.any(String), type: expect.any(String), code, param: null },
  });
}

describe('allowed_ip_cidrs', () => {
  it.each([
    ['an IPv4 CIDR', ['10.0.0.0/8'], '10.20.30.40', '11.0.0.1'],
    ['a single IPv4 address', ['203.0.113.7'], '203.0.113.7', '203.0.113.8'],
    ['an IPv6 CIDR', ['2001:db8:1::/48'], '2001:db8:1:ff::9', '2001:db8:2::1'],
    ['a single IPv6 address', ['2001:db8::42'], '2001:db8::42', '2001:db8::43'],
    [
      'an IPv4 CIDR and an IPv4-mapped IPv6 caller',
      ['192.168.0.0/16'],
      '::ffff:192.168.5.5',
      '::ffff:192.169.0.1',
    ],
  ])('%s: inside answers, outside is 403 ip_not_allowed', async (_name, cidrs, inside, outside) => {
    const app = await start();
    const key = await app.newKey({ restrictions: { allowed_ip_cidrs: cidrs } });
    expect((await balance(app, key, { remoteAddress: inside })).statusCode).toBe(200);
    expectError(await balance(app, key, { remoteAddress: outside }), 403, 'ip_not_allowed');
  });

  it('checks the key first: a wrong key from a foreign address is 401, not 403', async () => {
    const app = await start();
    await app.newKey({ restrictions: { allowed_ip_cidrs: ['10.0.0.0/8'] } });
    const res = await app.http.inject({
      method: 'GET',
      url: '/me/balance',
      headers: { authorization: 'Bearer sk_live_notarealkey000000000000' },
      remoteAddress: '11.0.0.1',
    });
    expectError(res, 401, 'invalid_api_key');
  });

  it('a refused address does not use up the rate limit', async () => {
    const app = await start();
    const key = await app.newKey({
      restrictions: { allowed_ip_cidrs: ['10.0.0.0/8'], rate_limit_per_min: 2 },
    });
    for (let i = 0; i < 3; i++)
      expect((await balance(app, key, { remoteAddress: '11.0.0.1' })).statusCode).toBe(403);
    expect((await balance(app, key, { remoteAddress: '10.0.0.1' })).statusCode).toBe(200);
    expect((await balance(app, key, { remoteAddress: '10.0.0.1' })).statusCode).toBe(200);
  });

  it('ignores X-Forwarded-For without TRUST_PROXY, so a client cannot claim an allowed address', async () => {
    const app = await start();
    const key = await app.newKey({ restrictions: { allowed_ip_cidrs: ['10.0.0.0/8'] } });
    const spoofed = await balance(app, key, {
      remoteAddress: '198.51.100.9',
      headers: { 'x-forwarded-for': '10.0.0.1' },
    });
    expectError(spoofed, 403, 'ip_not_allowed');
  });

  it('honours X-Forwarded-For with TRUST_PROXY=true', async () => {
    const app = await start({ env: { TRUST_PROXY: 'true' } });
    const key = await app.newKey({ restrictions: { allowed_ip_cidrs: ['10.0.0.0/8'] } });
    expect(
      (await balance(app, key, { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '10.0.0.1' } }))
        .statusCode,
    ).toBe(200);
    expectError(
      await balance(app, key, { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '198.51.100.9' } }),
      403,
      'ip_not_allowed',
    );
  });

  it('with a proxy list, trusts X-Forwarded-For only from those proxies', async () => {
    const app = await start({ env: { TRUST_PROXY: '127.0.0.1,172.16.0.0/12' } });
    const key = await app.newKey({ restrictions: { allowed_ip_cidrs: ['10.0.0.0/8'] } });
    const viaProxy = await balance(app, key, {
      remoteAddress: '172.16.3.4',
      headers: { 'x-forwarded-for': '10.9.9.9' },
    });
    expect(viaProxy.statusCode).toBe(200);
    // A client that is not one of the proxies is judged by its own address.
    const direct = await balance(app, key, {
      remoteAddress: '198.51.100.9',
      headers: { 'x-forwarded-for': '10.9.9.9' },
    });
    expectError(direct, 403, 'ip_not_allowed');
    // A forged entry in front of the proxy's own is not trusted: the hop the proxy saw decides.
    const forged = await balance(app, key, {
      remoteAddress: '172.16.3.4',
      headers: { 'x-forwarded-for': '10.0.0.1, 198.51.100.9' },
    });
    expectError(forged, 403, 'ip_not_allowed');
  });

  it('a restriction set by PATCH /admin/keys applies to the next request, and null clears it', async () => {
    const app = await start();
    const key = await app.newKey();
    expect((await balance(app, key, { remoteAddress: '198.51.100.9' })).statusCode).toBe(200);
    await patchKey(app, key, { allowed_ip_cidrs: ['10.0.0.0/8'] });
    expect((await balance(app, key, { remoteAddress: '198.51.100.9' })).statusCode).toBe(403);
    await patchKey(app, key, { allowed_ip_cidrs: null });
    expect((await balance(app, key, { remoteAddress: '198.51.100.9' })).statusCode).toBe(200);
  });
});

describe('rate_limit_per_min (in memory)', () => {
  it('gives a key limited to 5 per minute 5 answers, then 429 with Retry-After and RateLimit-* headers', async () => {
    const app = await start();
    const key = await app.newKey({ restrictions: { rate_limit_per_min: 5 } });
    const answers = [];
    // Across all of the key's requests, not per endpoint.
    for (let i = 0; i < 5; i++) {
      answers.push(
        await app.http.inject({ method: 'GET', url: i % 2 ? '/me/keys' : '/me/balance', headers: key.auth }),
      );
    }
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.map((r) => r.headers['ratelimit-remaining'])).toEqual(['4', '3', '2', '1', '0']);
    for (const r of answers) expect(r.headers['ratelimit-limit']).toBe('5');

    const refused = await balance(app, key);
    expectError(refused, 429, 'rate_limited');
    expect(refused.headers['ratelimit-limit']).toBe('5');
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    const reset = Number(refused.headers['ratelimit-reset']);
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(60);
    expect(refused.headers['retry-after']).toBe(String(reset));
    expect(refused.headers['ratelimit-policy']).toBe('5;w=60');
  });

  it('limits keys separately, even keys of one account', async () => {
    const app = await start();
    const first = await app.newKey({ restrictions: { rate_limit_per_min: 1 } });
    const second = await app.newKey({
      messagingId: first.messagingId,
      restrictions: { rate_limit_per_min: 1 },
    });
    expect((await balance(app, first)).statusCode).toBe(200);
    expect((await balance(app, first)).statusCode).toBe(429);
    expect((await balance(app, second)).statusCode).toBe(200);
  });

  it('applies the default of 600 per minute when the key has none', async () => {
    const app = await start();
    const key = await app.newKey();
    const res = await balance(app, key);
    expect(res.statusCode).toBe(200);
    expect(res.headers['ratelimit-limit']).toBe('600');
    expect(res.headers['ratelimit-remaining']).toBe('599');
  });

  it('takes the default from DEFAULT_RATE_LIMIT_PER_MIN', async () => {
    const app = await start({ env: { DEFAULT_RATE_LIMIT_PER_MIN: '3' } });
    const key = await app.newKey();
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await balance(app, key)).statusCode);
    expect(codes).toEqual([200, 200, 200, 429]);
  });

  it('a changed limit takes effect at once, counting the requests already made', async () => {
    const app = await start();
    const key = await app.newKey({ restrictions: { rate_limit_per_min: 2 } });
    await balance(app, key);
    await balance(app, key);
    expect((await balance(app, key)).statusCode).toBe(429);
    await patchKey(app, key, { rate_limit_per_min: 5 }); // 3 used so far, refusals included
    const raised = await balance(app, key);
    expect(raised.statusCode).toBe(200);
    expect(raised.headers['ratelimit-limit']).toBe('5');
    expect(raised.headers['ratelimit-remaining']).toBe('1');
    await patchKey(app, key, { rate_limit_per_min: null }); // back to the default 600
    expect((await balance(app, key)).headers['ratelimit-limit']).toBe('600');
  });

  it('does not count or limit public and admin endpoints', async () => {
    const app = await start({ env: { DEFAULT_RATE_LIMIT_PER_MIN: '1' } });
    for (let i = 0; i < 3; i++) {
      const res = await app.http.inject({
        method: 'GET',
        url: '/public/models',
        headers: { authorization: 'Bearer sk_live_whatever0000000000000' },
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
  });

  it("webhook deliveries do not count against the limit; the client's own requests do", async () => {
    const app = await start();
    const delivered: string[] = [];
    const receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        delivered.push(String(req.headers['webhook-id']));
        res.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const workers = await startWorkers(app.ctx, () => {});
    try {
      const key = await app.newKey({ restrictions: { rate_limit_per_min: 5 } });
      const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const created = await app.http.inject({
        method: 'POST',
        url: '/generate',
        headers: key.auth,
        payload: { params: { model_name: 'flux-1-1-pro', prompt: 'a kite', webhook_url: hook } },
      });
      expect(created.statusCode).toBe(202);
      expect(created.headers['ratelimit-remaining']).toBe('4');
      for (let waited = 0; delivered.length === 0 && waited < 10_000; waited += 20)
        await new Promise((r) => setTimeout(r, 20));
      expect(delivered).toHaveLength(1);
      expect((await balance(app, key)).headers['ratelimit-remaining']).toBe('3');
    } finally {
      for (const worker of workers) await worker.stop();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
