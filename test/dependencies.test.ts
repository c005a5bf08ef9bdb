// `npm start` installs only the production dependencies, so every package the server imports at run
// time must be one; and every installed package must run on the Node line package.json names.
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { dev?: boolean; engines?: { node?: string } | string[] }>;
};
const semver = createRequire(import.meta.url)('semver') as {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
};

function* serverSources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'testing') yield* serverSources(path);
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) yield path;
  }
}

/** Packages a file loads at run time: value imports, dynamic imports and require() of bare names. */
function runtimePackages(source: string): string[] {
  const names: string[] = [];
  const patterns = [
    /^import\s+(?!type\b)[^;]*?from\s+'([^'.][^']*)'/gm,
    /^import\s+'([^'.][^']*)'/gm,
    /import\('([^'.][^']*)'\)/g,
    /require\('([^'.][^']*)'\)/g,
  ];
  for (const pattern of patterns)
    for (const match of source.matchAll(pattern)) {
      const spec = match[1] as string;
      if (spec.startsWith('node:') || builtinModules.includes(spec)) continue;
      const parts = spec.split('/');
      names.push(spec.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] as string));
    }
  return names;
}

describe('dependencies', () => {
  it('every package the server loads at run time is a production dependency', () => {
    const missing = new Set<string>();
    for (const file of [...serverSources(join(ROOT, 'src')), join(ROOT, 'bin/gengate.mjs')]) {
      for (const name of runtimePackages(readFileSync(file, 'utf8')))
        if (!(name in pkg.dependencies) && !(file.endsWith('gengate.mjs') && name === 'tsx'))
          missing.add(`${name} (${file.slice(ROOT.length + 1)})`);
    }
    expect([...missing]).toEqual([]);
  });

  it('the tools for tests and the bench are not production dependencies', () => {
    for (const tool of ['vitest', 'tsx', 'typescript', '@biomejs/biome', 'playwright-core', 'autocannon'])
      expect(pkg.dependencies, tool).not.toHaveProperty(tool);
  });

  it('every installed package supports the oldest Node that package.json accepts', () => {
    const oldest = semver.minVersion(pkg.engines.node)?.version as string;
    const unsupported: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (path && range && !semver.satisfies(oldest, range)) unsupported.push(`${path}: node ${range}`);
    }
    expect(unsupported).toEqual([]);
  });
});
