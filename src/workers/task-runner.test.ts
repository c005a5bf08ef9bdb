// The task engine end to end in one process: every simulator directive, the transitions and the
// ledger after each one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureMessage } from '../domain/tasks/failures.js';
import { TASK_FAILURE } from '../domain/tasks/states.js';
import { SIM_FAILURES } from '../providers/simulator/simulator.js';

const SIM_FAILURE_MESSAGES = {
  reject: failureMessage(SIM_FAILURES.reject),
  billing: failureMessage(SIM_FAILURES.billing),
  overload: failureMessage(SIM_FAILURES.overload),
  params: failureMessage(SIM_FAILURES.params),
};

import type { TestKey } from '../testing/app.js';
import { ENGINES } from '../testing/db.js';
import {
  balanceOf,
  createTaskTestApp,
  expectLedgerClean,
  generate,
  getTask,
  type TaskTestApp,
  waitForFinal,
} from '../testing/tasks.js';

const RUB = 1_000_000;

async function create(app: TaskTestApp, key: TestKey, params: Record<string, unknown>): Promise<string> {
  const res = await generate(app, key, params);
  expect(res.statusCode).toBe(202);
  return res.json().task_id;
}

describe.each(ENGINES)('task runner with the simulator on %s', (engine) => {
  let app: TaskTestApp;
  beforeAll(async () => {
    app = await createTaskTestApp({ engine });
  });
  afterAll(async () => {
    await expectLedgerClean(app);
    await app.dispose();
  });

  it('completes a seedance-2 task: result stored, hold captured, balance down by exactly the price', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const taskId = await create(app, key, {
      model_name: 'seedance-2',
      prompt: 'a lighthouse at dawn',
      aspect_ratio: '9:16',
      duration: 10,
    });
    const task = await waitForFinal(app, key, taskId);
    expect(task).toMatchObject({ status: 'completed', error: null });
    expect(task.result).toEqual({
      video_url: expect.stringMatching(
        new RegExp(`^${app.config.publicUrl}/objects/[A-Za-z0-9_-]{22}\\.mp4$`),
      ),
      duration: 10,
    });
    expect(await balanceOf(app, key)).toEqual({ balance: 55 * RUB, held: 0 });
    const entries = await app.ctx.storage.ledger.entriesForTask(taskId);
    expect(entries.map((e) => [e.kind, Number(e.amount)])).toEqual([
      ['hold', 45 * RUB],
      ['capture', 45 * RUB],
      ['release', 0],
    ]);
    const row = await app.ctx.storage.tasks.byIdForWorker(taskId);
    expect(row).toMatchObject({ attempts: 1, cost: 45 * RUB, lease_owner: null });
    expect(row?.provider_job_id).toMatch(/^sim_/);
  });

  it('an image task result is {image_url, width, height} with a PNG of the aspect ratio', async () => {
    const key = await app.newKey({ balanceRub: 10 });
    const taskId = await create(app, key, {
      model_name: 'flux-1-1-pro',
      prompt: 'a red fox',
      aspect_ratio: '16:9',
    });
    const task = await waitForFinal(app, key, taskId);
    expect(task.status).toBe('completed');
    expect(task.result).toEqual({
      image_url: expect.stringMatching(/\/objects\/[A-Za-z0-9_-]{22}\.png$/),
      width: 512,
      height: 288,
    });
    const file = await app.http.inject({ method: 'GET', url: new URL(task.result!.image_url).pathname });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    expect(file.rawPayload.subarray(1, 4).toString()).toBe('PNG');
    expect(file.rawPayload.readUInt32BE(16)).toBe(512);
    expect(file.rawPayload.readUInt32BE(20)).toBe(288);
    expect(await balanceOf(app, key)).toEqual({ balance: 5.5 * RUB, held: 0 });
  });

  it.each([
    ['reject', SIM_FAILURE_MESSAGES.reject],
    ['billing', SIM_FAILURE_MESSAGES.billing],
    ['overload', SIM_FAILURE_MESSAGES.overload],
    ['params', SIM_FAILURE_MESSAGES.params],
  ])(
    '[sim:fail=%s] ends failed with the spec message and restores the balance exactly',
    async (directive, message) => {
      const key = await app.newKey({ balanceRub: 123.456789 });
      const taskId = await create(app, key, {
        model_name: 'kling-2-1',
        prompt: `a cat [sim:fail=${directive}]`,
        duration: 10,
      });
      expect(await balanceOf(app, key)).toEqual({ balance: 63_456_789, held: 60 * RUB });
      const task = await waitForFinal(app, key, taskId);
      expect(task).toMatchObject({ status: 'failed', result: null, error: message });
      expect(await balanceOf(app, key)).toEqual({ balance: 123_456_789, held: 0 });
      const entries = await app.ctx.storage.ledger.entriesForTask(taskId);
      expect(entries.map((e) => [e.kind, Number(e.amount)])).toEqual([
        ['hold', 60 * RUB],
        ['capture', 0],
        ['release', 60 * RUB],
      ]);
    },
  );

  it('the spec messages are exact', () => {
    expect(SIM_FAILURE_MESSAGES.reject).toBe('Provider rejected prompt: contains restricted content');
    expect(SIM_FAILURE_MESSAGES.billing).toBe('Provider billing error');
    expect(SIM_FAILURE_MESSAGES.overload).toBe('Service temporarily unavailable (code E-294, high load)');
    expect(TASK_FAILURE.timeout).toBe('Timeout while waiting for provider response');
  });

  it('[sim:tokens=N] captures the actual cost of a token-billed video, releases the rest, records both', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const taskId = await create(app, key, {
      model_name: 'seedance-1-pro',
      prompt: 'waves [sim:tokens=100000]',
      duration: 5,
      resolution: '1080p',
    });
    const task = await waitForFinal(app, key, taskId);
    expect(task.status).toBe('completed');
    // Held 243 000 tokens × 220 RUB/1M = 53.46 RUB; used 100 000 tokens = 22 RUB.
    const entries = await app.ctx.storage.ledger.entriesForTask(taskId);
    expect(entries.map((e) => [e.kind, Number(e.amount)])).toEqual([
      ['hold', 53_460_000],
      ['capture', 22 * RUB],
      ['release', 31_460_000],
    ]);
    expect(await balanceOf(app, key)).toEqual({ balance: 78 * RUB, held: 0 });
  });

  it('token-billed video reporting more than the worst case is capped at the hold', async () => {
    const key = await app.newKey({ balanceRub: 100, coefficient: 2 });
    const taskId = await create(app, key, {
      model_name: 'seedance-1-pro',
      prompt: 'waves [sim:tokens=9999999]',
      duration: 3,
      resolution: '480p',
    });
    expect((await waitForFinal(app, key, taskId)).status).toBe('completed');
    const hold = 2 * 6_415_200; // 9720 tokens/s × 3 s × 220 RUB per 1M = 6.4152 RUB, × coefficient 2
    const entries = await app.ctx.storage.ledger.entriesForTask(taskId);
    expect(entries.map((e) => [e.kind, Number(e.amount)])).toEqual([
      ['hold', hold],
      ['capture', hold],
      ['release', 0],
    ]);
  });

  it('writes the webhook outbox row in the finalizing transaction', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const taskId = await create(app, key, {
      model_name: 'seedance-2',
      prompt: 'x [sim:fail=billing]',
      webhook_url: 'http://127.0.0.1:9/hook',
    });
    await waitForFinal(app, key, taskId);
    const deliveries = await app.ctx.storage.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('task_id', '=', taskId)
      .execute();
    expect(deliveries).toHaveLength(1);
    expect(JSON.parse(deliveries[0].payload)).toEqual({
      task_id: taskId,
      status: 'failed',
      error: 'Provider billing error',
    });
  });

  it('another account cannot see the task: 404 like an unknown id', async () => {
    const owner = await app.newKey({ balanceRub: 100 });
    const other = await app.newKey({ balanceRub: 100 });
    const taskId = await create(app, owner, { model_name: 'seedance-2' });
    const foreign = await app.http.inject({ method: 'GET', url: `/tasks/${taskId}`, headers: other.auth });
    const unknown = await app.http.inject({
      method: 'GET',
      url: '/tasks/00000000-0000-4000-8000-000000000000',
      headers: other.auth,
    });
    const garbage = await app.http.inject({ method: 'GET', url: '/tasks/not-a-uuid', headers: other.auth });
    for (const res of [foreign, unknown, garbage]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('task_not_found');
    }
    expect(foreign.body).toBe(unknown.body);
    await waitForFinal(app, owner, taskId);
  });

  it("waitForFinal returns the task once final, or as it is when the wait runs out; never another account's", async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const slow = await create(app, key, { model_name: 'seedance-2', prompt: 'slow [sim:delay=600]' });
    const early = await app.ctx.tasks.waitForFinal(key.accountId, slow, 50);
    expect(['pending', 'processing']).toContain(early.status);
    const done = await app.ctx.tasks.waitForFinal(key.accountId, slow, 5_000);
    expect(done.status).toBe('completed');
    const other = await app.newKey({ balanceRub: 1 });
    await expect(app.ctx.tasks.waitForFinal(other.accountId, slow, 100)).rejects.toMatchObject({
      code: 'task_not_found',
    });
  });

  it('the Task object has exactly the spec fields, created_at in ISO 8601 UTC with milliseconds', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const taskId = await create(app, key, { model_name: 'seedance-2' });
    const task = await getTask(app, key, taskId);
    // The spec's fields, plus model_name, cost and finished_at (issue 16: additions only).
    expect(Object.keys(task).sort()).toEqual([
      'cost',
      'created_at',
      'error',
      'finished_at',
      'model_name',
      'result',
      'status',
      'task_id',
    ]);
    expect(task).toMatchObject({ model_name: 'seedance-2' });
    expect(task.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(['pending', 'processing']).toContain(task.status);
    await waitForFinal(app, key, taskId);
  });
});

