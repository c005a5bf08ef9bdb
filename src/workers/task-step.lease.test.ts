// A submit cannot be taken back, so it is only sent while the task is still this worker's:
// - the pool's admission (database writes, a lock per account) can outlast the lease under load;
//   another worker that claimed the task meanwhile submits it, so this step must not;
// - a runner whose own lease ran out may claim the task back while its step still runs; it must
//   not start a second step (which would submit again).
// Both seen in a chaos run as one task submitted twice, the first job "not stored".

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PollOutcome, ProviderTask, SubmitOutcome, TaskProvider } from '../providers/task-provider.js';
import type { TestKey } from '../testing/app.js';
import { ENGINES } from '../testing/db.js';
import {
  createTaskTestApp,
  expectLedgerClean,
  generate,
  type TaskTestApp,
  waitForFinal,
} from '../testing/tasks.js';
import { TaskRunner } from './task-runner.js';
import { type StepDeps, TaskStep } from './task-step.js';

/** Counts submits; a submit waits for `gate` when one is set; every submit is refused (params). */
class CountingProvider implements TaskProvider {
  readonly type = 'counting';
  submits = new Map<string, number>();
  gate: Promise<void> | undefined;

  async submit(task: ProviderTask): Promise<SubmitOutcome> {
    this.submits.set(task.id, (this.submits.get(task.id) ?? 0) + 1);
    await this.gate;
    return { status: 'failed', failure: { kind: 'params', message: 'refused by the test provider' } };
  }

  async poll(): Promise<PollOutcome> {
    return { status: 'running' };
  }
}

const LEASE_MS = 200;

describe.each(ENGINES)('a submit only while the lease is ours, on %s', (engine) => {
  let app: TaskTestApp;
  let key: TestKey;
  let dir: string;
  const provider = new CountingProvider();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gengate-lease-'));
    const providersFile = join(dir, 'providers.json');
    writeFileSync(
      providersFile,
      JSON.stringify({
        providers: {
          acct: { type: 'fal', base_url: 'http://127.0.0.1:9', api_key: 'k', max_concurrency: 5 },
        },
        routes: { 'kling-2-1': { provider: 'acct', model: 'k' } },
      }),
    );
    app = await createTaskTestApp({ engine, runner: false, config: { providersFile, leaseMs: LEASE_MS } });
    app.ctx.taskProviders.registerType('fal', () => provider);
    key = await app.newKey({ balanceRub: 1000 });
  });

  afterAll(async () => {
    await expectLedgerClean(app);
    await app.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  function deps(): StepDeps {
    const { ctx } = app;
    return {
      storage: ctx.storage,
      clock: ctx.clock,
      events: ctx.taskEvents,
      providers: ctx.taskProviders,
      objects: ctx.objects,
      pool: ctx.providerPool,
      log: { info: () => {}, error: () => {} },
    };
  }

  const settings = (workerId: string) => ({
    workerId,
    leaseMs: LEASE_MS,
    providerTimeoutMs: 60_000,
    requeueDelayMs: 20,
    minPollDelayMs: 10,
    maxResultBytes: app.config.maxResultBytes,
    publicUrl: app.config.publicUrl,
  });

  async function newTask(): Promise<string> {
    const res = await generate(app, key, { model_name: 'kling-2-1', prompt: 'p', duration: 5 });
    expect(res.statusCode).toBe(202);
    return res.json().task_id as string;
  }

  it('a task claimed by another worker while the pool admitted it is not submitted by this one', async () => {
    const taskId = await newTask();
    const [claimed] = await app.ctx.storage.tasks.claimDue('worker-a', app.ctx.clock.now(), LEASE_MS, 10);
    expect(claimed?.id).toBe(taskId);
    const pool = app.ctx.providerPool;
    const admit = pool.admit.bind(pool);
    // The admission outlasts the lease (waiting for a connection and the account's lock), and
    // worker-b takes the task over as soon as the lease has run out.
    const slowAdmit = vi.spyOn(pool, 'admit').mockImplementation(async (...args) => {
      const result = await admit(...args);
      await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 50));
      const [takenOver] = await app.ctx.storage.tasks.claimDue('worker-b', app.ctx.clock.now(), 60_000, 10);
      expect(takenOver?.id).toBe(taskId);
      return result;
    });
    try {
      await new TaskStep(deps(), settings('worker-a')).run(claimed);
    } finally {
      slowAdmit.mockRestore();
    }
    expect(provider.submits.get(taskId)).toBeUndefined();
    const row = await app.ctx.storage.tasks.byIdForWorker(taskId);
    expect(row).toMatchObject({ status: 'processing', lease_owner: 'worker-b', provider_job_id: null });

    // worker-b's step submits it, once, and finishes it (the place it holds is given back).
    const step = new TaskStep(deps(), settings('worker-b'));
    await step.run({ ...(row as NonNullable<typeof row>) });
    expect(provider.submits.get(taskId)).toBe(1);
    expect((await waitForFinal(app, key, taskId)).status).toBe('failed');
    expect((await pool.status()).find((a) => a.name === 'acct')?.in_flight).toBe(0);
  });

  it('a runner that claims back its own task while its step still runs starts no second step', async () => {
    const taskId = await newTask();
    let open!: () => void;
    provider.gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    // A long lease: no heartbeat renews it during the test; the test expires it by hand.
    const runner = new TaskRunner(deps(), {
      ...settings('worker-c'),
      leaseMs: 60_000,
      concurrency: 4,
      pollIntervalMs: 60_000,
    });
    try {
      expect(await runner.tick()).toBe(1);
      await vi.waitFor(() => expect(provider.submits.get(taskId)).toBe(1));
      // The step is inside the submit when its lease runs out (renewals stalled): the next claim
      // takes the task back for this same runner.
      await app.db.kysely
        .updateTable('tasks')
        .set({ lease_expires_at: 1 })
        .where('id', '=', taskId)
        .execute();
      expect(await runner.tick()).toBe(1);
      open();
      expect((await waitForFinal(app, key, taskId)).status).toBe('failed');
      await runner.stop();
      expect(provider.submits.get(taskId)).toBe(1);
    } finally {
      provider.gate = undefined;
      open();
      await runner.stop();
    }
  });
});
