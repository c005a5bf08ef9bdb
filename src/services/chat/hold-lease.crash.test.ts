// Crash test: an API PROCESS is killed with SIGKILL in the middle of a streamed chat answer. Its hold
// must not stay open: a worker process releases it within LEASE_MS (plus one sweep interval),
// exactly once, and the ledger check is clean.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../../storage/db.js';
import { checkLedger } from '../../storage/ledger/ledger-check.js';
import { migrateToLatest } from '../../storage/migrations.js';
import { ENGINES, openTestDb, type TestDb } from '../../testing/db.js';
import { balanceOf, createTaskTestApp, freePort, type TaskTestApp } from '../../testing/tasks.js';

const BIN = fileURLToPath(new URL('../../../bin/gengate.mjs', import.meta.url));
const LEASE_MS = 1_500;
/** The worker sweeps every LEASE_MS / 3; scheduling on a loaded machine gets a generous margin. */
const RELEASE_BOUND_MS = LEASE_MS + LEASE_MS / 3 + 3_000;

let dir: string;
let app: TaskTestApp;
const children: ChildProcess[] = [];
/** DATABASE_URL of the PostgreSQL schema the processes share; unset on SQLite (DATA_DIR's file). */
let databaseUrl: string | undefined;

function gengate(role: 'api' | 'worker', port: number): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [BIN, 'serve', '--role', role], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'test',
      DATA_DIR: dir,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      DEMO: 'false',
      LEASE_MS: String(LEASE_MS),
      WORKER_POLL_INTERVAL_MS: '50',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, output: () => output };
}

async function until<T>(probe: () => Promise<T | undefined | false>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(ENGINES)('on %s', (engine) => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gengate-chat-crash-'));
    let db: TestDb;
    if (engine === 'postgres') {
      db = await openTestDb('postgres');
      databaseUrl = db.url;
    } else {
      // The file name the processes open for DATA_DIR.
      const inner = openSqlite(join(dir, 'gengate.db'));
      await migrateToLatest(inner);
      db = { ...inner, file: join(dir, 'gengate.db'), dispose: () => inner.close() };
      databaseUrl = undefined;
    }
    app = await createTaskTestApp({ db, dataDir: dir, runner: false });
  });

  afterAll(async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    // Undefined when the set-up failed: its error is the one to read.
    await app?.dispose();
    await app?.db.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('an API process killed by SIGKILL mid-stream: its chat hold is released within LEASE_MS, exactly once', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = await balanceOf(app, key);
    const port = await freePort();
    const api = gengate('api', port);
    // Another process: a worker, whose chat-holds loop sweeps every LEASE_MS / 3.
    const worker = gengate('worker', 0);
    await until(
      async () => /gengate listening on/.test(api.output()) || undefined,
      45_000,
      'the API process',
    );
    await until(
      async () => /gengate worker running/.test(worker.output()) || undefined,
      45_000,
      'the worker',
    );

    // A stream of 400 words, one every 50 ms: still running when the process is killed.
    const body = JSON.stringify({
      model: 'gpt-4o',
      stream: true,
      messages: [{ role: 'user', content: 'tell a long story [sim:tokens=400] [sim:pace=50]' }],
    });
    const firstChunk = new Promise<void>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/v1/chat/completions',
          method: 'POST',
          headers: { ...key.auth, 'content-type': 'application/json' },
        },
        (res) => {
          if (res.statusCode !== 200) reject(new Error(`chat answered ${res.statusCode}`));
          res.once('data', () => resolve());
          res.on('error', () => undefined);
        },
      );
      req.on('error', () => undefined);
      req.end(body);
    });
    await firstChunk;
    const pending = await app.ctx.storage.db
      .selectFrom('chat_holds')
      .selectAll()
      .where('key_id', '=', key.keyId)
      .execute();
    expect(pending).toHaveLength(1);
    expect(pending[0].process_id).toMatch(/\/\d+\//);
    const held = await balanceOf(app, key);
    expect(held.held).toBeGreaterThan(0);

    api.child.kill('SIGKILL');
    await new Promise((resolve) => api.child.once('exit', resolve));
    const killedAt = Date.now();

    const released = await until(
      async () => {
        // The usage row is written when the hold is settled: by the sweep, as failed.
        return app.ctx.storage.usage.byId(key.accountId, pending[0].id);
      },
      RELEASE_BOUND_MS + 30_000,
      'the hold to be released',
    );
    const releasedAfterMs = Date.now() - killedAt;
    expect(released).toMatchObject({ status: 'failed', cost: 0 });
    // Not before the lease ran out (renewed about LEASE_MS / 3 before the kill at most; a late timer
    // on a loaded machine gets another LEASE_MS / 3), and soon after.
    expect(releasedAfterMs).toBeGreaterThanOrEqual(LEASE_MS / 3);
    expect(releasedAfterMs).toBeLessThanOrEqual(RELEASE_BOUND_MS);

    expect(await balanceOf(app, key)).toEqual(before);
    const entries = await app.ctx.storage.ledger.entriesForTask(pending[0].id);
    expect(entries.filter((e) => e.kind === 'hold').map((e) => Number(e.amount))).toEqual([held.held]);
    expect(entries.filter((e) => e.kind === 'release').map((e) => Number(e.amount))).toEqual([held.held]);
    expect(await checkLedger(app.ctx.storage.db)).toEqual([]);
  }, 120_000);
});
