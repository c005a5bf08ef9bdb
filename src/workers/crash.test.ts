// Crash test: a worker PROCESS is killed with SIGKILL while it holds tasks; another worker process
// takes over the expired leases. Every task ends final, the ledger is clean, and no task whose
// provider job id was stored is ever submitted again (the job is resumed, not restarted).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openSqlite } from '../storage/db.js';
import { checkLedger } from '../storage/ledger/ledger-check.js';
import { migrateToLatest } from '../storage/migrations.js';
import type { TaskRow } from '../storage/repositories/tasks.js';
import type { TestDb } from '../testing/db.js';
import { createTaskTestApp, generate, type TaskTestApp } from '../testing/tasks.js';

const BIN = fileURLToPath(new URL('../../bin/gengate.mjs', import.meta.url));
const LEASE_MS = 800;

interface Worker {
  child: ChildProcess;
  events: { msg: string; task_id?: string; job_id?: string; stored?: boolean }[];
  stderr: string;
  exited: Promise<number | null>;
}

let dir: string;
let app: TaskTestApp;
const workers: Worker[] = [];

function startWorker(): Worker {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NODE_ENV: 'test',
    DATA_DIR: dir,
    PUBLIC_URL: app.config.publicUrl,
    LOG_LEVEL: 'info',
    DEMO: 'false',
    LEASE_MS: String(LEASE_MS),
    WORKER_POLL_INTERVAL_MS: '20',
    SIM_LATENCY_MS: '1500',
    REQUEUE_DELAY_MS: '200',
    PROVIDER_TIMEOUT_MS: '60000',
  };
  const child = spawn(process.execPath, [BIN, 'serve', '--role', 'worker'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const worker: Worker = {
    child,
    events: [],
    stderr: '',
    exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
  };
  let buffered = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      try {
        worker.events.push(JSON.parse(line));
      } catch {
        // not a log line
      }
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    worker.stderr = (worker.stderr + chunk.toString()).slice(-4000);
  });
  workers.push(worker);
  return worker;
}

const allTasks = () => app.ctx.storage.db.selectFrom('tasks').selectAll().orderBy('created_at').execute();

async function until<T>(
  probe: () => Promise<T | undefined | false>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gengate-crash-'));
  // The file name the worker processes open for DATA_DIR.
  const inner = openSqlite(join(dir, 'gengate.db'));
  await migrateToLatest(inner);
  const db: TestDb = { ...inner, file: join(dir, 'gengate.db'), dispose: () => inner.close() };
  app = await createTaskTestApp({ db, dataDir: dir, runner: false });
});

afterAll(async () => {
  for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
  await app.dispose();
  await app.db.dispose();
  rmSync(dir, { recursive: true, force: true });
});

it('a worker killed with SIGKILL mid-flight: another takes over, every task ends final, ledger clean, no resubmission', async () => {
  const key = await app.newKey({ balanceRub: 10_000 });
  const create = async (params: Record<string, unknown>) => {
    const res = await generate(app, key, params);
    expect(res.statusCode).toBe(202);
  };
  // Finishing early: the worker renders these while holding their leases, which is when it is killed.
  for (let i = 0; i < 8; i++)
    await create({
      model_name: 'seedance-2',
      prompt: `early ${i} [sim:delay=300]`,
      aspect_ratio: i % 2 ? '9:16' : '21:9',
    });
  // Still running at the kill: their stored job ids must be resumed by the next worker. Identical
  // requests render once per process, which keeps the test fast.
  for (let i = 0; i < 8; i++) await create({ model_name: 'seedance-2', prompt: 'late [sim:delay=2500]' });
  for (let i = 0; i < 3; i++)
    await create({ model_name: 'kling-2-1', prompt: 'refused [sim:fail=billing] [sim:delay=2000]' });
  for (let i = 0; i < 3; i++)
    await create({ model_name: 'seedance-2', prompt: 'crowded [sim:busy=1] [sim:delay=1500]' });
  for (let i = 0; i < 2; i++)
    await create({
      model_name: 'seedance-1-pro',
      prompt: 'tokens [sim:tokens=50000] [sim:delay=2000]',
      duration: 5,
    });
  const total = (await allTasks()).length;

  const first = startWorker();
  // Kill while it holds leases on tasks whose job ids are stored.
  await until(
    async () => {
      const tasks = await allTasks();
      const now = Date.now();
      const leased = tasks.filter(
        (t) =>
          t.status === 'processing' &&
          t.lease_owner !== null &&
          Number(t.lease_expires_at) > now &&
          t.provider_job_id,
      );
      return leased.length >= 1 && tasks.filter((t) => t.provider_job_id).length >= 12;
    },
    // Generous: starting a worker process takes seconds on a loaded machine.
    45_000,
    'the first worker to hold leases',
  );
  first.child.kill('SIGKILL');
  await first.exited;
  const killedAt = Date.now();
  const snapshot = new Map((await allTasks()).map((t) => [t.id, t]));
  const leasedAtKill = [...snapshot.values()].filter(
    (t) => t.status === 'processing' && t.lease_owner !== null && Number(t.lease_expires_at) > killedAt,
  );
  const jobAtKill = [...snapshot.values()].filter(
    (t) => t.provider_job_id !== null && t.status !== 'completed' && t.status !== 'failed',
  );
  expect(leasedAtKill.length).toBeGreaterThanOrEqual(1);
  expect(jobAtKill.length).toBeGreaterThanOrEqual(8);

  const second = startWorker();
  const final = await until(
    async () => {
      const tasks = await allTasks();
      return tasks.every((t) => t.status === 'completed' || t.status === 'failed') && tasks;
    },
    45_000,
    'every task to end final',
  );
  second.child.kill('SIGTERM');
  await second.exited;

  expect(final).toHaveLength(total);
  expect(await checkLedger(app.ctx.storage.db)).toEqual([]);
  const byId = new Map<string, TaskRow>(final.map((t) => [t.id, t]));
  // The leases of the dead worker expired and were taken over.
  for (const task of leasedAtKill) expect(byId.get(task.id)?.status).toMatch(/^(completed|failed)$/);
  // No task whose job id was stored was submitted again: the second worker resumed the same job.
  const submittedBySecond = new Set(
    second.events.filter((e) => e.msg === 'task submitted').map((e) => e.task_id),
  );
  for (const task of jobAtKill) {
    expect(submittedBySecond.has(task.id)).toBe(false);
    expect(byId.get(task.id)?.provider_job_id).toBe(task.provider_job_id);
  }
  // Every final task went through exactly one stored submission.
  for (const task of final) expect(task.attempts).toBe(1);
  // The outcomes are the scripted ones.
  expect(final.filter((t) => t.status === 'failed').map((t) => t.error)).toEqual([
    'Provider billing error',
    'Provider billing error',
    'Provider billing error',
  ]);
  const crowded = final.filter((t) => (JSON.parse(t.params).prompt as string).startsWith('crowded'));
  expect(crowded.map((t) => [t.status, t.requeues])).toEqual([
    ['completed', 1],
    ['completed', 1],
    ['completed', 1],
  ]);
  expect(second.events.some((e) => e.msg === 'task completed')).toBe(true);
}, 120_000);
