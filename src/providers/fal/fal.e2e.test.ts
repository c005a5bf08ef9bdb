// The whole path through gengate with a fal provider: POST /generate → the fal adapter → the fal
// fake (queue API) → our object storage → the ledger → the client's webhook.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureMessage } from '../../domain/tasks/failures.js';
import { TASK_FAILURE } from '../../domain/tasks/states.js';
import { FAKE_MP4, FAKE_PNG } from '../../testing/fakes/fake-server.js';
import { FAL_TEST_KEY, type FalFake, type FalScript, startFalFake } from '../../testing/fakes/fal.js';
import {
  clientHooksFor,
  ledgerKinds,
  type ProviderE2E,
  startProviderE2E,
  waitFor,
} from '../../testing/provider-e2e.js';

const KLING = 'fal-ai/kling-video/v2.1/standard/text-to-video';
/** kling-2-1 costs 6 RUB per second: a 5 s video holds and captures 30 RUB (in micro-rubles). */
const KLING_5S = 30_000_000;
const FLUX = 4_500_000;

function providersFile(fakes: Record<string, FalFake>, routes: Record<string, unknown>) {
  return {
    providers: Object.fromEntries(
      Object.entries(fakes).map(([name, fake]) => [
        name,
        { type: 'fal', base_url: fake.origin, api_key: FAL_TEST_KEY },
      ]),
    ),
    routes,
  };
}

