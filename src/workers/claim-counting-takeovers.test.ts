// A claim's lease is dated from when its transaction runs, not from when it was queued: under load
// a claim can wait behind other transactions for longer than a lease, and a lease dated from the
// queueing would already have run out at commit, handing the task to a second worker at once (the
// chaos run saw two live workers submit one task 0.4 s apart). SQLite: its group commit queues a
// transaction behind the one running, which makes the wait deterministic here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Metrics } from '../services/metrics.js';
import type { TestKey } from '../testing/app.js';
import { HAVE_POSTGRES } from '../testing/services.js';
import { createTaskTestApp, expectLedgerClean, type TaskTestApp } from '../testing/tasks.js';
import { claimDueCountingTakeovers } from './claim-counting-takeovers.js';

describe('claiming due tasks', () => {
  let app: TaskTestApp;
  let key: TestKey;
  beforeAll(async () => {
    app = await createTaskTestApp({ engine: 'sqlite', runner: false });
    key = await app.newKey({ balanceRub: 1_000 });
  });
  afterAll(async () => {
    await expectLedgerClean(app);
    await app.dispose();
  });

  it('dates the lease from when the claim runs, after a wait in the queue', async () => {
    const created = await app.ctx.tasks.create({
      key: await app.ctx.auth.authenticate(key.auth.authorization),
      params: { model_name: 'seedance-2' },
    });
    let clock = Date.now() + 1_000;
    let release!: () => void;
    const running = app.ctx.storage.transaction(() => new Promise<void>((resolve) => (release = resolve)));
    const claim = claimDueCountingTakeovers(app.ctx.storage, undefined, {
      workerId: 'worker-a',
      now: () => clock,
      leaseMs: 500,
      limit: 10,
    });
    // The claim waits behind the running transaction while the clock moves on past its lease.
    await new Promise((resolve) => setTimeout(resolve, 50));
    clock += 60_000;
    release();
    await running;
    const claimed = await claim;
    expect(claimed.map((t) => t.id)).toEqual([created.id]);
    expect(claimed[0]?.lease_expires_at).toBe(clock + 500);
    // So another worker finds nothing to take over.
    const other = await claimDueCountingTakeovers(app.ctx.storage, undefined, {
      workerId: 'worker-b',
      now: () => clock + 100,
      leaseMs: 500,
      limit: 10,
    });
    expect(other).toEqual([]);
    // Leave the task to the ledger check as a worker would: released back to the queue.
    await app.ctx.storage.tasks.release(created.id, 'worker-a', {
      runAt: clock,
      providerState: null,
      now: clock,
    });
  });
});

describe.skipIf(!HAVE_POSTGRES)(
  'claiming due tasks on PostgreSQL: takeovers counted by the claim itself',
  () => {
    let app: TaskTestApp;
    let key: TestKey;
    beforeAll(async () => {
      app = await createTaskTestApp({ engine: 'postgres', runner: false });
      key = await app.newKey({ balanceRub: 1_000 });
    });
    afterAll(async () => {
      await expectLedgerClean(app);
      await app.dispose();
    });

    it('a fresh claim counts none; a claim of a task whose lease ran out counts one', async () => {
      const counted: number[] = [];
      const metrics = { leaseTakeovers: { inc: (n: number) => counted.push(n) } } as unknown as Metrics;
      const created = await app.ctx.tasks.create({
        key: await app.ctx.auth.authenticate(key.auth.authorization),
        params: { model_name: 'seedance-2' },
      });
      const start = Date.now() + 1_000;
      const claim = (workerId: string, now: number) =>
        claimDueCountingTakeovers(app.ctx.storage, metrics, { workerId, now, leaseMs: 500, limit: 10 });
      expect((await claim('worker-a', start)).map((t) => t.id)).toEqual([created.id]);
      expect(counted).toEqual([]);
      // Still leased: nothing for another worker.
      expect(await claim('worker-b', start + 100)).toEqual([]);
      const taken = await claim('worker-b', start + 600);
      expect(taken.map((t) => t.id)).toEqual([created.id]);
      expect(taken[0]).not.toHaveProperty('taken_over');
      expect(counted).toEqual([1]);
      await app.ctx.storage.tasks.release(created.id, 'worker-b', {
        runAt: start + 600,
        providerState: null,
        now: start + 600,
      });
    });
  },
);
