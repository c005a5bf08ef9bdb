// GET /status.json and GET /status after real traffic through the simulator: tasks that succeed and
// fail (so every success rate is a real fraction), chat requests, a live worker. The figures must
// match the rows; nothing about an account, key, task or prompt may appear.
import { createServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_CACHE_MS, type StatusReport } from '../../../services/status.js';
import { startWorkerHeartbeat, type WorkerHeartbeat } from '../../../services/status-heartbeat.js';
import { openSqlite } from '../../../storage/db.js';
import { WorkerHeartbeatsRepository } from '../../../storage/repositories/worker-heartbeats.js';
import { Storage } from '../../../storage/storage.js';
import type { TestKey } from '../../../testing/app.js';
import { openTestDb } from '../../../testing/db.js';
import { HAVE_REDIS, REDIS_URL } from '../../../testing/services.js';
import { createTaskTestApp, generate, type TaskTestApp, waitForFinal } from '../../../testing/tasks.js';
import { buildHttpApp } from '../../server.js';
import { STATUS_REPORT_SCHEMA } from './status.js';

let app: TaskTestApp;
let key: TestKey;
let heartbeat: WorkerHeartbeat;
const taskIds: string[] = [];
const PROMPT_MARK = 'zebra-lighthouse-7731';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The median seconds the page should show for a family, from the task rows themselves. */
async function taskMedianSeconds(kind: string): Promise<number> {
  const rows = await app.ctx.storage.db
    .selectFrom('tasks')
    .select(['created_at', 'finished_at'])
    .where('kind', '=', kind)
    .where('status', '=', 'completed')
    .execute();
  return Math.round(median(rows.map((r) => Number(r.finished_at) - Number(r.created_at))) / 100) / 10;
}

async function statusJson(): Promise<StatusReport> {
  const res = await app.http.inject({ method: 'GET', url: '/status.json' });
  expect(res.statusCode).toBe(200);
  return res.json() as StatusReport;
}

beforeAll(async () => {
  app = await createTaskTestApp();
  key = await app.newKey({ balanceRub: 5000 });
  heartbeat = startWorkerHeartbeat(
    new WorkerHeartbeatsRepository(app.ctx.storage.db),
    app.ctx.clock,
    () => {},
  );

  const media: Array<[string, string, Record<string, unknown>]> = [
    // Image: 3 succeed, 2 fail → 0.6.
    ['flux-1-1-pro', `a fox ${PROMPT_MARK}`, {}],
    ['flux-1-1-pro', `a heron ${PROMPT_MARK} [sim:delay=120]`, {}],
    ['flux-1-1-pro', `a owl ${PROMPT_MARK} [sim:delay=60]`, {}],
    ['flux-1-1-pro', `a cat ${PROMPT_MARK} [sim:fail=overload]`, {}],
    ['flux-1-1-pro', `a cat ${PROMPT_MARK} [sim:fail=reject]`, {}],
    // Video: 1 succeeds, 2 fail → 0.3333.
    ['seedance-2', `waves ${PROMPT_MARK}`, { duration: 5 }],
    ['seedance-2', `waves ${PROMPT_MARK} [sim:fail=billing]`, { duration: 5 }],
    ['seedance-2', `waves ${PROMPT_MARK} [sim:fail=overload]`, { duration: 5 }],
  ];
  for (const [model_name, prompt, extra] of media) {
    const res = await generate(app, key, { model_name, prompt, ...extra });
    expect(res.statusCode).toBe(202);
    taskIds.push(res.json().task_id);
  }
  for (const id of taskIds) await waitForFinal(app, key, id);

  // Text: 3 succeed, 1 fails → 0.75.
  const chat = (content: string) =>
    app.http.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: key.auth,
      payload: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: `${content} ${PROMPT_MARK}` }] },
    });
  for (const content of ['hello [sim:tokens=3]', 'hi [sim:tokens=4]', 'hey [sim:tokens=5]'])
    expect((await chat(content)).statusCode).toBe(200);
  expect((await chat('no [sim:fail=overload]')).statusCode).toBe(502);
}, 60_000);

const variants: FastifyInstance[] = [];
afterAll(async () => {
  await Promise.all(variants.map((variant) => variant.close()));
  await heartbeat?.stop();
  await app?.dispose();
});

