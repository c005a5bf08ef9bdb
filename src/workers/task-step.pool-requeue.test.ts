// "Concurrency limit exceeded" behind a pool, as the chaos run routes flux-1-1-pro: two accounts of
// equal weight, a simulator account with places and an account that refuses every connection.
// A busy task goes back to pending with error null, gives its place back, runs again after
// REQUEUE_DELAY_MS, and the time in the queue does not count toward the provider timeout (here
// the queue wait is longer than the whole timeout). Nothing is ever sent to the failing account.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestKey } from '../testing/app.js';
import { ENGINES } from '../testing/db.js';
import {
  createTaskTestApp,
  expectLedgerClean,
  generate,
  type TaskTestApp,
  waitForFinal,
} from '../testing/tasks.js';

/** A port nothing listens on: connections to it are refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe.each(ENGINES)('a busy task behind a pool with a failing account, on %s', (engine) => {
  let app: TaskTestApp;
  let key: TestKey;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gengate-pool-requeue-'));
    const providersFile = join(dir, 'providers.json');
    writeFileSync(
      providersFile,
      JSON.stringify({
        providers: {
          unreachable: { type: 'fal', base_url: `http://127.0.0.1:${await closedPort()}`, api_key: 'k' },
          sim: { type: 'simulator', max_concurrency: 50 },
        },
        routes: {
          'flux-1-1-pro': [
            { provider: 'unreachable', weight: 1 },
            { provider: 'sim', weight: 1 },
          ],
        },
      }),
    );
    app = await createTaskTestApp({
      engine,
      // The queue wait (2.5 s) is longer than the whole provider timeout (2 s). The timeout still
      // leaves a 50 ms simulator job room on a loaded CI machine (600 ms once timed one out there).
      config: {
        providersFile,
        requeueDelayMs: 2_500,
        providerTimeoutMs: 2_000,
        // Six tasks polled every 15 ms for about 3 s: past the default 600 requests a minute.
        defaultRateLimitPerMin: 100_000,
        providerBreakerCooldownMs: 200,
        providerBreakerMinRequests: 2,
      },
    });
    key = await app.newKey({ balanceRub: 1000 });
  });

  afterAll(async () => {
    await expectLedgerClean(app);
    await app.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('[sim:busy=1] on either route order: re-queued once, then completed; no job at the failing account', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await generate(app, key, {
        model_name: 'flux-1-1-pro',
        prompt: `p${i} [sim:busy=1] [sim:delay=50]`,
      });
      expect(res.statusCode).toBe(202);
      ids.push(res.json().task_id as string);
    }
    const finals = await Promise.all(ids.map((id) => waitForFinal(app, key, id, 15_000)));
    expect(finals.map((task) => [task.status, task.error ?? null])).toEqual(
      ids.map(() => ['completed', null]),
    );
    for (const id of ids) {
      const row = await app.ctx.storage.tasks.byIdForWorker(id);
      expect(row).toMatchObject({ requeues: 1, attempts: 1, provider: 'sim' });
    }
    const accounts = await app.ctx.providerPool.status();
    expect(accounts.map((a) => [a.name, a.in_flight])).toEqual([
      ['unreachable', 0],
      ['sim', 0],
    ]);
  });
});
