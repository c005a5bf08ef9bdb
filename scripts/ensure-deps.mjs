// Installs dependencies when node_modules is missing or older than package-lock.json, so `npm start`
// and `npm test` work on a fresh clone without a separate install step.
//   node scripts/ensure-deps.mjs          everything (tests, bench, development)
//   node scripts/ensure-deps.mjs --prod   only what serving needs (npm start)
// A production install is completed with the dev dependencies later without a reinstall. Nothing
// here compiles: the one native package with code of its own (the SQLite driver) ships its binaries.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

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

/** npm prints nothing while it downloads and unpacks; a line every 10 s says it is still working. */
async function withTicker(started, work) {
  const ticker = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    console.error(`[gengate] still installing (${seconds} s)`);
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
        const child = spawn('npm', args, { stdio: 'inherit' });
        child.on('error', reject);
        child.on('exit', (code) => {
          if (code !== 0) return reject(new Error(`npm ${args.join(' ')} exited with ${code}`));
          console.error(`[gengate] done in ${Math.round((Date.now() - started) / 1000)} s`);
          resolve();
        });
      }),
  );
}

const have = installed();
const quiet = ['--no-audit', '--no-fund'];
if (have?.hash !== want) {
  const hasLock = existsSync('package-lock.json');
  const args = hasLock ? ['ci', ...quiet] : ['install', ...quiet];
  if (prodOnly) await run([...args, '--omit=dev'], 'installing the production dependencies');
  else await run([...args, '--include=dev'], 'installing the dependencies');
  writeFileSync(STAMP, `${want} ${prodOnly ? 'prod' : 'full'}\n`);
} else if (have.mode === 'prod' && !prodOnly) {
  await run(['install', '--include=dev', '--no-save', ...quiet], 'adding the development dependencies');
  writeFileSync(STAMP, `${want} full\n`);
}