/** The HTTP app over the test app's services, with some of them replaced. */
async function variant(change: (ctx: TaskTestApp['ctx']) => Partial<TaskTestApp['ctx']>) {
  const http = await buildHttpApp({ ...app.ctx, ...change(app.ctx) });
  variants.push(http);
  return http;
}

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

describe('GET /status.json', () => {
  it('gives each component its health and the last hour per family, from the rows', async () => {
    const report = await statusJson();
    // The simulator failed 4 of its last 11 requests for reasons of its own (the refused prompt is
    // not held against it): below 90 %, so it is degraded, and so is the whole.
    expect(report.status).toBe('degraded');
    expect(report.window_seconds).toBe(3600);
    expect(Date.now() - Date.parse(report.updated_at)).toBeLessThan(60_000);

    const byId = Object.fromEntries(report.components.map((c) => [c.id, c]));
    expect(byId.api).toMatchObject({ name: 'API', type: 'core', status: 'operational' });
    expect(byId.database).toMatchObject({ type: 'core', status: 'operational' });
    // No REDIS_URL: no Redis component.
    expect(byId.redis).toBeUndefined();
    expect(byId.workers).toMatchObject({
      status: 'operational',
      workers: { live: 1, queue_wait_seconds: 0 },
    });
    // Without PROVIDERS_FILE every model runs on the simulator: one provider, all the work.
    expect(report.components.filter((c) => c.type === 'provider').map((c) => c.id)).toEqual([
      'provider:simulator',
    ]);
    expect(byId['provider:simulator']).toMatchObject({
      status: 'degraded',
      last_hour: { succeeded: 3 + 1 + 3, failed: 2 + 2 + 1, success_rate: Math.round((7 / 12) * 1e4) / 1e4 },
    });

    const families = Object.fromEntries(report.families.map((f) => [f.family, f]));
    expect(report.families.map((f) => f.family)).toEqual(['video', 'image', 'text']);
    expect(families.image).toMatchObject({ succeeded: 3, failed: 2, success_rate: 0.6 });
    expect(families.video).toMatchObject({ succeeded: 1, failed: 2, success_rate: 0.3333 });
    expect(families.text).toMatchObject({ succeeded: 3, failed: 1, success_rate: 0.75 });
    expect(families.image.median_seconds).toBe(await taskMedianSeconds('image'));
    expect(families.video.median_seconds).toBe(await taskMedianSeconds('video'));
    const chatLatencies = await app.ctx.storage.db
      .selectFrom('usage_records')
      .select('latency_ms')
      .where('status', '=', 'completed')
      .execute();
    expect(chatLatencies).toHaveLength(3);
    expect(families.text.median_seconds).toBe(
      Math.round(median(chatLatencies.map((r) => Number(r.latency_ms))) / 100) / 10,
    );
  });

  it('shows nothing about accounts, keys, tasks or prompts, and only the documented fields', async () => {
    const res = await app.http.inject({ method: 'GET', url: '/status.json' });
    const html = (await app.http.inject({ method: 'GET', url: '/status' })).body;
    const account = await app.ctx.storage.accounts.byMessagingId(key.messagingId);
    const secrets = [
      key.secret,
      key.secret.slice(0, 12),
      PROMPT_MARK,
      account?.webhook_secret ?? 'never',
      ...taskIds,
    ];
    for (const text of [res.body, html]) for (const secret of secrets) expect(text).not.toContain(secret);
    expect(res.body).not.toMatch(/messaging|account|key_id|task_id|prompt/i);

    // Every field of the answer is in the schema (Fastify serializes by it, so nothing else can go out).
    const report = res.json() as StatusReport;
    const itemFields = (schema: { items: { properties: object } }) => Object.keys(schema.items.properties);
    expect(Object.keys(report).sort()).toEqual(Object.keys(STATUS_REPORT_SCHEMA.properties).sort());
    for (const component of report.components)
      for (const field of Object.keys(component))
        expect(itemFields(STATUS_REPORT_SCHEMA.properties.components)).toContain(field);
    for (const family of report.families)
      expect(Object.keys(family).sort()).toEqual(itemFields(STATUS_REPORT_SCHEMA.properties.families).sort());
  });

  it('needs no key, and is cached so traffic cannot load the database', async () => {
    const first = await app.http.inject({ method: 'GET', url: '/status.json' });
    expect(first.headers['cache-control']).toBe(`public, max-age=${STATUS_CACHE_MS / 1000}`);
    // New work inside the cache period does not reach the answer: one computation served both.
    const res = await generate(app, key, { model_name: 'flux-1-1-pro', prompt: 'another' });
    await waitForFinal(app, key, res.json().task_id);
    const second = await app.http.inject({ method: 'GET', url: '/status.json' });
    expect(second.json().updated_at).toBe(first.json().updated_at);
    expect(second.json().families).toEqual(first.json().families);
  });

  it('keeps answering in maintenance mode', async () => {
    await app.ctx.maintenance.set(true);
    try {
      expect((await app.http.inject({ method: 'GET', url: '/public/models' })).statusCode).toBe(503);
      const res = await app.http.inject({ method: 'GET', url: '/status.json' });
      expect(res.statusCode).toBe(200);
      expect((await app.http.inject({ method: 'GET', url: '/status' })).statusCode).toBe(200);
    } finally {
      await app.ctx.maintenance.set(false);
    }
  });
});

