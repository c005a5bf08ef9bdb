// Writes src/generated/openapi.ts from the server's OpenAPI document.
// Run from the repository root: node bin/run-ts.mjs packages/client/scripts/generate-types.ts
// (or `npm run generate-types -w @gengate/client`).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { typesFromDocument } from './openapi-types.js';
import { serverDocument } from './server-document.js';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../../..');
const target = resolve(here, '../src/generated/openapi.ts');

/** The repository's scripts/openapi.ts prints the document; without it, build it in process. */
async function loadDocument(): Promise<unknown> {
  const printer = join(repoRoot, 'scripts/openapi.ts');
  if (!existsSync(printer)) return serverDocument();
  const text = execFileSync(process.execPath, [join(repoRoot, 'bin/run-ts.mjs'), printer], {
    cwd: repoRoot,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(text);
}

const text = await typesFromDocument(await loadDocument());
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, text);
console.log(`wrote ${target} (${text.length} characters)`);
