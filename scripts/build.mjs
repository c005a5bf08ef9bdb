// Compiles src/ to plain JavaScript in dist/, so a process starts without compiling TypeScript
// (a restart serves within a second). esbuild only strips types file by file: no bundling, the
// layout of src/ is kept, so relative imports and import.meta.url paths resolve the same way.
// `node scripts/build.mjs` builds; `--if-stale` builds only when a source is newer than the build.
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(root, 'src');
const DIST = join(root, 'dist');
/** Written last: its mtime is the moment the build was complete. */
export const STAMP = join(DIST, '.built');

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}

const isTest = (path) => /\.test\.ts$/.test(path);

/** True when dist/ holds a complete build no older than any file under src/. */
export function buildIsFresh() {
  if (!existsSync(STAMP)) return false;
  const built = statSync(STAMP).mtimeMs;
  for (const path of walk(SRC)) if (!isTest(path) && statSync(path).mtimeMs > built) return false;
  for (const path of [join(root, 'scripts', 'build.mjs'), join(root, 'package-lock.json')])
    if (existsSync(path) && statSync(path).mtimeMs > built) return false;
  return true;
}

/**
 * Builds into a private folder and swaps it in, so a process starting meanwhile never imports a
 * half-written dist/. Two builds racing both produce the same files; the last rename wins.
 */
export async function build() {
  const { build: esbuild } = await import('esbuild');
  const started = Date.now();
  const staging = `${DIST}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  const sources = [];
  for (const path of walk(SRC)) {
    if (isTest(path)) continue;
    if (path.endsWith('.ts')) sources.push(path);
    else {
      // Data files read at run time (the default catalog) sit beside the code that reads them.
      const target = join(staging, relative(SRC, path));
      mkdirSync(dirname(target), { recursive: true });
      cpSync(path, target);
    }
  }
  await esbuild({
    entryPoints: sources,
    outdir: staging,
    outbase: SRC,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  writeFileSync(join(staging, '.built'), `${new Date().toISOString()}\n`);
  const old = `${DIST}.${process.pid}.old`;
  if (existsSync(DIST)) renameSync(DIST, old);
  renameSync(staging, DIST);
  rmSync(old, { recursive: true, force: true });
  return { files: sources.length, ms: Date.now() - started };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--if-stale') && buildIsFresh()) process.exit(0);
  const { files, ms } = await build();
  console.error(`[gengate] compiled ${files} files to dist/ in ${ms} ms`);
}
