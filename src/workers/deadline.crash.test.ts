// The deadline defect, reproduced as its report describes it, on each engine: an embedded server
// (API + worker in one process) with PROVIDER_TIMEOUT_MS=3000 accepts a task whose upstream job
// takes 1.5 s, is killed with SIGKILL 0.7 s after the submit, and comes back 4 s later. The outage
// is not provider time, and the job has finished: the task completes and is charged, never failed
// and refunded.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../storage/db.js';
import { checkLedger } from '../storage/ledger/ledger-check.js';
import { migrateToLatest } from '../storage/migrations.js';
import { createTestApp, type TestApp } from '../testing/app.js';
import { ENGINES, openTestDb, type TestDb } from '../testing/db.js';
import { freePort } from '../testing/tasks.js';

const BIN = fileURLToPath(new URL('../../bin/gengate.mjs', import.meta.url));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

function startServer(env: Record<string, string>): { child: ChildProcess; exited: Promise<unknown> } {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'test',
      DEMO: 'false',
      LOG_LEVEL: 'warn',
      PROVIDER_TIMEOUT_MS: '3000',
      WORKER_POLL_INTERVAL_MS: '20',
      LEASE_MS: '30000',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  return { child, exited: new Promise((resolve) => child.once('exit', resolve)) };
}

async function until<T>(
  probe: () => Promise<T | undefined | false>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.each(ENGINES)('the provider timeout across a crash, on %s', (engine) => {
  let dir: string;
  let db: TestDb;
  let app: TestApp;

  afterAll(async () => {
    await app?.dispose();
    await db?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a server killed 0.7 s after the submit and restarted 4 s later completes the finished job', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gengate-deadline-'));
    if (engine === 'sqlite') {
      // The file the server opens in DATA_DIR.
      const inner = openSqlite(join(dir, 'gengate.db'));
      await migrateToLatest(inner);
      db = { ...inner, file: join(dir, 'gengate.db'), dispose: () => inner.close() };
    } else {
      db = await openTestDb('postgres');
    }
    app = await createTestApp({ db, config: { dataDir: dir } });
    const key = await app.newKey({ balanceRub: 100 });
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const env = {
      PORT: String(port),
      DATA_DIR: dir,
      PUBLIC_URL: origin,
      ...(db.url ? { DATABASE_URL: db.url } : {}),
    };

    let server = startServer(env);
    await until(async () => (await fetch(`${origin}/healthz`)).ok, 30_000, 'the server to start');
    const created = await fetch(`${origin}/generate`, {
      method: 'POST',
      headers: { ...key.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ params: { model_name: 'seedance-2', prompt: 'ok [sim:delay=1500]' } }),
    });
    expect(created.status).toBe(202);
    const taskId = ((await created.json()) as { task_id: string }).task_id;
    const row = () => app.ctx.storage.tasks.byIdForWorker(taskId);
    await until(async () => (await row())?.provider_job_id, 5_000, 'the job id to be stored');
    const submittedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, submittedAt + 700 - Date.now())));
    server.child.kill('SIGKILL');
    await server.exited;
    expect((await row())?.status).toBe('processing');

    await new Promise((resolve) => setTimeout(resolve, 4_000));
    server = startServer(env);
    const final = await until(
      async () => {
        const task = await row();
        return task && (task.status === 'completed' || task.status === 'failed') && task;
      },
      30_000,
      'the task to end',
    );
    server.child.kill('SIGTERM');
    await server.exited;

    expect(final).toMatchObject({ status: 'completed', error: null, attempts: 1 });
    expect(Number(final.cost)).toBe(45_000_000);
    const balance = await app.ctx.storage.keys.balanceOf(key.keyId);
    expect({ balance: Number(balance?.balance), held: Number(balance?.held) }).toEqual({
      balance: 55_000_000,
      held: 0,
    });
    expect(await checkLedger(app.ctx.storage.db)).toEqual([]);
  }, 90_000);
});