describe('GET /status', () => {
  it('renders the same figures as HTML for people', async () => {
    const report = await statusJson();
    const res = await app.http.inject({ method: 'GET', url: '/status' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.body).toContain('Some systems are degraded');
    expect(res.body).toMatch(/data-component="provider:simulator">.*data-status="degraded">Degraded</);
    expect(res.body).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(res.body).toContain('prefers-color-scheme:dark');
    expect(res.body).toContain('60.0 %');
    expect(res.body).toContain('33.3 %');
    expect(res.body).toContain('75.0 %');
    const image = report.families.find((f) => f.family === 'image');
    expect(res.body).toContain(`${image?.median_seconds?.toFixed(1)} s`);
    expect(res.body).toContain('1 live worker process');
    expect(res.body).not.toContain('<script');
  });
});

describe('when a component is down', () => {
  it('Redis, when configured and not answering: down within seconds, and so is the whole', async () => {
    const port = await closedPort();
    const http = await variant((ctx) => ({
      config: { ...ctx.config, redisUrl: `redis://127.0.0.1:${port}` },
    }));
    const started = Date.now();
    const res = await http.inject({ method: 'GET', url: '/status.json' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(res.statusCode).toBe(200);
    const report = res.json() as StatusReport;
    expect(report.components.find((c) => c.id === 'redis')).toMatchObject({ type: 'core', status: 'down' });
    expect(report.status).toBe('down');
    expect(res.body).not.toContain(String(port));
  });

  it.skipIf(!HAVE_REDIS)('Redis, when configured and answering: operational', async () => {
    const http = await variant((ctx) => ({ config: { ...ctx.config, redisUrl: REDIS_URL } }));
    const report = (await http.inject({ method: 'GET', url: '/status.json' })).json() as StatusReport;
    expect(report.components.find((c) => c.id === 'redis')?.status).toBe('operational');
  });

  it('the database: down, the rest unknown, no figures, and the page says so', async () => {
    const dir = await openTestDb('sqlite');
    const closed = openSqlite(dir.file as string);
    await closed.kysely.selectFrom('tasks').select('id').limit(1).execute(); // connect, then close
    await closed.close();
    try {
      const http = await variant(() => ({ storage: Storage.from(closed) }));
      const res = await http.inject({ method: 'GET', url: '/status.json' });
      expect(res.statusCode).toBe(200);
      const report = res.json() as StatusReport;
      expect(report.status).toBe('down');
      const byId = Object.fromEntries(report.components.map((c) => [c.id, c.status]));
      expect(byId).toMatchObject({ api: 'operational', database: 'down', workers: 'unknown' });
      expect(report.families).toEqual([]);
      const html = (await http.inject({ method: 'GET', url: '/status' })).body;
      expect(html).toContain('Major outage');
      expect(html).toContain('The figures cannot be read while the database is down.');
    } finally {
      await dir.dispose();
    }
  });
});