describe('fal end to end', () => {
  let fal: FalFake;
  let e2e: ProviderE2E;

  beforeAll(async () => {
    fal = await startFalFake();
    e2e = await startProviderE2E({
      providers: providersFile(
        { fal },
        {
          'kling-2-1': { provider: 'fal', model: KLING },
          'flux-1-1-pro': { provider: 'fal', model: 'fal-ai/flux-pro/v1.1' },
        },
      ),
    });
  });
  afterAll(async () => {
    await e2e?.dispose();
    await fal?.close();
  });

  async function run(script: FalScript | FalScript[], params: Record<string, unknown> = {}) {
    fal.next(...(Array.isArray(script) ? script : [script]));
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'kling-2-1', prompt: 'a cat', duration: 5, ...params });
    expect(created.status).toBe(202);
    const task = await e2e.waitForFinal(created.body.task_id);
    return { before, task, taskId: created.body.task_id as string };
  }

  it('queued → running → succeeded: our copy of the video, the price captured, one client webhook', async () => {
    const { before, task, taskId } = await run({});
    expect(task.status).toBe('completed');
    const videoUrl: string = task.result!.video_url;
    expect(videoUrl.startsWith(`${e2e.origin}/objects/`)).toBe(true);
    const file = await e2e.download(videoUrl);
    expect(file.status).toBe(200);
    expect(file.bytes.equals(FAKE_MP4)).toBe(true);
    const row = await e2e.taskRow(taskId);
    expect(Number(row.hold_amount)).toBe(KLING_5S);
    expect(Number(row.cost)).toBe(KLING_5S);
    expect(await e2e.balance()).toEqual({ balance: before.balance - KLING_5S, held: 0 });
    // fal saw our key, the mapped input and our callback URL (with its own task query).
    const submit = fal.submitCalls.at(-1)!;
    expect(submit.path).toBe(`/${KLING}`);
    expect(submit.headers.authorization).toBe(`Key ${FAL_TEST_KEY}`);
    // aspect_ratio is our catalog's default.
    expect(submit.json).toEqual({ prompt: 'a cat', duration: '5', aspect_ratio: '16:9' });
    expect(submit.query.get('fal_webhook')).toMatch(
      new RegExp(`^${e2e.origin}/hooks/fal\\?task=${taskId}&token=`),
    );
    const hooks = await e2e.receiver.waitForRequests(1);
    expect(
      hooks.filter((h) => JSON.parse(h.body).task_id === taskId).map((h) => JSON.parse(h.body).status),
    ).toEqual(['completed']);
    await e2e.expectLedgerClean();
  });

  it('an image model: our copy of the image', async () => {
    fal.next({ statuses: ['IN_PROGRESS', 'COMPLETED'] });
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'flux-1-1-pro', prompt: 'a dog', aspect_ratio: '1:1' });
    const task = await e2e.waitForFinal(created.body.task_id);
    expect(task.status).toBe('completed');
    expect((await e2e.download(task.result!.image_url)).bytes.equals(FAKE_PNG)).toBe(true);
    expect(fal.submitCalls.at(-1)!.json).toEqual({ prompt: 'a dog', image_size: 'square_hd', num_images: 1 });
    expect(await e2e.balance()).toEqual({ balance: before.balance - FLUX, held: 0 });
    await e2e.expectLedgerClean();
  });

  const failures: Array<[string, FalScript, string]> = [
    [
      'rejected (COMPLETED, then 422 content_policy_violation)',
      {
        statuses: ['IN_PROGRESS', 'COMPLETED'],
        result: {
          status: 422,
          detail: [
            { loc: ['body', 'prompt'], msg: 'Content policy violation', type: 'content_policy_violation' },
          ],
        },
      },
      TASK_FAILURE.rejected,
    ],
    [
      'billing (403 locked: exhausted balance)',
      {
        reject: {
          status: 403,
          json: {
            detail:
              'User is locked. Reason: Exhausted balance. Top up your balance at fal.ai/dashboard/billing.',
          },
        },
      },
      TASK_FAILURE.billing,
    ],
    [
      'params (COMPLETED, then 422 validation)',
      {
        statuses: ['COMPLETED'],
        result: {
          status: 422,
          detail: [{ loc: ['body', 'image_url'], msg: 'Image too small', type: 'image_too_small' }],
        },
      },
      failureMessage({ kind: 'params', message: 'Parameter validation failed: image_url: Image too small' }),
    ],
    ['auth (401)', { reject: { status: 401, json: { detail: 'Invalid key' } } }, TASK_FAILURE.upstream],
    [
      'overload (503 at submit, no other route)',
      {
        reject: {
          status: 503,
          json: { detail: [{ loc: [], msg: 'busy', type: 'downstream_service_unavailable' }] },
        },
      },
      TASK_FAILURE.overload,
    ],
    [
      'upstream (COMPLETED, then 500 internal_server_error)',
      {
        statuses: ['COMPLETED'],
        result: { status: 500, detail: [{ loc: [], msg: 'crashed', type: 'internal_server_error' }] },
      },
      TASK_FAILURE.upstream,
    ],
  ];
  for (const [name, script, message] of failures) {
    it(`fails as ${name} with the exact message and an exact refund`, async () => {
      const { before, task } = await run(script);
      expect(task.status).toBe('failed');
      expect(task.error).toBe(message);
      expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
      await e2e.expectLedgerClean();
    });
  }

  it('refuses a parameter fal cannot take (a seed for Kling) before any call to fal', async () => {
    const calls = fal.submitCalls.length;
    const created = await e2e.generate({ model_name: 'kling-2-1', prompt: 'a cat', duration: 5, seed: 5 });
    const task = await e2e.waitForFinal(created.body.task_id);
    expect([task.status, task.error]).toEqual(['failed', 'unexpected parameter: seed']);
    expect(fal.submitCalls.length).toBe(calls);
    await e2e.expectLedgerClean();
  });

  it('busy at submit (429): re-queued without an error, then completes', async () => {
    fal.next({ reject: { status: 429, json: { detail: 'Too many requests' } } }, {});
    const calls = fal.submitCalls.length;
    const created = await e2e.generate({ model_name: 'kling-2-1', prompt: 'a cat', duration: 5 });
    const taskId = created.body.task_id;
    const requeued = await waitFor(
      () => e2e.taskRow(taskId),
      (row) => Number(row.requeues) >= 1,
    );
    expect(['pending', 'processing', 'completed']).toContain(requeued.status);
    expect(requeued.error).toBeNull();
    const task = await e2e.waitForFinal(taskId);
    expect([task.status, task.error]).toEqual(['completed', null]);
    expect(fal.submitCalls.length - calls).toBe(2);
    await e2e.expectLedgerClean();
  });

  it('a result URL that answers 403 (expired) every time: failed as upstream, exact refund', async () => {
    const { before, task } = await run({ statuses: ['COMPLETED'], fileExpired: 'always' });
    expect([task.status, task.error]).toEqual(['failed', TASK_FAILURE.upstream]);
    expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
    await e2e.expectLedgerClean();
  });

  it('a result URL that answers 403 once: the runner polls again and the next download succeeds', async () => {
    const { task } = await run({ statuses: ['COMPLETED'], fileExpired: 1 });
    expect(task.status).toBe('completed');
    expect((await e2e.download(task.result!.video_url)).bytes.equals(FAKE_MP4)).toBe(true);
    await e2e.expectLedgerClean();
  });

  it('the submit answer is lost after fal queued the request: fal’s webhook names it, one request, completed', async () => {
    fal.jobs.clear();
    const calls = fal.submitCalls.length;
    fal.next({ drop: true });
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'kling-2-1', prompt: 'a cat', duration: 5 });
    const taskId = created.body.task_id;
    // The runner marks the submit uncertain and waits (no lookup at fal) for the callback.
    await waitFor(
      () => e2e.taskRow(taskId),
      (row) => String(row.provider_state ?? '').includes('uncertain_since') && row.lease_owner == null,
    );
    const job = fal.onlyJob();
    expect(await fal.deliverWebhook(job.id)).toEqual([200]);
    const task = await e2e.waitForFinal(taskId);
    expect(task.status).toBe('completed');
    expect(fal.submitCalls.length - calls).toBe(1);
    expect(fal.jobs.size).toBe(1);
    expect((await e2e.taskRow(taskId)).provider_job_id).toBe(job.id);
    expect(await e2e.balance()).toEqual({ balance: before.balance - KLING_5S, held: 0 });
    await e2e.expectLedgerClean();
  });

  it('a duplicate fal webhook: one completion, one capture, one client webhook', async () => {
    fal.jobs.clear();
    fal.next({ statuses: ['IN_QUEUE', 'IN_QUEUE', 'IN_PROGRESS', 'COMPLETED'] });
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'kling-2-1', prompt: 'a cat', duration: 5 });
    const taskId = created.body.task_id;
    const job = await waitFor(
      () => [...fal.jobs.values()][0],
      (j) => j !== undefined,
    );
    // The same callback twice while the job runs, and twice again after it completed.
    expect(await fal.deliverWebhook(job.id, 2)).toEqual([200, 200]);
    const task = await e2e.waitForFinal(taskId);
    expect(task.status).toBe('completed');
    expect(await fal.deliverWebhook(job.id, 2)).toEqual([200, 200]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await e2e.app.ctx.storage.tasks.byIdForWorker(taskId))?.status).toBe('completed');
    expect((await ledgerKinds(e2e, taskId)).filter((k) => k === 'capture')).toHaveLength(1);
    expect(await e2e.balance()).toEqual({ balance: before.balance - KLING_5S, held: 0 });
    await waitFor(
      () => clientHooksFor(e2e, taskId).length,
      (n) => n >= 1,
    );
    expect(clientHooksFor(e2e, taskId)).toHaveLength(1);
    await e2e.expectLedgerClean();
  });
});

