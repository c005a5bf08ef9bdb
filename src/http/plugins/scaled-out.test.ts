// Two API processes on one database: the rate limit is shared through Redis, and a key change made
// on one process is enforced by the other within 1 s (at once on the first).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../cli/cli.js';
import type { Config } from '../../config.js';
import { openPostgres, openSqlite } from '../../storage/db.js';
import {
  ADMIN_TOKEN,
  createTestApp,
  patchKey,
  type TestApp,
  type TestKey,
  testConfig,
} from '../../testing/app.js';
import { ENGINES, type TestDb } from '../../testing/db.js';
import { HAVE_REDIS, REDIS_URL } from '../../testing/services.js';

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** Process A on a fresh database, and process B on its own connection to the same database. */
async function twoProcesses(
  engine: 'sqlite' | 'postgres',
  options: { config?: Partial<Config>; env?: Record<string, string> },
) {
  const a = await createTestApp({ engine, ...options });
  cleanup.push(() => a.dispose());
  const inner = a.db.file ? openSqlite(a.db.file) : openPostgres(a.db.url!, 5);
  const secondConnection: TestDb = { ...inner, dispose: () => inner.close() };
  const b = await createTestApp({ db: secondConnection, ...options });
  cleanup.push(async () => {
    await b.dispose();
    await secondConnection.dispose();
  });
  return { a, b };
}

function balance(app: TestApp, key: TestKey) {
  return app.http.inject({ method: 'GET', url: '/me/balance', headers: key.auth });
}

/** Polls until `done` holds; returns the milliseconds it took, failing after `limitMs`. */
async function msUntil(done: () => Promise<boolean>, limitMs: number): Promise<number> {
  const started = performance.now();
  while (!(await done())) {
    if (performance.now() - started > limitMs) throw new Error(`not within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return performance.now() - started;
}

describe.skipIf(!HAVE_REDIS).each(ENGINES)('two API processes sharing Redis (%s)', (engine) => {
  // A cache TTL far above 1 s: only the Redis invalidation channel can make B notice in time.
  const options = { env: { REDIS_URL }, config: { keyCacheTtlMs: 60_000 } };

  it('share one rate limit: 5 per minute across both, then 429 on both', async () => {
    const { a, b } = await twoProcesses(engine, options);
    const key = await a.newKey({ restrictions: { rate_limit_per_min: 5 } });
    const codes = [];
    for (let i = 0; i < 5; i++) codes.push((await balance(i % 2 ? b : a, key)).statusCode);
    expect(codes).toEqual([200, 200, 200, 200, 200]);
    for (const app of [a, b]) {
      const refused = await balance(app, key);
      expect(refused.statusCode).toBe(429);
      expect(refused.json().error.code).toBe('rate_limited');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(refused.headers['ratelimit-limit']).toBe('5');
      expect(refused.headers['ratelimit-remaining']).toBe('0');
    }
  });

  it('a restriction change on A is enforced at once on A and within 1 s on B', async () => {
    const { a, b } = await twoProcesses(engine, options);
    const key = await a.newKey();
    // Both processes have the unrestricted key cached.
    expect((await balance(a, key)).statusCode).toBe(200);
    expect((await balance(b, key)).statusCode).toBe(200);

    await patchKey(a, key, { allowed_ip_cidrs: ['10.0.0.0/8'], rate_limit_per_min: 50 });
    expect((await balance(a, key)).statusCode).toBe(403);
    const elapsed = await msUntil(async () => (await balance(b, key)).statusCode === 403, 1000);
    expect(elapsed).toBeLessThan(1000);

    await patchKey(a, key, { allowed_ip_cidrs: null });
    await msUntil(async () => (await balance(b, key)).headers['ratelimit-limit'] === '50', 1000);
  });

  it('a key deleted on A answers 401 on A at once and on B within 1 s', async () => {
    const { a, b } = await twoProcesses(engine, options);
    const key = await a.newKey();
    expect((await balance(b, key)).statusCode).toBe(200);
    const deleted = await a.http.inject({
      method: 'DELETE',
      url: `/admin/keys/${key.keyId}`,
      headers: admin,
    });
    expect(deleted.statusCode).toBe(204);
    expect((await balance(a, key)).statusCode).toBe(401);
    const elapsed = await msUntil(async () => (await balance(b, key)).statusCode === 401, 1000);
    expect(elapsed).toBeLessThan(1000);
    expect((await balance(b, key)).json().error.code).toBe('invalid_api_key');
  });

  it('a change made by the CLI (its own context and connections, as a separate process) reaches a running server within 1 s', async () => {
    // The CLI opens DATA_DIR/gengate.db (SQLite) or DATABASE_URL: give the server that very database.
    const dir = mkdtempSync(join(tmpdir(), 'gengate-cli-'));
    cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
    const inner = engine === 'sqlite' ? openSqlite(join(dir, 'gengate.db')) : undefined;
    const server = inner
      ? await createTestApp({
          db: { ...inner, file: join(dir, 'gengate.db'), dispose: () => inner.close() },
          ...options,
        })
      : await createTestApp({ engine, ...options });
    cleanup.push(async () => {
      await server.dispose();
      if (inner) await inner.close();
    });
    const key = await server.newKey();
    expect((await balance(server, key)).statusCode).toBe(200);

    const cliConfig = testConfig({ dataDir: dir, databaseUrl: server.db.url }, { REDIS_URL });
    const quiet = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      expect(await runCli(['key', 'update', String(key.keyId), '--ips', '10.0.0.0/8'], cliConfig)).toBe(0);
    } finally {
      quiet.mockRestore();
    }
    const elapsed = await msUntil(async () => (await balance(server, key)).statusCode === 403, 1000);
    expect(elapsed).toBeLessThan(1000);
  });

  it('two deployments on one Redis (two databases, same key ids) keep separate counters', async () => {
    const first = await createTestApp({ engine, ...options });
    cleanup.push(() => first.dispose());
    const second = await createTestApp({ engine, ...options });
    cleanup.push(() => second.dispose());
    const keyOfFirst = await first.newKey({ restrictions: { rate_limit_per_min: 1 } });
    const keyOfSecond = await second.newKey({ restrictions: { rate_limit_per_min: 1 } });
    expect(keyOfFirst.keyId).toBe(keyOfSecond.keyId); // the row ids collide; the limits must not
    expect((await balance(first, keyOfFirst)).statusCode).toBe(200);
    expect((await balance(second, keyOfSecond)).statusCode).toBe(200);
    expect((await balance(first, keyOfFirst)).statusCode).toBe(429);
  });
});

describe('two processes without Redis (one SQLite file)', () => {
  it('B enforces a change made on A within 1 s through its short cache TTL', async () => {
    const { a, b } = await twoProcesses('sqlite', {});
    expect(b.config.keyCacheTtlMs).toBeLessThanOrEqual(500);
    const key = await a.newKey();
    expect((await balance(b, key)).statusCode).toBe(200);
    await patchKey(a, key, { allowed_ip_cidrs: ['10.0.0.0/8'] });
    expect((await balance(a, key)).statusCode).toBe(403);
    const elapsed = await msUntil(async () => (await balance(b, key)).statusCode === 403, 1000);
    expect(elapsed).toBeLessThan(1000);
  });
});
