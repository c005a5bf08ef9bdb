// A real worker process (`gengate serve --role worker`) for crash tests: started on a data
// directory with test settings, and killed with SIGKILL (no clean shutdown) to simulate a crash.
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(import.meta.url), '../../..');

/** Starts a worker on the SQLite file in `dataDir`; `env` adds or overrides settings. */
export function startWorkerProcess(dataDir: string, env: Record<string, string>): ChildProcess {
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    DEMO: 'false',
    LOG_LEVEL: 'silent',
    WORKER_POLL_INTERVAL_MS: '20',
    ...env,
  };
  // The worker must share the test's SQLite file, never an outside database or Redis.
  delete childEnv.DATABASE_URL;
  delete childEnv.REDIS_URL;
  const child = spawn(process.execPath, ['bin/gengate.mjs', 'serve', '--role', 'worker'], {
    cwd: ROOT,
    env: childEnv,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[worker ${child.pid}] ${chunk}`));
  return child;
}

/** SIGKILL, then wait for the exit; a process that already ended is left alone. */
export async function kill9(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGKILL');
  await exited;
}
