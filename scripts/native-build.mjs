// Compiles better-sqlite3 for a production install in about two thirds of the time npm takes.
// Its build compiles two files, SQLite's 9 MB amalgamation (C) and the binding (C++), one after the
// other: gyp makes every object of the binding wait for the SQLite library, although the binding
// only needs SQLite's header. Here the configured Makefile loses that order-only wait, and make
// compiles both at once on two cores. Anything unexpected returns false, and the caller falls back
// to `npm rebuild better-sqlite3`, the standard build.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const PACKAGE = join('node_modules', 'better-sqlite3');
const TARGET = join(PACKAGE, 'build', 'better_sqlite3.target.mk');
const WAIT_FOR_SQLITE =
  '$(OBJS): | $(builddir)/sqlite3.a $(obj).target/deps/locate_sqlite3.stamp $(obj).target/deps/sqlite3.a';
const WAIT_FOR_HEADER = '$(OBJS): | $(obj).target/deps/locate_sqlite3.stamp';

function exec(command, args, env) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: PACKAGE, stdio: ['ignore', 'ignore', 'inherit'], env });
    child.on('error', () => resolve(false));
    child.on('exit', (code) => resolve(code === 0));
  });
}

/** npm's own node-gyp, next to the npm that runs this script. */
function nodeGyp() {
  const npmCli = process.env.npm_execpath;
  if (!npmCli) return undefined;
  const path = join(dirname(npmCli), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  return existsSync(path) ? path : undefined;
}

export async function buildBetterSqlite3(env) {
  const gyp = nodeGyp();
  if (!gyp || !existsSync(PACKAGE)) return false;
  // npm passes its settings (nodedir: build against the machine's Node headers) as npm_config_*.
  if (!(await exec(process.execPath, [gyp, 'configure', '--release'], env))) return false;
  if (!existsSync(TARGET)) return false;
  const makefile = readFileSync(TARGET, 'utf8');
  if (!makefile.includes(WAIT_FOR_SQLITE)) return false;
  writeFileSync(TARGET, makefile.replace(WAIT_FOR_SQLITE, WAIT_FOR_HEADER));
  if (!(await exec(process.execPath, [gyp, 'build', '--release', '--jobs', '2'], env))) return false;
  return existsSync(join(PACKAGE, 'build', 'Release', 'better_sqlite3.node'));
}
