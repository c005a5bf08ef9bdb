// The server's OpenAPI document as the repository prints it: scripts/openapi.ts when it exists
// (run in a child process, as `node bin/run-ts.mjs scripts/openapi.ts`), else the in-process app's
// GET /openapi.json. The generator and the staleness test both read it from here.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { serverDocument } from './server-document.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const GENERATED_TYPES = join(REPO_ROOT, 'packages/client/src/generated/openapi.ts');

export async function loadDocument(): Promise<unknown> {
  const printer = join(REPO_ROOT, 'scripts/openapi.ts');
  if (!existsSync(printer)) return serverDocument();
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [join(REPO_ROOT, 'bin/run-ts.mjs'), printer],
    {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      timeout: 120_000,
    },
  );
  return JSON.parse(stdout);
}
