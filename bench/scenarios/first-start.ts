// Cold first start: what a new user waits for. Each round clones the repository into a new folder,
// points npm at an empty cache of its own, and runs `npm start` (which installs the production
// dependencies, builds dist/ and serves) until /healthz answers 200. The figure is the median of
// the rounds. The clone is of the checkout's committed HEAD (uncommitted changes are not in it);
// `--checkout=DIR` measures another checkout, e.g. an older build, the same way.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { msUntilHealthy } from '../healthz.js';
import { freePort } from '../ports.js';
import { median } from '../stats.js';
import { formatNumber, TARGETS } from '../targets.js';
import { addFigure, type BenchEnvironment, log, section } from './context.js';

const POLL_MS = 100;
/** A first start that needs longer than this is far past the target; the round fails. */
const GIVE_UP_MS = 300_000;

/** Kills `npm start` and what it started (npm → sh → node): they share one process group. */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Fresh clone + empty npm cache → `npm start` → first 200 from /healthz, in milliseconds. */
async function coldStart(repository: string): Promise<number> {
  const folder = mkdtempSync(join(tmpdir(), 'gengate-bench-first-start-'));
  const clone = join(folder, 'gengate');
  execFileSync('git', ['clone', '--quiet', repository, clone]);
  const port = await freePort();
  const started = performance.now();
  const child = spawn('npm', ['start'], {
    cwd: clone,
    detached: true,
    stdio: 'ignore',
    env: {
      ...process.env,
      // An empty cache: every package comes from the registry, as on a new machine.
      npm_config_cache: join(folder, 'npm-cache'),
      PORT: String(port),
      DATA_DIR: join(folder, 'data'),
      LOG_LEVEL: 'silent',
      NODE_ENV: 'production',
    },
  });
  try {
    return await msUntilHealthy(child, port, started, { pollMs: POLL_MS, giveUpMs: GIVE_UP_MS });
  } finally {
    killGroup(child.pid);
    await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
    rmSync(folder, { recursive: true, force: true });
  }
}

export async function firstStartTime(env: BenchEnvironment, repository: string): Promise<void> {
  section(`first start: fresh clone + empty npm cache → npm start → /healthz 200 (${repository})`);
  const head = execFileSync('git', ['-C', repository, 'rev-parse', '--short', 'HEAD']).toString().trim();
  const figure = {
    id: 'first-start',
    label: 'First start: fresh clone → npm start → /healthz 200',
    engine: 'sqlite' as const,
    unit: 'ms',
    target: TARGETS.firstStartMs,
  };
  try {
    // --quick checks the harness: one round.
    const count = env.settings.quick ? 1 : 3;
    const rounds: number[] = [];
    for (let round = 0; round < count; round++) {
      rounds.push(await coldStart(repository));
      log(`  round ${round + 1}: ${formatNumber(rounds[round])} ms`);
    }
    addFigure(env, {
      ...figure,
      value: median(rounds),
      detail: `median of ${count} (${rounds.map((ms) => formatNumber(ms)).join(', ')} ms) at ${head}`,
    });
  } catch (error) {
    addFigure(env, { ...figure, value: null, detail: 'not measured', invalid: (error as Error).message });
  }
}
