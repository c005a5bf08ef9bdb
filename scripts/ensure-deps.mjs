// Installs dependencies when node_modules is missing or older than package-lock.json,
// so `npm start` and `npm test` work on a fresh clone without a separate install step.
import { execSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const lock = existsSync('package-lock.json') ? readFileSync('package-lock.json') : readFileSync('package.json');
const want = createHash('sha256').update(lock).digest('hex');
const stamp = 'node_modules/.gengate-deps';
const have = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '';
if (have !== want) {
  const cmd = existsSync('package-lock.json') ? 'npm ci --no-audit --no-fund' : 'npm install --no-audit --no-fund';
  console.error(`[gengate] dependencies missing or stale: running ${cmd}`);
  execSync(cmd, { stdio: 'inherit' });
  writeFileSync(stamp, `${want}\n`);
}
