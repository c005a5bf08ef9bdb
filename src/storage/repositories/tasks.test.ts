// Storage contract of the task queue, on every engine: claiming, lease takeover, compare-and-set
// writes guarded by the lease owner, and a settlement that happens exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskEvents } from '../../services/tasks/events.js';
import { finalizeTask } from '../../services/tasks/finalize.js';
import type { TestKey } from '../../testing/app.js';
import { ENGINES } from '../../testing/db.js';
import { balanceOf, createTaskTestApp, expectLedgerClean, type TaskTestApp } from '../../testing/tasks.js';
import { isUniqueViolation } from '../db.js';
import { TaskAlreadySettledError } from '../ledger/ledger.js';

const LEASE = 1_000;

describe.each(ENGINES)('tasks queue on %s', (engine) => {
  let app: TaskTestApp;
  let key: TestKey;

  beforeAll(async () => {
    app = await createTaskTestApp({ engine, runner: false });
    key = await app.newKey({ balanceRub: 10_000 });
  });
  afterAll(async () => {
    await drain();
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
  const claim = (worker: string, now: number, limit = 100) =>
    app.ctx.storage.transaction((tx) => tx.tasks.claimDue(worker, now, LEASE, limit));
  const row = async (id: string) => (await app.ctx.storage.tasks.byIdForWorker(id))!;
  /** Finishes everything still open so each test starts from an empty queue. */
  const drain = async () => {
    const now = Date.now() + 10 * LEASE;
    for (const task of await claim('drain', now, 1000)) {
      await finalizeTask(
        app.ctx.storage,
        new TaskEvents(),
        task.id,
        'drain',
        { status: 'failed', error: 'drained' },
        now,
      );
    }
  };

  it('claims due pending tasks once, moving them to processing with a lease', async () => {
    await drain();
    const id = await newTask();
    const created = await row(id);
    expect(await claim('w1', created.run_at - 1)).toEqual([]);
    const now = created.run_at + 5;
    const [claimed, ...rest] = await claim('w1', now);
    expect(rest).toEqual([]);
    expect(claimed).toMatchObject({
      id,
      status: 'processing',
      lease_owner: 'w1',
      lease_expires_at: now + LEASE,
      processing_started_at: now,
    });
    // Leased: nobody else gets it, not even the same worker again.
    expect(await claim('w2', now + 1)).toEqual([]);
    expect(await claim('w1', now + 1)).toEqual([]);
    await drain();
  });

  it('concurrent claimers never share a task', async () => {
    await drain();
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add(await newTask());
    const now = Date.now() + 10;
    const batches = await Promise.all(Array.from({ length: 8 }, (_, i) => claim(`w${i}`, now, 4)));
    const claimed = batches.flat().map((t) => t.id);
    expect(new Set(claimed).size).toBe(claimed.length);
    expect(claimed.every((id) => ids.has(id))).toBe(true);
    // 8 claimers × 4 slots ≥ 20 tasks: all claimed by someone, each by exactly one.
    expect(claimed.length).toBe(20);
    for (const batch of batches)
      for (const task of batch) expect((await row(task.id)).lease_owner).toBe(task.lease_owner);
    await drain();
  });

  it('an expired lease is taken over; the old owner can no longer write', async () => {
    await drain();
    const id = await newTask();
    const t0 = (await row(id)).run_at + 1;
    await claim('dead', t0);
    expect(await claim('w2', t0 + LEASE - 1)).toEqual([]);
    const [taken] = await claim('w2', t0 + LEASE);
    // The dead worker's time counts up to its last renewal (here: its claim), not the outage after.
    expect(taken).toMatchObject({
      id,
      lease_owner: 'w2',
      processing_started_at: t0 + LEASE,
      processing_ms: 0,
    });
    const now = t0 + LEASE + 1;
    expect(await app.ctx.storage.tasks.renewLease(id, 'dead', now + LEASE)).toBe(false);
    expect(
      await app.ctx.storage.tasks.recordSubmission(id, 'dead', {
        provider: 'simulator',
        jobId: 'stale',
        providerState: null,
        nextPollAt: now,
        now,
      }),
    ).toBe(false);
    expect(await app.ctx.storage.tasks.release(id, 'dead', { runAt: now, providerState: null, now })).toBe(
      false,
    );
    expect(await app.ctx.storage.tasks.requeue(id, 'dead', { runAt: now, now })).toBe(false);
    expect(
      await finalizeTask(
        app.ctx.storage,
        new TaskEvents(),
        id,
        'dead',
        { status: 'failed', error: 'x' },
        now,
      ),
    ).toBeUndefined();
    expect(await row(id)).toMatchObject({ status: 'processing', lease_owner: 'w2', provider_job_id: null });
    expect(await app.ctx.storage.tasks.renewLease(id, 'w2', now + LEASE)).toBe(true);
    await drain();
  });

  it('the job id is recorded once, then the task waits in the queue for its poll', async () => {
    await drain();
    const id = await newTask();
    const t0 = (await row(id)).run_at + 1;
    await claim('w1', t0);
    expect(
      await app.ctx.storage.tasks.recordSubmission(id, 'w1', {
        provider: 'simulator',
        jobId: 'job-1',
        providerState: '{"polls":0}',
        nextPollAt: t0 + 500,
        now: t0,
      }),
    ).toBe(true);
    expect(await row(id)).toMatchObject({
      status: 'processing',
      provider_job_id: 'job-1',
      attempts: 1,
      lease_owner: null,
      run_at: t0 + 500,
    });
    expect(await claim('w2', t0 + 499)).toEqual([]);
    const [again] = await claim('w2', t0 + 500);
    expect(again).toMatchObject({ id, provider_job_id: 'job-1' });
    // A job id is never replaced.
    expect(
      await app.ctx.storage.tasks.recordSubmission(id, 'w2', {
        provider: 'simulator',
        jobId: 'job-2',
        providerState: null,
        nextPollAt: t0,
        now: t0,
      }),
    ).toBe(false);
    expect((await row(id)).provider_job_id).toBe('job-1');
    // The same job id again (a callback named it before the submit's answer came) is the same job.
    expect(
      await app.ctx.storage.tasks.recordSubmission(id, 'w2', {
        provider: 'simulator',
        jobId: 'job-1',
        providerState: null,
        nextPollAt: t0 + 600,
        now: t0 + 500,
      }),
    ).toBe(true);
    expect(await row(id)).toMatchObject({ provider_job_id: 'job-1', lease_owner: null, run_at: t0 + 600 });
    await drain();
  });

  it('a re-queue returns to pending with error null and banks the processing time', async () => {
    await drain();
    const id = await newTask();
    const t0 = (await row(id)).run_at + 1;
    await claim('w1', t0);
    expect(await app.ctx.storage.tasks.requeue(id, 'w1', { runAt: t0 + 1000, now: t0 + 120 })).toBe(true);
    expect(await row(id)).toMatchObject({
      status: 'pending',
      error: null,
      requeues: 1,
      processing_ms: 120,
      processing_started_at: null,
      provider_job_id: null,
      lease_owner: null,
    });
    const [back] = await claim('w1', t0 + 1000);
    expect(back).toMatchObject({
      status: 'processing',
      processing_started_at: t0 + 1000,
      processing_ms: 120,
    });
    await drain();
  });

  it('the provider timeout counts the scheduled wait for a poll, not the backlog after it', async () => {
    await drain();
    const id = await newTask();
    const t0 = (await row(id)).run_at + 1;
    await claim('w1', t0);
    // Submitted at +100, next poll due at +600: the 500 ms of waiting is the provider's time.
    expect(
      await app.ctx.storage.tasks.recordSubmission(id, 'w1', {
        provider: 'simulator',
        jobId: 'job-1',
        providerState: null,
        nextPollAt: t0 + 600,
        now: t0 + 100,
      }),
    ).toBe(true);
    expect(await row(id)).toMatchObject({ processing_ms: 100, processing_started_at: t0 + 100 });
    // Claimed 10 s late (a backlog, a restart): only the time up to run_at counts.
    const [late] = await claim('w2', t0 + 10_600);
    expect(late).toMatchObject({ processing_ms: 600, processing_started_at: t0 + 10_600 });
    // Released again at +10 700 for a poll at +11 000, then a callback moves the poll to now.
    expect(
      await app.ctx.storage.tasks.release(id, 'w2', {
        runAt: t0 + 11_000,
        providerState: null,
        now: t0 + 10_700,
      }),
    ).toBe(true);
    expect(
      await app.ctx.storage.tasks.pollNow({ provider: 'simulator', jobId: 'job-1' }, { now: t0 + 10_750 }),
    ).toBe(true);
    const [early] = await claim('w1', t0 + 10_750);
    expect(early).toMatchObject({ processing_ms: 750, processing_started_at: t0 + 10_750 });
    // A callback that names the job of an uncertain submit while a worker holds the task: the job is
    // recorded, the holder's schedule kept, and its hand-back makes the task due at once.
    await app.ctx.storage.db
      .updateTable('tasks')
      .set({ provider_job_id: null })
      .where('id', '=', id)
      .execute();
    expect(await app.ctx.storage.tasks.pollNow({ taskId: id }, { now: t0 + 10_760, jobId: 'job-2' })).toBe(
      true,
    );
    expect(await row(id)).toMatchObject({ provider_job_id: 'job-2', run_at: t0 + 10_750, lease_owner: 'w1' });
    expect(
      await app.ctx.storage.tasks.releaseUncertain(id, 'w1', {
        runAt: t0 + 99_000,
        providerState: '{}',
        now: t0 + 10_770,
      }),
    ).toBe(true);
    expect(await row(id)).toMatchObject({ run_at: t0 + 10_770, lease_owner: null });
    await claim('w1', t0 + 10_780);
    // A final task is never moved by a callback.
    await finalizeTask(
      app.ctx.storage,
      app.ctx.taskEvents,
      id,
      'w1',
      { status: 'failed', error: 'x' },
      t0 + 10_800,
    );
    expect(await app.ctx.storage.tasks.pollNow({ taskId: id }, { now: t0 + 10_900, jobId: 'other' })).toBe(
      false,
    );
    expect(await row(id)).toMatchObject({ provider_job_id: 'job-2', run_at: t0 + 10_770 });
    await drain();
  });

  it('of two racing finalizations exactly one settles', async () => {
    await drain();
    const id = await newTask();
    const t0 = (await row(id)).run_at + 1;
    await claim('w1', t0);
    const before = await balanceOf(app, key);
    const results = await Promise.all([
      finalizeTask(
        app.ctx.storage,
        new TaskEvents(),
        id,
        'w1',
        { status: 'completed', result: { video_url: 'x', duration: 5 }, cost: 45_000_000 },
        t0 + 10,
      ),
      finalizeTask(app.ctx.storage, new TaskEvents(), id, 'w1', { status: 'failed', error: 'x' }, t0 + 10),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const entries = await app.ctx.storage.ledger.entriesForTask(id);
    expect(entries.map((e) => e.kind).sort()).toEqual(['capture', 'hold', 'release']);
    const final = await row(id);
    const after = await balanceOf(app, key);
    expect(after.held).toBe(before.held - 45_000_000);
    expect(after.balance).toBe(before.balance + (final.status === 'failed' ? 45_000_000 : 0));
    // Even a direct second settlement is refused by the ledger (backed by UNIQUE(task_id, kind)).
    const second = app.ctx.storage.transaction((tx) =>
      tx.ledger.release({ keyId: key.keyId, accountId: key.accountId, now: t0 }, id, 45_000_000),
    );
    await expect(second).rejects.toSatisfy(
      (error) => error instanceof TaskAlreadySettledError || isUniqueViolation(error),
    );
    expect(await balanceOf(app, key)).toEqual(after);
    await expectLedgerClean(app);
  });

  it('idempotency rows: one per API key and Idempotency-Key; an expired row is replaced', async () => {
    const repo = app.ctx.storage.idempotency;
    const row = (now: number, fingerprint: string) => ({
      keyId: key.keyId,
      idemKey: `key-${engine}-1`,
      fingerprint,
      state: 'done' as const,
      responseStatus: 202,
      responseBody: '{}',
      taskId: null,
      now,
      expiresAt: now + 1000,
    });
    expect(await repo.tryInsert(row(1000, 'a'))).toBeTypeOf('number');
    expect(await repo.tryInsert(row(1500, 'b'))).toBeUndefined();
    expect((await repo.find(key.keyId, `key-${engine}-1`, 1500))?.fingerprint).toBe('a');
    expect(await repo.find(key.keyId, `key-${engine}-1`, 2000)).toBeUndefined();
    expect(await repo.tryInsert(row(2000, 'c'))).toBeTypeOf('number');
    expect((await repo.find(key.keyId, `key-${engine}-1`, 2001))?.fingerprint).toBe('c');
    expect(await repo.purgeExpired(3000)).toBeGreaterThanOrEqual(1);
    expect(await repo.find(key.keyId, `key-${engine}-1`, 2001)).toBeUndefined();
  });
});

// The owner-scoped video list behind GET /v1/videos and the deletion mark of DELETE /v1/videos/{id}.
describe.each(ENGINES)('video tasks of an owner on %s', (engine) => {
  let app: TaskTestApp;
  let mine: TestKey;
  let theirs: TestKey;
  const T0 = 1_700_000_000_000;

  beforeAll(async () => {
    app = await createTaskTestApp({ engine, runner: false });
    mine = await app.newKey();
    theirs = await app.newKey();
  });
  afterAll(() => app.dispose());

  let serial = 0;
  /** A final task row written directly: its time and kind are the point here, not its money. */
  const insert = async (
    key: TestKey,
    fields: { createdAt: number; kind?: string; status?: 'completed' | 'failed' | 'pending' },
  ) => {
    const id = `0190a000-0000-7000-8000-${(++serial).toString(16).padStart(12, '0')}`;
    const status = fields.status ?? 'completed';
    await app.ctx.storage.tasks.insert({
      id,
      account_id: key.accountId,
      key_id: key.keyId,
      model_id: 'sora-2',
      billing_model_id: 'sora-2',
      kind: fields.kind ?? 'video',
      status,
      params: '{}',
      hold_amount: 0,
      attempts: 0,
      requeues: 0,
      processing_ms: 0,
      result: status === 'completed' ? '{"video_url":"http://x/objects/a.mp4","duration":4}' : null,
      provider: 'simulator',
      run_at: fields.createdAt,
      created_at: fields.createdAt,
      updated_at: fields.createdAt,
      finished_at: status === 'pending' ? null : fields.createdAt,
    });
    return id;
  };
  const ids = (rows: { id: string }[]) => rows.map((row) => row.id);

  it('pages through the owner’s videos only, by creation time then id, both ways', async () => {
    const a = await insert(mine, { createdAt: T0 });
    const b = await insert(mine, { createdAt: T0 + 1 });
    const c = await insert(mine, { createdAt: T0 + 1 }); // same millisecond: the id breaks the tie
    await insert(mine, { createdAt: T0 + 2, kind: 'image' });
    await insert(theirs, { createdAt: T0 + 3 });
    const d = await insert(mine, { createdAt: T0 + 4, status: 'pending' });
    const tasks = app.ctx.storage.tasks;

    expect(ids(await tasks.videosForOwner(mine.accountId, { order: 'desc', limit: 10 }))).toEqual([
      d,
      c,
      b,
      a,
    ]);
    expect(ids(await tasks.videosForOwner(mine.accountId, { order: 'asc', limit: 10 }))).toEqual([
      a,
      b,
      c,
      d,
    ]);
    const first = await tasks.videosForOwner(mine.accountId, { order: 'desc', limit: 2 });
    expect(ids(first)).toEqual([d, c]);
    const cursor = { createdAt: first[1].created_at, id: first[1].id };
    expect(
      ids(await tasks.videosForOwner(mine.accountId, { order: 'desc', limit: 2, after: cursor })),
    ).toEqual([b, a]);
    expect(
      ids(await tasks.videosForOwner(mine.accountId, { order: 'asc', limit: 5, after: cursor })),
    ).toEqual([d]);
    expect(await tasks.videosForOwner(theirs.accountId + 1000, { order: 'desc', limit: 5 })).toEqual([]);
  });

  it('marks only the owner’s final, undeleted video as deleted, once; deleted ones leave the list', async () => {
    const done = await insert(theirs, { createdAt: T0 + 10 });
    const failed = await insert(theirs, { createdAt: T0 + 11, status: 'failed' });
    const running = await insert(theirs, { createdAt: T0 + 12, status: 'pending' });
    const image = await insert(theirs, { createdAt: T0 + 13, kind: 'image' });
    const tasks = app.ctx.storage.tasks;
    const mark = (key: TestKey, id: string) =>
      tasks.markVideoDeleted(key.accountId, id, {
        result: JSON.stringify({ video_url: null, deleted_at: '2026-01-01T00:00:00.000Z' }),
        now: T0 + 20,
      });

    expect(await mark(mine, done)).toBe(false); // another account's
    expect(await mark(theirs, running)).toBe(false);
    expect(await mark(theirs, image)).toBe(false);
    expect(await mark(theirs, done)).toBe(true);
    expect(await mark(theirs, done)).toBe(false); // already deleted
    expect(await mark(theirs, failed)).toBe(true);

    const row = await tasks.getForOwner(theirs.accountId, done);
    expect(row).toMatchObject({ status: 'completed', updated_at: T0 + 20 });
    expect(JSON.parse(row?.result ?? '{}')).toEqual({
      video_url: null,
      deleted_at: '2026-01-01T00:00:00.000Z',
    });
    const listed = ids(await tasks.videosForOwner(theirs.accountId, { order: 'desc', limit: 10 }));
    expect(listed).toContain(running);
    expect(listed).not.toContain(done);
    expect(listed).not.toContain(failed);
  });
});

describe.each(ENGINES)('task list of an owner on %s', (engine) => {
  let app: TaskTestApp;
  let mine: TestKey;
  let theirs: TestKey;
  const T0 = 1_710_000_000_000;

  beforeAll(async () => {
    app = await createTaskTestApp({ engine, runner: false });
    mine = await app.newKey();
    theirs = await app.newKey();
  });
  afterAll(() => app.dispose());

  let serial = 0;
  const insert = async (
    key: TestKey,
    fields: { createdAt: number; model?: string; kind?: string; status?: 'completed' | 'failed' | 'pending' },
  ) => {
    const id = `0191b000-0000-7000-8000-${(++serial).toString(16).padStart(12, '0')}`;
    const status = fields.status ?? 'completed';
    await app.ctx.storage.tasks.insert({
      id,
      account_id: key.accountId,
      key_id: key.keyId,
      model_id: fields.model ?? 'seedream-4',
      billing_model_id: fields.model ?? 'seedream-4',
      kind: fields.kind ?? 'image',
      status,
      params: '{}',
      hold_amount: 0,
      attempts: 0,
      requeues: 0,
      processing_ms: 0,
      result: null,
      provider: 'simulator',
      run_at: fields.createdAt,
      created_at: fields.createdAt,
      updated_at: fields.createdAt,
      finished_at: status === 'pending' ? null : fields.createdAt,
    });
    return id;
  };
  const ids = (rows: { id: string }[]) => rows.map((row) => row.id);

  it('pages newest first through every kind of the owner’s tasks, with status and model filters', async () => {
    const a = await insert(mine, { createdAt: T0, status: 'failed' });
    const b = await insert(mine, { createdAt: T0 + 1, kind: 'video', model: 'sora-2' });
    const c = await insert(mine, { createdAt: T0 + 1 }); // same millisecond: the id breaks the tie
    await insert(theirs, { createdAt: T0 + 2 });
    const d = await insert(mine, { createdAt: T0 + 3, status: 'pending' });
    const tasks = app.ctx.storage.tasks;

    expect(ids(await tasks.listForOwner(mine.accountId, { limit: 10 }))).toEqual([d, c, b, a]);
    const first = await tasks.listForOwner(mine.accountId, { limit: 2 });
    expect(ids(first)).toEqual([d, c]);
    const after = { createdAt: first[1].created_at, id: first[1].id };
    expect(ids(await tasks.listForOwner(mine.accountId, { limit: 2, after }))).toEqual([b, a]);
    expect(ids(await tasks.listForOwner(mine.accountId, { limit: 10, status: 'completed' }))).toEqual([c, b]);
    expect(ids(await tasks.listForOwner(mine.accountId, { limit: 10, modelId: 'sora-2' }))).toEqual([b]);
    expect(
      ids(await tasks.listForOwner(mine.accountId, { limit: 10, status: 'pending', modelId: 'sora-2' })),
    ).toEqual([]);
    expect(ids(await tasks.listForOwner(mine.accountId, { limit: 10, status: 'failed', after }))).toEqual([
      a,
    ]);
    expect(await tasks.listForOwner(theirs.accountId + 1000, { limit: 5 })).toEqual([]);
  });
});
