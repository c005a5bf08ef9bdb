// The queue figures of /metrics on every engine: depth by status, expired leases, and the claim that
// counts the tasks it takes over from a worker whose lease ran out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metrics } from '../services/metrics.js';
import { TaskEvents } from '../services/tasks/events.js';
import { finalizeTask } from '../services/tasks/finalize.js';
import type { TestKey } from '../testing/app.js';
import { ENGINES } from '../testing/db.js';
import { createTaskTestApp, expectLedgerClean, type TaskTestApp } from '../testing/tasks.js';
import { claimDueCountingTakeovers } from '../workers/claim-counting-takeovers.js';
import { expiredLeaseIds, readQueueDepth } from './queue-stats.js';

const LEASE = 1_000;

describe.each(ENGINES)('queue stats on %s', (engine) => {
  let app: TaskTestApp;
  let key: TestKey;

  beforeAll(async () => {
    app = await createTaskTestApp({ engine, runner: false });
    key = await app.newKey({ balanceRub: 10_000 });
  });
  afterAll(async () => {
    await expectLedgerClean(app);
    await app.dispose();
  });

  const newTask = async () =>
    (
      await app.ctx.tasks.create({
        key: await app.ctx.auth.authenticate(key.auth.authorization),
        params: { model_name: 'seedance-2' },
      })
    ).id;
  const claim = (worker: string, now: number, metrics?: Metrics, limit = 100) =>
    claimDueCountingTakeovers(app.ctx.storage, metrics, { workerId: worker, now, leaseMs: LEASE, limit });
  const takeovers = async (metrics: Metrics) =>
    (await metrics.leaseTakeovers.get()).values.reduce((sum, v) => sum + v.value, 0);

  it('counts pending and processing tasks, the expired leases among them, and takeovers at claim', async () => {
    const db = app.ctx.storage.db;
    const start = Date.now();
    expect(await readQueueDepth(db, start)).toEqual({ pending: 0, processing: 0, expiredLeases: 0 });

    const [a, b, c] = [await newTask(), await newTask(), await newTask()];
    expect(await readQueueDepth(db, start)).toEqual({ pending: 3, processing: 0, expiredLeases: 0 });

    // w1 claims all three and then dies; its leases run out at start + 1000 + LEASE.
    const t1 = start + 1_000;
    const first = new Metrics();
    expect((await claim('w1', t1, first)).map((t) => t.id).sort()).toEqual([a, b, c].sort());
    expect(await takeovers(first)).toBe(0);
    expect(await readQueueDepth(db, t1)).toEqual({ pending: 0, processing: 3, expiredLeases: 0 });

    const t2 = t1 + LEASE + 1;
    expect(await readQueueDepth(db, t2)).toEqual({ pending: 0, processing: 3, expiredLeases: 3 });
    expect((await expiredLeaseIds(db, t2, 10)).sort()).toEqual([a, b, c].sort());
    expect(await expiredLeaseIds(db, t2, 2)).toHaveLength(2);

    // w2 takes over two of them, then the third; a pending task claimed alongside is no takeover.
    await new Promise((resolve) => setTimeout(resolve, 5)); // d's run_at comes after the others'
    const d = await newTask();
    const second = new Metrics();
    const taken = await claim('w2', t2, second, 2);
    expect(taken).toHaveLength(2);
    expect(await takeovers(second)).toBe(2);
    const rest = await claim('w2', t2, second);
    expect(rest.map((t) => t.id).sort()).toEqual(
      [...[a, b, c].filter((id) => !taken.some((t) => t.id === id)), d].sort(),
    );
    expect(await takeovers(second)).toBe(3);
    expect(await readQueueDepth(db, t2)).toEqual({ pending: 0, processing: 4, expiredLeases: 0 });

    // Final tasks leave the queue.
    for (const id of [a, b, c, d])
      await finalizeTask(
        app.ctx.storage,
        new TaskEvents(),
        id,
        'w2',
        { status: 'failed', error: 'done' },
        t2,
      );
    expect(await readQueueDepth(db, t2)).toEqual({ pending: 0, processing: 0, expiredLeases: 0 });
  });
});