describe('re-queue on "Concurrency limit exceeded"', () => {
  let app: TaskTestApp;
  beforeAll(async () => {
    // Queue time (700 ms per re-queue) is longer than the provider timeout (600 ms): it must not count.
    app = await createTaskTestApp({ config: { requeueDelayMs: 700, providerTimeoutMs: 600 } });
  });
  afterAll(async () => {
    await expectLedgerClean(app);
    await app.dispose();
  });

  it('[sim:busy=2] goes back to pending with error null twice, then completes', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const taskId = await create(app, key, {
      model_name: 'seedance-2',
      prompt: 'busy [sim:busy=2] [sim:delay=50]',
    });
    const seen: { status: string; error: string | null; requeues: number }[] = [];
    let task = await getTask(app, key, taskId);
    while (task.status !== 'completed' && task.status !== 'failed') {
      const row = await app.ctx.storage.tasks.byIdForWorker(taskId);
      seen.push({ status: task.status, error: task.error, requeues: row!.requeues });
      await new Promise((resolve) => setTimeout(resolve, 20));
      task = await getTask(app, key, taskId);
    }
    expect(task.status).toBe('completed');
    const row = await app.ctx.storage.tasks.byIdForWorker(taskId);
    expect(row).toMatchObject({ requeues: 2, attempts: 1, error: null });
    // It was observed waiting in the queue after each re-queue, with no error shown.
    expect(seen.filter((s) => s.status === 'pending' && s.requeues === 1).length).toBeGreaterThan(0);
    expect(seen.filter((s) => s.status === 'pending' && s.requeues === 2).length).toBeGreaterThan(0);
    expect(seen.every((s) => s.error === null)).toBe(true);
    expect(await balanceOf(app, key)).toEqual({ balance: 55 * RUB, held: 0 });
  });
});

