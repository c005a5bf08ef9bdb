// Installs dependencies when node_modules is missing or older than package-lock.json, so `npm start`
// and `npm test` work on a fresh clone without a separate install step.
//   node scripts/ensure-deps.mjs          everything (tests, bench, development)
//   node scripts/ensure-deps.mjs --prod   only what serving needs (npm start)
// A production install is completed with the dev dependencies later without a reinstall, so the
// compiled better-sqlite3 is kept.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { buildBetterSqlite3 } from './native-build.mjs';

const prodOnly = process.argv.includes('--prod');
const lock = existsSync('package-lock.json') ? readFileSync('package-lock.json') : readFileSync('package.json');
const want = createHash('sha256').update(lock).digest('hex');
const STAMP = 'node_modules/.gengate-deps';

/** `<lock hash> <prod|full>`; a stamp of an older format (the hash alone) was a full install. */
function installed() {
  if (!existsSync(STAMP)) return undefined;
  const [hash, mode = 'full'] = readFileSync(STAMP, 'utf8').trim().split(/\s+/);
  return { hash, mode };
}

function buildEnv() {
  return {
    ...process.env,
    // SQLite's own build uses -O2; -O3 doubles the compile time of its one 9 MB source file.
    CFLAGS: process.env.CFLAGS ?? '-O2',
    CXXFLAGS: process.env.CXXFLAGS ?? '-O2',
    JOBS: process.env.JOBS ?? 'max',
  };
}

/** npm prints nothing while better-sqlite3 compiles, which is most of a first install. */
async function withTicker(started, work) {
  const ticker = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    console.error(`[gengate] still installing (${seconds} s; compiling SQLite for better-sqlite3 takes most of it)`);
  }, 10_000);
  try {
    return await work();
  } finally {
    clearInterval(ticker);
  }
}

function run(args, what) {
  console.error(`[gengate] ${what}: npm ${args.join(' ')}`);
  const started = Date.now();
  return withTicker(
    started,
    () =>
      new Promise((resolve, reject) => {
        const child = spawn('npm', args, { stdio: 'inherit', env: buildEnv() });
        child.on('error', reject);
        child.on('exit', (code) => {
          if (code !== 0) return reject(new Error(`npm ${args.join(' ')} exited with ${code}`));
          console.error(`[gengate] done in ${Math.round((Date.now() - started) / 1000)} s`);
          resolve();
        });
      }),
  );
}

/**
 * The production install of a first `npm start`, where the wait is what a new user sees: packages
 * without their install scripts, then better-sqlite3 compiled on both cores, then the other
 * packages' scripts. Any surprise in the fast build falls back to npm's own.
 */
async function installProduction(args) {
  const started = Date.now();
  await run([...args, '--ignore-scripts'], 'installing the production dependencies');
  if (await withTicker(started, () => buildBetterSqlite3(buildEnv())))
    console.error('[gengate] compiled better-sqlite3');
  else await run(['rebuild', 'better-sqlite3'], 'compiling better-sqlite3');
  const scripted = await listScripted();
  const others = scripted.filter((name) => name !== 'better-sqlite3');
  if (others.length > 0) await run(['rebuild', ...others], 'running install scripts');
  console.error(`[gengate] production dependencies ready in ${Math.round((Date.now() - started) / 1000)} s`);
}

/** Installed packages with an install script (better-sqlite3 and esbuild today). */
function listScripted() {
  const query = ':attr(scripts, [install]), :attr(scripts, [postinstall]), :attr(scripts, [preinstall])';
  return new Promise((resolve) => {
    let out = '';
    const child = spawn('npm', ['query', query], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.on('exit', () => {
      try {
        resolve([...new Set(JSON.parse(out).map((p) => p.name))]);
      } catch {
        resolve(['better-sqlite3', 'esbuild']);
      }
    });
  });
}

const have = installed();
const quiet = ['--no-audit', '--no-fund'];
if (have?.hash !== want) {
  const hasLock = existsSync('package-lock.json');
  const args = hasLock ? ['ci', ...quiet] : ['install', ...quiet];
  if (prodOnly) await installProduction([...args, '--omit=dev']);
  else await run([...args, '--include=dev'], 'installing the dependencies');
  writeFileSync(STAMP, `${want} ${prodOnly ? 'prod' : 'full'}\n`);
} else if (have.mode === 'prod' && !prodOnly) {
  await run(['install', '--include=dev', '--no-save', ...quiet], 'adding the development dependencies');
  writeFileSync(STAMP, `${want} full\n`);
}
