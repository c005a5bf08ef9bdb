// Start time: how long a restart takes from exec to a 200 from /healthz, on a DATA_DIR that already
// holds a migrated database (a restart, not a first start). The figure is the median of several
// restarts; node's own start (an empty script) and a bare Fastify server's exec → first answer are
// measured in the same run as the floor a reader can compare with.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildIsFresh } from '../../scripts/build.mjs';
import { msUntilHealthy } from '../healthz.js';
import { freePort } from '../ports.js';
import { median } from '../stats.js';
import { formatNumber, TARGETS } from '../targets.js';
import { addFigure, type BenchEnvironment, log, section } from './context.js';

const POLL_MS = 5;
const GIVE_UP_MS = 30_000;

const BARE_FASTIFY = `
const app = require('fastify')();
app.get('/healthz', async () => ({ ok: true }));
app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
`;

/** Exec → first 200 from /healthz, in milliseconds; the process is killed afterwards. */
async function timeToHealthy(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: 'ignore',
  });
  try {
    return await msUntilHealthy(child, port, started, { pollMs: POLL_MS, giveUpMs: GIVE_UP_MS });
  } finally {
    child.kill('SIGKILL');
    await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
  }
}

function timeNodeAlone(): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  return new Promise((resolve) => child.once('exit', () => resolve(performance.now() - started)));
}

export async function startTime(env: BenchEnvironment): Promise<void> {
  section('start time: exec → /healthz 200 on a restart (SQLite, compiled build)');
  const rounds = env.settings.quick ? 3 : 7;
  const compiled = buildIsFresh();
  const dataDir = mkdtempSync(join(tmpdir(), 'gengate-bench-start-'));
  const gengateEnv = { DATA_DIR: dataDir, LOG_LEVEL: 'silent', DEMO: 'false', NODE_ENV: 'production' };
  try {
    // The first start creates and migrates the database; only restarts are measured.
    await timeToHealthy(['bin/gengate.mjs', 'serve'], gengateEnv);
    const gengate: number[] = [];
    const bare: number[] = [];
    const node: number[] = [];
    for (let round = 0; round < rounds; round++) {
      gengate.push(await timeToHealthy(['bin/gengate.mjs', 'serve'], gengateEnv));
      bare.push(await timeToHealthy(['-e', BARE_FASTIFY], {}));
      node.push(await timeNodeAlone());
    }
    const value = median(gengate);
    log(`  gengate restarts: ${gengate.map((ms) => formatNumber(ms)).join(', ')} ms`);
    addFigure(env, {
      id: 'start-time',
      label: 'Restart: exec → /healthz 200',
      engine: 'sqlite',
      unit: 'ms',
      target: TARGETS.startTimeMs,
      value,
      detail: `median of ${rounds} (max ${formatNumber(Math.max(...gengate))} ms); bare Fastify ${formatNumber(median(bare))} ms, node alone ${formatNumber(median(node))} ms`,
      invalid: compiled ? undefined : 'dist/ is stale: the restarts ran the TypeScript sources through tsx',
    });
  } catch (error) {
    addFigure(env, {
      id: 'start-time',
      label: 'Restart: exec → /healthz 200',
      engine: 'sqlite',
      unit: 'ms',
      target: TARGETS.startTimeMs,
      value: null,
      detail: 'not measured',
      invalid: (error as Error).message,
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