describe('provider timeout', () => {
  let app: TaskTestApp;
  beforeAll(async () => {
    app = await createTaskTestApp({ config: { providerTimeoutMs: 500 } });
  });
  afterAll(async () => {
    await expectLedgerClean(app);
    await app.dispose();
  });

  it('[sim:fail=timeout] fails with the spec message after PROVIDER_TIMEOUT_MS and refunds', async () => {
    const key = await app.newKey({ balanceRub: 50 });
    const started = Date.now();
    const taskId = await create(app, key, {
      model_name: 'sora-2',
      prompt: 'never [sim:fail=timeout]',
      duration: 4,
    });
    expect(await balanceOf(app, key)).toEqual({ balance: 10 * RUB, held: 40 * RUB });
    const task = await waitForFinal(app, key, taskId, 5_000);
    expect(task).toMatchObject({
      status: 'failed',
      error: 'Timeout while waiting for provider response',
      result: null,
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    expect(await balanceOf(app, key)).toEqual({ balance: 50 * RUB, held: 0 });
  });

  it('a slow but finishing provider within the timeout completes', async () => {
    const key = await app.newKey({ balanceRub: 50 });
    const taskId = await create(app, key, {
      model_name: 'sora-2',
      prompt: 'slow [sim:delay=100]',
      duration: 4,
    });
    expect((await waitForFinal(app, key, taskId, 5_000)).status).toBe('completed');
  });
});
