// GET /readyz: 200 when the database answers, Redis answers (when configured) and every migration is
// applied; 503 in the error shape naming the failed component otherwise; open in maintenance mode.
// GET /healthz stays the liveness probe. pendingMigrations() on both engines.
import { createServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../storage/db.js';
import { migrateToLatest, pendingMigrations } from '../storage/migrations.js';
import { Storage } from '../storage/storage.js';
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../testing/app.js';
import { ENGINES, openTestDb } from '../testing/db.js';
import { HAVE_REDIS, REDIS_URL } from '../testing/services.js';
import { buildHttpApp } from './server.js';

let app: TestApp;
const extraApps: FastifyInstance[] = [];
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await Promise.all(extraApps.map((a) => a.close()));
  await app?.dispose();
});

/** The HTTP app over the test app's services, with some of them replaced. */
async function variant(change: (ctx: TestApp['ctx']) => Partial<TestApp['ctx']>): Promise<FastifyInstance> {
  const http = await buildHttpApp({ ...app.ctx, ...change(app.ctx) });
  extraApps.push(http);
  return http;
}

/** A loopback port with nothing listening. */
function closedPort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

describe('GET /readyz', () => {
  it('answers 200 with every check when ready, without a key', async () => {
    const res = await app.http.inject({ url: '/readyz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'ready',
      checks: { database: 'ok', redis: 'not_configured', migrations: 'ok' },
    });
  });

  it('keeps answering in maintenance mode, as /healthz and /version do', async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const set = (enabled: boolean) =>
      app.http.inject({ method: 'PUT', url: '/admin/maintenance', headers: admin, payload: { enabled } });
    expect((await set(true)).statusCode).toBe(200);
    try {
      expect((await app.http.inject({ url: '/public/models' })).statusCode).toBe(503);
      expect((await app.http.inject({ url: '/readyz' })).statusCode).toBe(200);
      expect((await app.http.inject({ url: '/healthz' })).statusCode).toBe(200);
      expect((await app.http.inject({ url: '/version' })).statusCode).toBe(200);
    } finally {
      await set(false);
    }
  });

  it('answers 503 naming the database when it does not answer', async () => {
    const dir = await openTestDb('sqlite');
    const closed = openSqlite(dir.file!);
    await pendingMigrations(closed); // opened (connections are made at the first query), then closed
    await closed.close();
    const http = await variant(() => ({ storage: Storage.from(closed) }));
    const res = await http.inject({ url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toEqual({
      error: {
        message: 'Not ready: database, migrations failed',
        type: 'service_unavailable',
        code: 'not_ready',
        param: null,
      },
      checks: { database: 'failed', redis: 'not_configured', migrations: 'failed' },
    });
    await dir.dispose();
  });

  it('answers 503 naming the migrations while the schema is behind', async () => {
    const db = await openTestDb('sqlite', { migrate: false });
    try {
      const http = await variant(() => ({ storage: Storage.from(db) }));
      const res = await http.inject({ url: '/readyz' });
      expect(res.statusCode).toBe(503);
      expect(res.json().error).toMatchObject({ code: 'not_ready', message: 'Not ready: migrations failed' });
      expect(res.json().checks).toEqual({ database: 'ok', redis: 'not_configured', migrations: 'failed' });

      await migrateToLatest(db);
      expect((await http.inject({ url: '/readyz' })).statusCode).toBe(200);
    } finally {
      await db.dispose();
    }
  });

  it('answers 503 naming Redis when REDIS_URL is set and nothing answers there', async () => {
    const port = await closedPort();
    const http = await variant((ctx) => ({
      config: { ...ctx.config, redisUrl: `redis://127.0.0.1:${port}` },
    }));
    const started = Date.now();
    const res = await http.inject({ url: '/readyz' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(res.statusCode).toBe(503);
    expect(res.json().error.message).toBe('Not ready: redis failed');
    expect(res.json().checks).toEqual({ database: 'ok', redis: 'failed', migrations: 'ok' });
  });

  it.skipIf(!HAVE_REDIS)('answers 200 when Redis answers PING', async () => {
    const http = await variant((ctx) => ({ config: { ...ctx.config, redisUrl: REDIS_URL } }));
    const res = await http.inject({ url: '/readyz' });
    expect(res.statusCode).toBe(200);
    expect(res.json().checks).toEqual({ database: 'ok', redis: 'ok', migrations: 'ok' });
  });
});

describe.each(ENGINES)('pendingMigrations (%s)', (engine) => {
  it('lists every migration before the first run and none after', async () => {
    const db = await openTestDb(engine, { migrate: false });
    try {
      const before = await pendingMigrations(db);
      expect(before.length).toBeGreaterThan(0);
      expect(before).toEqual([...before].sort());
      const applied = await migrateToLatest(db);
      expect(applied).toEqual(before);
      expect(await pendingMigrations(db)).toEqual([]);
    } finally {
      await db.dispose();
    }
  });
});
