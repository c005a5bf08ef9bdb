// The OpenAPI document of a gengate with the default catalog, built without listening: a private
// SQLite database in a temporary directory, asked for GET /openapi.json in process, then removed.
// scripts/openapi.ts prints it; the client package generates its types from it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGengate } from '../../app.js';
import { loadConfig } from '../../config.js';

export async function defaultCatalogDocument(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gengate-openapi-'));
  try {
    // Only these settings: the machine's DATABASE_URL, REDIS_URL or PROVIDERS_FILE must not change
    // the document (or be touched to print it).
    const config = loadConfig({ DATA_DIR: dataDir, DEMO: 'false', LOG_LEVEL: 'silent' });
    const gengate = await buildGengate(config);
    try {
      const res = await gengate.http.inject({ method: 'GET', url: '/openapi.json' });
      if (res.statusCode !== 200)
        throw new Error(`GET /openapi.json answered ${res.statusCode}: ${res.body}`);
      return res.json();
    } finally {
      await gengate.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