describe('fal end to end: route fallback', () => {
  let first: FalFake;
  let second: FalFake;
  let e2e: ProviderE2E;

  beforeAll(async () => {
    first = await startFalFake();
    second = await startFalFake();
    e2e = await startProviderE2E({
      providers: providersFile(
        { fal_a: first, fal_b: second },
        {
          'kling-2-1': [
            { provider: 'fal_a', model: KLING },
            { provider: 'fal_b', model: KLING },
          ],
        },
      ),
    });
  });
  afterAll(async () => {
    await e2e?.dispose();
    await first?.close();
    await second?.close();
  });

  it('the first route answers 503 at submit: the task completes on the second', async () => {
    first.defaultScript = { reject: { status: 503, json: { detail: 'Service Unavailable' } } };
    const created = await e2e.generate({ model_name: 'kling-2-1', prompt: 'a cat', duration: 5 });
    const task = await e2e.waitForFinal(created.body.task_id);
    expect(task.status).toBe('completed');
    expect((await e2e.taskRow(created.body.task_id)).provider).toBe('fal_b');
    expect(first.submitCalls).toHaveLength(1);
    expect(first.jobs.size).toBe(0);
    expect(second.jobs.size).toBe(1);
    // The callback URL handed to the second provider names that provider.
    expect(second.submitCalls[0].query.get('fal_webhook')).toContain('/hooks/fal_b?');
    await e2e.expectLedgerClean();
  });
});

describe('fal end to end: deadlines', () => {
  let fal: FalFake;
  let e2e: ProviderE2E;

  beforeAll(async () => {
    fal = await startFalFake();
    e2e = await startProviderE2E({
      providers: providersFile({ fal }, { 'kling-2-1': { provider: 'fal', model: KLING } }),
      config: { providerTimeoutMs: 1_500 },
    });
  });
  afterAll(async () => {
    await e2e?.dispose();
    await fal?.close();
  });

  it('a job that never finishes: timeout, exact refund, and a cancel sent to fal', async () => {
    fal.next({ statuses: ['IN_QUEUE', 'IN_PROGRESS'] });
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'kling-2-1', prompt: 'a cat', duration: 5 });
    const task = await e2e.waitForFinal(created.body.task_id);
    expect([task.status, task.error]).toEqual(['failed', TASK_FAILURE.timeout]);
    expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
    const job = fal.onlyJob();
    expect(fal.cancels).toEqual([job.id]);
    expect(fal.server.calls(/\/cancel$/, 'PUT')[0].path).toBe(
      `/fal-ai/kling-video/requests/${job.id}/cancel`,
    );
    await e2e.expectLedgerClean();
  });

  it('a lost submit answer and no webhook from fal: failed at the deadline with an exact refund, one request', async () => {
    fal.jobs.clear();
    const calls = fal.submitCalls.length;
    fal.next({ drop: true });
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'kling-2-1', prompt: 'a cat', duration: 5 });
    const task = await e2e.waitForFinal(created.body.task_id);
    expect(task.status).toBe('failed');
    expect(task.error).toBe(TASK_FAILURE.timeout);
    expect(fal.submitCalls.length - calls).toBe(1);
    expect(fal.jobs.size).toBe(1);
    expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
    await e2e.expectLedgerClean();
  });
});
