// The server's OpenAPI document, built in this process from the app with the default catalog (no
// listening). Used when the repository's scripts/openapi.ts is not there to print it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGengate } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';

export async function serverDocument(): Promise<unknown> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gengate-openapi-'));
  const config = loadConfig({ NODE_ENV: 'test', DEMO: 'false', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const app = await buildGengate(config);
  try {
    const response = await app.http.inject({ method: 'GET', url: '/openapi.json' });
    if (response.statusCode !== 200) throw new Error(`GET /openapi.json answered ${response.statusCode}`);
    return response.json();
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
