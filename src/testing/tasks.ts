// Helpers for task tests: an app whose results go to a temporary DATA_DIR, with or without the
// in-process task runner, and small readers for tasks, balances and the ledger.
import { createServer } from 'node:net';
import { expect } from 'vitest';
import type { Config } from '../config.js';
import type { Engine } from '../storage/db.js';
import { checkLedger } from '../storage/ledger/ledger-check.js';
import { startTaskRunner, type TaskRunner } from '../workers/task-runner.js';
import { createTestApp, type TestApp, type TestKey } from './app.js';
import type { TestDb } from './db.js';

export interface TaskTestApp extends TestApp {
  runner: TaskRunner | undefined;
  dataDir: string;
}

export async function createTaskTestApp(
  options: {
    engine?: Engine;
    config?: Partial<Config>;
    runner?: boolean;
    db?: TestDb;
    dataDir?: string;
  } = {},
): Promise<TaskTestApp> {
  // createTestApp makes (and later removes) a private data directory unless one is given.
  const app = await createTestApp({
    engine: options.engine,
    db: options.db,
    config: { ...(options.dataDir ? { dataDir: options.dataDir } : {}), ...options.config },
  });
  const runner = options.runner === false ? undefined : startTaskRunner(app.ctx, () => {});
  return {
    ...app,
    runner,
    dataDir: app.config.dataDir,
    async dispose() {
      await runner?.stop();
      // fetch() keeps connections alive; a listening server would wait for them to time out.
      app.http.server.closeAllConnections?.();
      await app.dispose();
    },
  };
}

export function generate(
  app: TestApp,
  key: TestKey,
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return app.http.inject({
    method: 'POST',
    url: '/generate',
    headers: { ...key.auth, ...headers },
    payload: { params },
  });
}

export async function getTask(app: TestApp, key: TestKey, taskId: string) {
  const res = await app.http.inject({ method: 'GET', url: `/tasks/${taskId}`, headers: key.auth });
  expect(res.statusCode).toBe(200);
  return res.json() as {
    task_id: string;
    status: string;
    result: Record<string, any> | null;
    error: string | null;
    created_at: string;
  };
}

export async function waitForFinal(app: TestApp, key: TestKey, taskId: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = await getTask(app, key, taskId);
    if (task.status === 'completed' || task.status === 'failed') return task;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still ${task.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
}

/** The key's balance and held amount in micro-rubles. */
export async function balanceOf(app: TestApp, key: TestKey): Promise<{ balance: number; held: number }> {
  const row = await app.ctx.storage.keys.balanceOf(key.keyId);
  if (!row) throw new Error('no such key');
  return { balance: Number(row.balance), held: Number(row.held) };
}

/** The key's ledger entries in order, as [kind, amount] (settling writes a capture and a release, either may be 0). */
export async function ledgerOf(app: TestApp, key: TestKey): Promise<[string, number][]> {
  const rows = await app.ctx.storage.db
    .selectFrom('ledger_entries')
    .select(['kind', 'amount'])
    .where('key_id', '=', key.keyId)
    .orderBy('id')
    .execute();
  return rows.map((row) => [row.kind, Math.abs(Number(row.amount))]);
}

/** How many rows a table holds. */
export async function rowCount(
  app: TestApp,
  table: 'tasks' | 'ledger_entries' | 'idempotency_keys' | 'usage_records',
): Promise<number> {
  const row = await app.ctx.storage.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function countRows(
  app: TestApp,
): Promise<{ tasks: number; ledger: number; idempotency: number }> {
  return {
    tasks: await rowCount(app, 'tasks'),
    ledger: await rowCount(app, 'ledger_entries'),
    idempotency: await rowCount(app, 'idempotency_keys'),
  };
}

export async function expectLedgerClean(app: TestApp): Promise<void> {
  expect(await checkLedger(app.ctx.storage.db)).toEqual([]);
}

/** A free loopback port, so PUBLIC_URL can be known before the app listens. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** What a request may have created for one key: tasks, holds and stored idempotent answers. */
export async function createdRows(
  app: TestApp,
  key: TestKey,
): Promise<{ tasks: number; holds: number; idempotency: number }> {
  const db = app.ctx.storage.db;
  const tasks = await db
    .selectFrom('tasks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('key_id', '=', key.keyId)
    .executeTakeFirstOrThrow();
  const holds = await db
    .selectFrom('ledger_entries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('key_id', '=', key.keyId)
    .where('kind', '=', 'hold')
    .executeTakeFirstOrThrow();
  const idempotency = await db
    .selectFrom('idempotency_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('key_id', '=', key.keyId)
    .executeTakeFirstOrThrow();
  return { tasks: Number(tasks.n), holds: Number(holds.n), idempotency: Number(idempotency.n) };
}
