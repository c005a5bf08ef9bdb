// Several accounts behind one model, end to end with loopback fal fakes (one fake per account):
// traffic split by weight, an account at its max_concurrency (the next account, or a re-queue), an
// account answering 5xx (the breaker opens, traffic moves, one probe closes it), an account whose
// key is refused (down, then up again within PROVIDER_RECHECK_MS once fixed). No task fails while
// another account can serve it, and the ledger stays clean. Timings are short on purpose.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, patchKey } from '../testing/app.js';
import { ENGINES } from '../testing/db.js';
import { FAL_TEST_KEY, type FalFake, startFalFake } from '../testing/fakes/fal.js';
import { parseExposition } from '../testing/prometheus-text.js';
import { type ProviderE2E, startProviderE2E, waitFor } from '../testing/provider-e2e.js';
import type { RunningWorker } from './loop.js';
import { startProviderRecheck } from './provider-recheck.js';

const RECHECK_MS = 500;
/** Long enough that the task sent while cooling is submitted before the probe is due, under load. */
const COOLDOWN_MS = 2_000;
/** IN_PROGRESS for 8 polls (backing off from 10 ms: about 2.5 s), then COMPLETED: a job in flight a while. */
const SLOW = { statuses: [...Array(8).fill('IN_PROGRESS'), 'COMPLETED'] };

