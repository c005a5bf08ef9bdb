// The chaos run's own compiled copy of src/ (esbuild strips the types file by file, as
// scripts/build.mjs does for dist/): every process of the run starts in about a second, restarts
// included, and all of them run the same code even while src/ is being edited. It sits inside the
// repository so that node_modules and package.json resolve as they do from src/.
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { build } from 'esbuild';

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}

/** Compiles `root`/src into `outdir`; returns the entry point (main.js). */
export async function compileSources(root: string, outdir: string): Promise<string> {
  const src = join(root, 'src');
  rmSync(outdir, { recursive: true, force: true });
  const sources: string[] = [];
  for (const path of walk(src)) {
    if (path.endsWith('.test.ts')) continue;
    if (path.endsWith('.ts')) sources.push(path);
    else {
      // Data files read at run time (the default catalog, panel assets) sit beside their code.
      const target = join(outdir, relative(src, path));
      mkdirSync(dirname(target), { recursive: true });
      cpSync(path, target);
    }
  }
  await build({
    entryPoints: sources,
    outdir,
    outbase: src,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  return join(outdir, 'main.js');
}
