// METRICS_PORT: the scrape listener (GET /metrics, GET /healthz, nothing else), its setting, and a
// real `gengate serve --role worker` process that serves no API but answers a scrape.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.js';
import { Metrics } from '../services/metrics.js';
import { startMetricsServer } from './metrics-server.js';

const ROOT = resolve(import.meta.dirname, '../..');

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolveRefused) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolveRefused(false);
    });
    socket.once('error', () => resolveRefused(true));
  });
}

describe('the scrape listener', () => {
  it('serves /metrics and /healthz, and answers anything else 404 in the error shape', async () => {
    const metrics = new Metrics();
    metrics.tasksCreated.labels('m').inc(2);
    const server = await startMetricsServer(metrics, '127.0.0.1', 0);
    try {
      const base = `http://127.0.0.1:${server.port}`;
      const scrape = await fetch(`${base}/metrics`);
      expect(scrape.status).toBe(200);
      expect(scrape.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      expect(await scrape.text()).toContain('gengate_tasks_created_total{model="m"} 2');
      const health = await fetch(`${base}/healthz`);
      expect(await health.json()).toEqual({ status: 'ok' });
      for (const [method, path] of [
        ['GET', '/me/balance'],
        ['POST', '/metrics'],
        ['GET', '/'],
      ]) {
        const res = await fetch(`${base}${path}`, { method });
        expect(res.status).toBe(404);
        expect(((await res.json()) as { error: unknown }).error).toMatchObject({
          code: 'not_found',
          type: 'not_found_error',
        });
      }
    } finally {
      await server.close();
    }
  });

  it('with METRICS_TOKEN wants it as a bearer token on /metrics, and never on /healthz', async () => {
    const token = 'prometheus-scrape-token-1';
    const server = await startMetricsServer(new Metrics(), '127.0.0.1', 0, token);
    try {
      const base = `http://127.0.0.1:${server.port}`;
      for (const headers of [
        {} as Record<string, string>,
        { authorization: 'Bearer wrong-token-0123456789' },
        { authorization: token },
      ]) {
        const res = await fetch(`${base}/metrics`, { headers });
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
        expect(((await res.json()) as { error: unknown }).error).toMatchObject({ code: 'invalid_api_key' });
      }
      const ok = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('# TYPE');
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('METRICS_PORT is optional, a port, and not PORT', () => {
    expect(loadConfig({}).metricsPort).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    for (const bad of ['x', '0', '70000', '8080'])
      expect(() => loadConfig({ METRICS_PORT: bad }), bad).toThrow(ConfigError);
  });
});

describe('a worker process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gengate-worker-metrics-'));
  let child: ChildProcess | undefined;
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((done) => child?.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves no API but answers a scrape on METRICS_PORT', async () => {
    const [apiPort, metricsPort] = [await freePort(), await freePort()];
    let stderr = '';
    child = spawn(process.execPath, ['bin/gengate.mjs', 'serve', '--role', 'worker'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? dir,
        DATA_DIR: dir,
        PORT: String(apiPort),
        METRICS_PORT: String(metricsPort),
        DEMO: 'false',
        LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const deadline = Date.now() + 90_000;
    let body: string | undefined;
    while (body === undefined) {
      if (child.exitCode !== null) throw new Error(`the worker exited: ${stderr}`);
      if (Date.now() > deadline) throw new Error(`no scrape answer within 90 s: ${stderr}`);
      body = await fetch(`http://127.0.0.1:${metricsPort}/metrics`)
        .then((res) => (res.ok ? res.text() : undefined))
        .catch(() => undefined);
      if (body === undefined) await new Promise((done) => setTimeout(done, 200));
    }
    expect(body).toContain('gengate_task_lease_takeovers_total 0');
    expect(body).toContain('gengate_task_queue_depth{status="pending"} 0');
    expect(body).toContain('# TYPE process_cpu_user_seconds_total counter');
    expect(await refusesConnections(apiPort)).toBe(true);
  }, 120_000);
});