describe.each(ENGINES)('provider accounts on %s', (engine) => {
  const fakes: Record<string, FalFake> = {};
  let e2e: ProviderE2E;
  let recheck: RunningWorker;

  function account(name: string, extra: Record<string, unknown> = {}) {
    return { type: 'fal', base_url: fakes[name].origin, api_key: FAL_TEST_KEY, ...extra };
  }

  beforeAll(async () => {
    for (const name of ['w1', 'w2', 'capped', 'spill', 'flaky', 'backup', 'locked', 'spare'])
      fakes[name] = await startFalFake();
    e2e = await startProviderE2E({
      engine,
      providers: {
        providers: {
          w1: account('w1'),
          w2: account('w2'),
          capped: account('capped', { max_concurrency: 1 }),
          spill: account('spill'),
          flaky: account('flaky'),
          backup: account('backup'),
          locked: account('locked', { api_key: 'fal-key-revoked' }),
          spare: account('spare'),
        },
        routes: {
          'flux-1-1-pro': [
            { provider: 'w1', weight: 3 },
            { provider: 'w2', weight: 1 },
          ],
          'kling-2-1': [{ provider: 'capped' }, { provider: 'spill' }],
          'veo-3-fast': { provider: 'capped' },
          'nano-banana': [{ provider: 'flaky' }, { provider: 'backup' }],
          'seedream-4': [{ provider: 'locked' }, { provider: 'spare' }],
        },
      },
      config: {
        requeueDelayMs: 50,
        providerRecheckMs: RECHECK_MS,
        providerBreakerWindowMs: 60_000,
        providerBreakerMinRequests: 3,
        providerBreakerFailurePercent: 50,
        providerBreakerCooldownMs: COOLDOWN_MS,
        workerConcurrency: 16,
      },
      balanceRub: 100_000,
    });
    // Polling GET /tasks of 40 tasks at once would meet the key's default rate limit.
    await patchKey(e2e.app, e2e.key, { rate_limit_per_min: 1_000_000 });
    recheck = startProviderRecheck(e2e.app.ctx, () => {});
  });

  afterAll(async () => {
    await recheck?.stop();
    await e2e?.expectLedgerClean();
    await e2e?.dispose();
    await Promise.all(Object.values(fakes).map((fake) => fake.close()));
  });

  async function run(params: Record<string, unknown>) {
    const created = await e2e.generate({ prompt: 'a lighthouse at dusk', ...params });
    expect(created.status).toBe(202);
    return created.body.task_id as string;
  }

  async function accounts(): Promise<Record<string, any>> {
    const res = await e2e.app.http.inject({
      method: 'GET',
      url: '/admin/providers',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(res.statusCode).toBe(200);
    return Object.fromEntries(res.json().data.map((row: any) => [row.name, row]));
  }

  it('two accounts with weights 3 and 1 share the traffic by weight', async () => {
    const ids = await Promise.all(Array.from({ length: 40 }, () => run({ model_name: 'flux-1-1-pro' })));
    const tasks = await Promise.all(ids.map((id) => e2e.waitForFinal(id, 30_000)));
    expect(tasks.every((task) => task.status === 'completed')).toBe(true);
    const a = fakes.w1.jobs.size;
    const b = fakes.w2.jobs.size;
    expect(a + b).toBe(40);
    // 3:1 of 40 is 30 and 10; a binomial draw stays within these bounds all but never.
    expect(a).toBeGreaterThanOrEqual(20);
    expect(b).toBeGreaterThanOrEqual(2);
    const rows = await Promise.all(ids.map((id) => e2e.taskRow(id)));
    expect(rows.filter((row) => row.provider === 'w1')).toHaveLength(a);
  });

  it('an account at its max_concurrency sends the next task to the next account', async () => {
    fakes.capped.defaultScript = SLOW;
    const first = await run({ model_name: 'kling-2-1', duration: 5 });
    await waitFor(
      () => fakes.capped.jobs.size,
      (n) => n === 1,
    );
    expect((await accounts()).capped).toMatchObject({ in_flight: 1, max_concurrency: 1, state: 'up' });
    const more = await Promise.all([run({ model_name: 'kling-2-1' }), run({ model_name: 'kling-2-1' })]);
    const spilled = await Promise.all(more.map((id) => e2e.waitForFinal(id, 15_000)));
    expect(spilled.map((task) => task.status)).toEqual(['completed', 'completed']);
    expect(fakes.capped.jobs.size).toBe(1);
    expect(fakes.spill.jobs.size).toBe(2);
    // Only route, at its cap: the task is re-queued (not failed) and runs once the place is free.
    const queued = await run({ model_name: 'veo-3-fast', duration: 8 });
    await waitFor(
      () => e2e.taskRow(queued),
      (row) => row.requeues >= 1,
    );
    expect(fakes.capped.submitCalls).toHaveLength(1);
    expect((await e2e.waitForFinal(first, 20_000)).status).toBe('completed');
    fakes.capped.defaultScript = {};
    const later = await e2e.waitForFinal(queued, 20_000);
    expect(later.status).toBe('completed');
    expect(fakes.capped.jobs.size).toBe(2);
    expect((await accounts()).capped.in_flight).toBe(0);
  });

  it('an account answering 5xx: the breaker opens, traffic moves, one probe closes it', async () => {
    fakes.flaky.defaultScript = {
      reject: {
        status: 503,
        json: { detail: 'Service Unavailable' },
        headers: { 'x-fal-retryable': 'true' },
      },
    };
    for (let i = 0; i < 3; i++) {
      const task = await e2e.waitForFinal(await run({ model_name: 'nano-banana' }));
      expect(task.status).toBe('completed');
    }
    expect(fakes.flaky.submitCalls).toHaveLength(3);
    expect(fakes.backup.jobs.size).toBe(3);
    const cooling = (await accounts()).flaky;
    expect(cooling).toMatchObject({ state: 'cooling', in_flight: 0 });
    expect(cooling.last_error).toContain('503');
    // While it cools down the account is skipped: no call reaches it.
    const skipped = await e2e.waitForFinal(await run({ model_name: 'nano-banana' }));
    expect(skipped.status).toBe('completed');
    expect(fakes.flaky.submitCalls).toHaveLength(3);
    // Fixed upstream; after the cool-down one task probes it and closes the breaker.
    fakes.flaky.defaultScript = {};
    await new Promise((resolve) => setTimeout(resolve, COOLDOWN_MS + 50));
    const probe = await e2e.waitForFinal(await run({ model_name: 'nano-banana' }));
    expect(probe.status).toBe('completed');
    expect(fakes.flaky.jobs.size).toBe(1);
    expect((await accounts()).flaky.state).toBe('up');
    expect(fakes.backup.jobs.size).toBe(4);
  });

  it('an account answering 401 is down, then up again within PROVIDER_RECHECK_MS once fixed', async () => {
    const first = await e2e.waitForFinal(await run({ model_name: 'seedream-4' }));
    expect(first.status).toBe('completed');
    expect(fakes.locked.submitCalls).toHaveLength(1);
    expect(fakes.spare.jobs.size).toBe(1);
    const down = (await accounts()).locked;
    expect(down).toMatchObject({ name: 'locked', type: 'fal', state: 'down' });
    expect(down.last_error).toContain('401');
    expect(Date.parse(down.checked_at)).toBeGreaterThan(0);
    // Down: skipped, and re-checked (never a generation) while the key is still refused.
    const second = await e2e.waitForFinal(await run({ model_name: 'seedream-4' }));
    expect(second.status).toBe('completed');
    expect(fakes.locked.submitCalls).toHaveLength(1);
    await waitFor(
      () => fakes.locked.server.calls(/\/requests\/[^/]+\/status$/, 'GET').length,
      (n) => n >= 1,
      RECHECK_MS * 3,
    );
    expect((await accounts()).locked.state).toBe('down');
    // The operator fixes the key at the upstream: the account is up within PROVIDER_RECHECK_MS.
    fakes.locked.apiKey = 'fal-key-revoked';
    const fixedAt = Date.now();
    await waitFor(
      async () => (await accounts()).locked.state,
      (state) => state === 'up',
      RECHECK_MS * 3,
    );
    // One interval, plus the loop's tick (a quarter of it) and the check call itself.
    expect(Date.now() - fixedAt).toBeLessThan(RECHECK_MS + 750);
    const third = await e2e.waitForFinal(await run({ model_name: 'seedream-4' }));
    expect(third.status).toBe('completed');
    expect(fakes.locked.jobs.size).toBe(1);
  });

  it("exposes each account's state and jobs in flight in /metrics", async () => {
    const res = await e2e.app.http.inject({ method: 'GET', url: '/metrics' });
    const samples = parseExposition(res.body).samples;
    const state = (provider: string, name: string) =>
      samples.find(
        (s) =>
          s.name === 'gengate_provider_account_state' &&
          s.labels.provider === provider &&
          s.labels.state === name,
      )?.value;
    expect(state('locked', 'up')).toBe(1);
    expect(state('locked', 'down')).toBe(0);
    expect(state('flaky', 'cooling')).toBe(0);
    const inFlight = samples.filter((s) => s.name === 'gengate_provider_in_flight');
    expect(inFlight.map((s) => s.labels.provider).sort()).toEqual(Object.keys(fakes).sort());
    expect(inFlight.every((s) => s.value === 0)).toBe(true);
  });
});
