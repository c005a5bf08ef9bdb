// The first start of an empty embedded database, as `npm start` runs it: a demo key with 1000 RUB is
// printed once with a curl example and answers GET /me/balance; a second start prints nothing; and
// production never gets a demo account.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DatabaseSync } from '@photostructure/sqlite';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const STARTUP_TIMEOUT_MS = 120_000;
const running = new Set<ChildProcess>();
const dirs: string[] = [];

afterAll(async () => {
  await Promise.all([...running].map((child) => stop(child)));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

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

interface Server {
  child: ChildProcess;
  /** stdout and stderr interleaved. */
  output: () => string;
  stdout: () => string;
  stderr: () => string;
  url: string;
}

/** `gengate serve` with NODE_ENV and DEMO unset (as `npm start` on a laptop), plus `extra`. */
async function serve(dir: string, port: number, extra: Record<string, string> = {}): Promise<Server> {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dir,
    DATA_DIR: dir,
    PORT: String(port),
    ...extra,
  };
  const child = spawn(process.execPath, ['bin/gengate.mjs', 'serve'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let output = '';
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
    stdout += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    output += chunk;
    stderr += chunk;
  });
  const server = {
    child,
    output: () => output,
    stdout: () => stdout,
    stderr: () => stderr,
    url: `http://127.0.0.1:${port}`,
  };
  await waitForOutput(server, /gengate listening on/);
  return server;
}

function waitForOutput(server: Server, pattern: RegExp): Promise<void> {
  return new Promise<void>((ready, fail) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      server.child.stdout!.off('data', check);
      server.child.stderr!.off('data', check);
      server.child.off('exit', exited);
      if (error) fail(error);
      else ready();
    };
    const check = () => {
      if (pattern.test(server.output())) done();
    };
    const exited = (code: number | null) =>
      done(new Error(`gengate serve exited with ${code}:\n${server.output()}`));
    const timer = setTimeout(
      () => done(new Error(`no ${pattern} within ${STARTUP_TIMEOUT_MS} ms:\n${server.output()}`)),
      STARTUP_TIMEOUT_MS,
    );
    server.child.stdout!.on('data', check);
    server.child.stderr!.on('data', check);
    server.child.once('exit', exited);
    check();
  });
}

/** SIGTERM, then SIGKILL if the process has not exited in time. Resolves with the exit code. */
function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((done) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', (code) => {
      clearTimeout(killer);
      done(code);
    });
    child.kill('SIGTERM');
  });
}

/** stdout carries only JSON log lines: the listening line and the banner go to stderr. */
function expectJsonOnlyOnStdout(server: Server): void {
  const lines = server
    .stdout()
    .split('\n')
    .filter((line) => line.trim() !== '');
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
  expect(server.stderr()).toMatch(/gengate listening on/);
}

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gengate-first-start-'));
  dirs.push(dir);
  return dir;
}

function countRows(dir: string, table: 'accounts' | 'api_keys'): number {
  const db = new DatabaseSync(join(dir, 'gengate.db'), { readOnly: true });
  try {
    return (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe.concurrent('first start', { timeout: 300_000 }, () => {
  it('prints a demo key once, with a curl example; the key holds 1000 RUB; a second start prints no key', async () => {
    const dir = dataDir();
    const port = await freePort();
    const first = await serve(dir, port);
    // The banner follows the listening line; its last line is a POST /generate example.
    await waitForOutput(first, /\/generate -H/);
    const keys = first.output().match(/sk_live_[0-9A-Za-z]+/g) ?? [];
    expect(new Set(keys).size).toBe(1);
    const key = keys[0];
    expect(first.output()).toContain(`curl -s ${first.url}/me/balance -H "Authorization: Bearer ${key}"`);
    // The banner (and its key) is on stderr only, once.
    expect(first.stderr().split('A demo account was created')).toHaveLength(2);
    expect(first.stdout()).not.toContain(key);

    const balance = await fetch(`${first.url}/me/balance`, { headers: { authorization: `Bearer ${key}` } });
    expect(balance.status).toBe(200);
    expect(await balance.text()).toBe('{"key_balance":1000}');
    const catalog = await fetch(`${first.url}/public/models`);
    expect(catalog.status).toBe(200);
    const ids = ((await catalog.json()) as { id: string }[]).map((m) => m.id);
    expect(ids).toEqual(
      expect.arrayContaining(['seedance-2', 'kling-2-1', 'flux-1-1-pro', 'gpt-4o', 'claude-sonnet-4']),
    );
    expect(await stop(first.child)).toBe(0);
    expectJsonOnlyOnStdout(first);

    const second = await serve(dir, port);
    const again = await fetch(`${second.url}/me/balance`, { headers: { authorization: `Bearer ${key}` } });
    expect(await again.json()).toEqual({ key_balance: 1000 });
    expect(await stop(second.child)).toBe(0);
    expect(second.output()).not.toMatch(/sk_live_/);
    expect(countRows(dir, 'accounts')).toBe(1);
    expect(countRows(dir, 'api_keys')).toBe(1);
  });

  it('never creates a demo account with NODE_ENV=production', async () => {
    const dir = dataDir();
    const server = await serve(dir, await freePort(), { NODE_ENV: 'production' });
    const catalog = await fetch(`${server.url}/public/models`);
    expect(catalog.status).toBe(200);
    expect(await stop(server.child)).toBe(0);
    expectJsonOnlyOnStdout(server);
    expect(server.output()).not.toMatch(/sk_live_/);
    expect(countRows(dir, 'accounts')).toBe(0);
    expect(countRows(dir, 'api_keys')).toBe(0);
  });
});
