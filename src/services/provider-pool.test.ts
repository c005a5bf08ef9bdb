// The pool over a real database: a simulator-type account gets places but no health, accounts
// outside PROVIDERS_FILE are admitted without a write, and status() lists every account.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BREAKER } from '../domain/providers/breaker.js';
import { parseProvidersConfig } from '../providers/config.js';
import { SimulatorProvider } from '../providers/simulator/simulator.js';
import { TaskProviderRegistry } from '../providers/task-registry.js';
import { ProviderAccountsRepository } from '../storage/repositories/provider-accounts.js';
import { openTestDb, type TestDb } from '../testing/db.js';
import { ProviderPool } from './provider-pool.js';

let db: TestDb;
let pool: ProviderPool;
let now = 1_000_000;

beforeAll(async () => {
  db = await openTestDb('sqlite');
  const registry = new TaskProviderRegistry(
    parseProvidersConfig(
      JSON.stringify({
        providers: {
          sim: { type: 'simulator', max_concurrency: 1 },
          fal: { type: 'fal', base_url: 'https://queue.fal.run', api_key: 'k' },
        },
        routes: {},
      }),
    ),
    new SimulatorProvider({ now: () => now }, 10),
  );
  pool = new ProviderPool(
    registry,
    new ProviderAccountsRepository(db.kysely, 'sqlite'),
    { now: () => now },
    { ...DEFAULT_BREAKER, minRequests: 2 },
  );
});
afterAll(() => db.dispose());

describe('provider pool', () => {
  it('a simulator account never goes down or cools (its failures are scripted per task)', async () => {
    for (let i = 0; i < 5; i++)
      await pool.recordSubmit('sim', `t${i}`, { status: 'failed', failure: { kind: 'billing' } });
    await pool.recordSubmit('sim', 't9', { status: 'failed', failure: { kind: 'overload' } });
    expect((await pool.status()).find((a) => a.name === 'sim')).toMatchObject({
      state: 'up',
      max_concurrency: 1,
    });
    expect(await pool.admit('sim', 'task-a')).toEqual({ status: 'admitted' });
  });

  it('a tracked account goes down on billing and cools on failures', async () => {
    await pool.recordSubmit('fal', 'x1', {
      status: 'failed',
      failure: { kind: 'overload', detail: 'HTTP 503' },
    });
    await pool.recordSubmit('fal', 'x2', { status: 'not_sent', detail: 'ECONNREFUSED' });
    expect((await pool.status()).find((a) => a.name === 'fal')).toMatchObject({
      state: 'cooling',
      last_error: 'ECONNREFUSED',
    });
    expect(await pool.admit('fal', 'x3')).toEqual({ status: 'unavailable', state: 'cooling' });
    now += DEFAULT_BREAKER.cooldownMs;
    expect(await pool.admit('fal', 'x4')).toEqual({ status: 'admitted' });
    // The probe is taken: another task is turned away until the probe reports.
    expect(await pool.admit('fal', 'x5')).toEqual({ status: 'unavailable', state: 'cooling' });
    await pool.recordSubmit('fal', 'x4', {
      status: 'failed',
      failure: { kind: 'billing', detail: 'HTTP 402' },
    });
    const fal = (await pool.status()).find((a) => a.name === 'fal');
    expect(fal).toMatchObject({
      state: 'down',
      last_error: 'HTTP 402',
      checked_at: new Date(now).toISOString(),
    });
    expect(await pool.admit('fal', 'x6')).toEqual({ status: 'unavailable', state: 'down' });
    expect(await pool.admit('fal', 'x6', { ignoreDown: true })).toEqual({ status: 'admitted' });
    // The operator runs a check: refused, still down; accepted, up at once.
    expect(
      await pool.checkNow('fal', async () => ({ reachable: true, authOk: false, detail: 'HTTP 401' })),
    ).toEqual({ reachable: true, authOk: false, detail: 'HTTP 401' });
    expect((await pool.status()).find((a) => a.name === 'fal')?.state).toBe('down');
    await pool.checkNow('fal', async () => ({ reachable: true, authOk: true }));
    expect((await pool.status()).find((a) => a.name === 'fal')?.state).toBe('up');
  });

  it('the built-in simulator (no PROVIDERS_FILE entry) is admitted without a row', async () => {
    expect(pool.pooled('simulator')).toBe(false);
    expect(await pool.admit('simulator', 'z1')).toEqual({ status: 'admitted' });
    expect((await pool.status()).map((a) => a.name)).toEqual(['sim', 'fal']);
  });
});
