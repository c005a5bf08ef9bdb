// The whole path through gengate with a Kling provider: POST /generate → the kling adapter (JWT,
// text2video/image2video) → the Kling fake → our object storage → the ledger → the client's webhook.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureMessage } from '../../domain/tasks/failures.js';
import { TASK_FAILURE } from '../../domain/tasks/states.js';
import { FAKE_MP4 } from '../../testing/fakes/fake-server.js';
import {
  type KlingFake,
  type KlingJobScript,
  type KlingSubmitScript,
  startKlingFake,
} from '../../testing/fakes/kling.js';
import {
  clientHooksFor,
  ledgerKinds,
  type ProviderE2E,
  startProviderE2E,
  waitFor,
} from '../../testing/provider-e2e.js';

const AK = 'kling-e2e-ak';
const SK = 'kling-e2e-sk';
const MODEL = 'kling-v2-1-master';
/** kling-2-1 costs 6 RUB per second: a 5 s video holds and captures 30 RUB (in micro-rubles). */
const KLING_5S = 30_000_000;

function providersFile(fakes: Record<string, KlingFake>, routes: Record<string, unknown>) {
  return {
    providers: Object.fromEntries(
      Object.entries(fakes).map(([name, fake]) => [
        name,
        { type: 'kling', base_url: fake.baseUrl, access_key: AK, secret_key: SK },
      ]),
    ),
    routes,
  };
}

function claims(authorization: string | undefined) {
  const [, payload] = String(authorization)
    .replace(/^Bearer /, '')
    .split('.');
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
}

describe('kling end to end', () => {
  let kling: KlingFake;
  let e2e: ProviderE2E;

  beforeAll(async () => {
    kling = await startKlingFake(AK, SK);
    e2e = await startProviderE2E({
      providers: providersFile({ kling }, { 'kling-2-1': { provider: 'kling', model: MODEL } }),
    });
  });
  afterAll(async () => {
    await e2e?.dispose();
    await kling?.close();
  });

  async function run(
    options: { submit?: KlingSubmitScript[]; job?: KlingJobScript; params?: Record<string, unknown> } = {},
  ) {
    kling.submitScripts.push(...(options.submit ?? []));
    kling.jobScript = options.job ?? {};
    const before = await e2e.balance();
    const created = await e2e.generate({
      model_name: 'kling-2-1',
      prompt: 'a cat',
      duration: 5,
      ...options.params,
    });
    expect(created.status).toBe(202);
    const taskId = created.body.task_id as string;
    const task = await e2e.waitForFinal(taskId);
    return { before, task, taskId };
  }

  it('submitted → processing → succeed: our copy of the video, the price captured, one client webhook', async () => {
    const { before, task, taskId } = await run();
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
    // Kling saw a JWT from our access key, the mapped body, our task id and our callback URL.
    const create = kling.creates().at(-1)!;
    expect(create.path).toBe('/v1/videos/text2video');
    expect(claims(create.headers.authorization).iss).toBe(AK);
    const { callback_url: callbackUrl, ...body } = create.json;
    expect(body).toEqual({
      model_name: MODEL,
      prompt: 'a cat',
      mode: 'std',
      aspect_ratio: '16:9',
      duration: '5',
      external_task_id: taskId,
    });
    expect(callbackUrl).toMatch(
      new RegExp(`^${e2e.origin}/hooks/kling\\?task=${taskId}&token=[^&]+&kling_endpoint=text2video$`),
    );
    const job = kling.jobByExternalId(taskId)!;
    expect(row.provider_job_id).toBe(`text2video:${job.taskId}`);
    await waitFor(
      () => clientHooksFor(e2e, taskId).length,
      (n) => n >= 1,
    );
    expect(clientHooksFor(e2e, taskId).map((h) => JSON.parse(h.body).status)).toEqual(['completed']);
    await e2e.expectLedgerClean();
  });

  it('a start image goes to image2video and is polled there', async () => {
    const { task, taskId } = await run({ params: { start_image_url: 'https://example.com/start.png' } });
    expect(task.status).toBe('completed');
    expect((await e2e.download(task.result!.video_url)).bytes.equals(FAKE_MP4)).toBe(true);
    const job = kling.jobByExternalId(taskId)!;
    expect(job.endpoint).toBe('image2video');
    expect(job.body.image).toBe('https://example.com/start.png');
    expect((await e2e.taskRow(taskId)).provider_job_id).toBe(`image2video:${job.taskId}`);
    expect(kling.queries().some((q) => q.path === `/v1/videos/image2video/${job.taskId}`)).toBe(true);
    await e2e.expectLedgerClean();
  });

  const failures: Array<[string, { submit?: KlingSubmitScript[]; job?: KlingJobScript }, string]> = [
    [
      'rejected (the job failed the risk control)',
      { job: { statuses: ['processing', 'failed'], failMsg: 'Failure to pass the risk control system' } },
      TASK_FAILURE.rejected,
    ],
    [
      'rejected at submit (400, code 1301)',
      { submit: [{ error: { status: 400, code: 1301, message: 'content security policy' } }] },
      TASK_FAILURE.rejected,
    ],
    [
      'billing (HTTP 429, code 1102: resource pack depleted)',
      { submit: [{ error: { status: 429, code: 1102, message: 'resource pack exhausted' } }] },
      TASK_FAILURE.billing,
    ],
    [
      'overload (503, code 5001, no other route)',
      { submit: [{ error: { status: 503, code: 5001, message: 'service unavailable' } }] },
      TASK_FAILURE.overload,
    ],
    [
      'params (400, code 1201)',
      { submit: [{ error: { status: 400, code: 1201, message: 'prompt is invalid' } }] },
      failureMessage({ kind: 'params', message: 'Parameter validation failed: prompt is invalid' }),
    ],
    [
      'auth (401, code 1000)',
      { submit: [{ error: { status: 401, code: 1000, message: 'Authentication failed' } }] },
      TASK_FAILURE.upstream,
    ],
    [
      'upstream (the job failed for another reason)',
      { job: { statuses: ['submitted', 'failed'], failMsg: 'internal error while generating' } },
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

  it('refuses a parameter Kling cannot take (a seed) before any call to Kling', async () => {
    const calls = kling.creates().length;
    const { before, task } = await run({ params: { seed: 5 } });
    expect([task.status, task.error]).toEqual(['failed', 'unexpected parameter: seed']);
    expect(kling.creates().length).toBe(calls);
    expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
    await e2e.expectLedgerClean();
  });

  it('a signature Kling does not accept (wrong secret key) fails as upstream with a refund', async () => {
    // The same fake under a second provider whose secret is wrong: Kling answers 401 / 1000.
    const bad = await startProviderE2E({
      providers: {
        providers: { kling: { type: 'kling', base_url: kling.baseUrl, access_key: AK, secret_key: 'wrong' } },
        routes: { 'kling-2-1': { provider: 'kling', model: MODEL } },
      },
    });
    try {
      const before = await bad.balance();
      const created = await bad.generate({ model_name: 'kling-2-1', prompt: 'a cat', duration: 5 });
      const task = await bad.waitForFinal(created.body.task_id);
      expect([task.status, task.error]).toEqual(['failed', TASK_FAILURE.upstream]);
      expect(await bad.balance()).toEqual({ balance: before.balance, held: 0 });
      await bad.expectLedgerClean();
    } finally {
      await bad.dispose();
    }
  });

  it('busy at submit (429, code 1303): re-queued without an error, then completes', async () => {
    kling.submitScripts.push({
      error: { status: 429, code: 1303, message: 'parallel task over resource pack limit' },
    });
    kling.jobScript = {};
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'kling-2-1', prompt: 'a cat', duration: 5 });
    const taskId = created.body.task_id;
    const requeued = await waitFor(
      () => e2e.taskRow(taskId),
      (row) => Number(row.requeues) >= 1 || row.status === 'completed',
    );
    expect(Number(requeued.requeues)).toBeGreaterThanOrEqual(1);
    expect(requeued.error ?? null).toBeNull();
    const task = await e2e.waitForFinal(taskId);
    expect(task.status).toBe('completed');
    expect(task.error ?? null).toBeNull();
    expect(await e2e.balance()).toEqual({ balance: before.balance - KLING_5S, held: 0 });
    await e2e.expectLedgerClean();
  });

  it('a result URL that answers 403 (expired) every time: failed as upstream, exact refund', async () => {
    const { before, task } = await run({ job: { statuses: ['succeed'], expiredUrls: 1_000 } });
    expect([task.status, task.error]).toEqual(['failed', TASK_FAILURE.upstream]);
    expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
    await e2e.expectLedgerClean();
  });

  it('a result URL that answers 403 once: the runner polls again, the fresh URL downloads', async () => {
    const { task, taskId } = await run({ job: { statuses: ['succeed'], expiredUrls: 1 } });
    expect(task.status).toBe('completed');
    expect((await e2e.download(task.result!.video_url)).bytes.equals(FAKE_MP4)).toBe(true);
    expect(kling.jobByExternalId(taskId)!.urlsGiven).toBe(2);
    await e2e.expectLedgerClean();
  });

  it('the create answer is lost after Kling made the job: reconcile finds it by external_task_id, one job, completed', async () => {
    const calls = kling.creates().length;
    const { before, task, taskId } = await run({ submit: ['drop'] });
    expect(task.status).toBe('completed');
    expect(kling.creates().length - calls).toBe(1);
    const jobs = [...kling.jobs.values()].filter((job) => job.externalTaskId === taskId);
    expect(jobs).toHaveLength(1);
    expect((await e2e.taskRow(taskId)).provider_job_id).toBe(`text2video:${jobs[0].taskId}`);
    expect(kling.queries().some((q) => q.path === `/v1/videos/text2video/${taskId}`)).toBe(true);
    expect(await e2e.balance()).toEqual({ balance: before.balance - KLING_5S, held: 0 });
    await e2e.expectLedgerClean();
  });

  it('a duplicate Kling callback: one completion, one capture, one client webhook', async () => {
    kling.jobScript = { statuses: ['submitted', 'submitted', 'processing', 'processing', 'succeed'] };
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'kling-2-1', prompt: 'a cat', duration: 5 });
    const taskId = created.body.task_id;
    const job = await waitFor(
      () => kling.jobByExternalId(taskId),
      (j) => j !== undefined,
    );
    // The URL Kling received: ours, with the endpoint appended.
    expect(job!.callbackUrl).toContain(`${e2e.origin}/hooks/kling?task=${taskId}&token=`);
    const first = await kling.deliverCallback(job!.taskId);
    const second = await kling.deliverCallback(job!.taskId);
    expect([first.status, second.status]).toEqual([200, 200]);
    const task = await e2e.waitForFinal(taskId);
    expect(task.status).toBe('completed');
    // And twice more once the task is final.
    const late = [await kling.deliverCallback(job!.taskId), await kling.deliverCallback(job!.taskId)];
    expect(late.map((r) => r.status)).toEqual([200, 200]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await e2e.taskRow(taskId)).status).toBe('completed');
    expect((await ledgerKinds(e2e, taskId)).filter((k) => k === 'capture')).toHaveLength(1);
    expect(await e2e.balance()).toEqual({ balance: before.balance - KLING_5S, held: 0 });
    await waitFor(
      () => clientHooksFor(e2e, taskId).length,
      (n) => n >= 1,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(clientHooksFor(e2e, taskId)).toHaveLength(1);
    await e2e.expectLedgerClean();
  });

  it('a callback with a wrong token is refused (401) and changes nothing', async () => {
    const res = await fetch(
      `${e2e.origin}/hooks/kling?task=00000000-0000-4000-8000-000000000000&token=nope`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code: 0, data: { task_id: '1', task_status: 'succeed' } }),
      },
    );
    expect(res.status).toBe(401);
  });
});

describe('kling end to end: route fallback', () => {
  let first: KlingFake;
  let second: KlingFake;
  let e2e: ProviderE2E;

  beforeAll(async () => {
    first = await startKlingFake(AK, SK);
    second = await startKlingFake(AK, SK);
    e2e = await startProviderE2E({
      providers: providersFile(
        { kling_a: first, kling_b: second },
        {
          'kling-2-1': [
            { provider: 'kling_a', model: MODEL },
            { provider: 'kling_b', model: MODEL },
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

  it('the first route answers 5001 at submit: the task completes on the second', async () => {
    first.submitScripts.push({ error: { status: 503, code: 5001, message: 'service unavailable' } });
    const created = await e2e.generate({ model_name: 'kling-2-1', prompt: 'a cat', duration: 5 });
    const task = await e2e.waitForFinal(created.body.task_id);
    expect(task.status).toBe('completed');
    expect((await e2e.taskRow(created.body.task_id)).provider).toBe('kling_b');
    expect(first.creates()).toHaveLength(1);
    expect(first.jobs.size).toBe(0);
    expect(second.jobs.size).toBe(1);
    expect(second.creates()[0].json.callback_url).toContain('/hooks/kling_b?');
    await e2e.expectLedgerClean();
  });

  it('the first route is busy (429, code 1302): the task completes on the second', async () => {
    first.submitScripts.push({ error: { status: 429, code: 1302, message: 'rate limit' } });
    const created = await e2e.generate({ model_name: 'kling-2-1', prompt: 'a cat', duration: 5 });
    const task = await e2e.waitForFinal(created.body.task_id);
    expect(task.status).toBe('completed');
    expect((await e2e.taskRow(created.body.task_id)).provider).toBe('kling_b');
    await e2e.expectLedgerClean();
  });
});

describe('kling end to end: deadlines', () => {
  let kling: KlingFake;
  let e2e: ProviderE2E;

  beforeAll(async () => {
    kling = await startKlingFake(AK, SK);
    e2e = await startProviderE2E({
      providers: providersFile({ kling }, { 'kling-2-1': { provider: 'kling', model: MODEL } }),
      config: { providerTimeoutMs: 1_500 },
    });
  });
  afterAll(async () => {
    await e2e?.dispose();
    await kling?.close();
  });

  it('a job that never finishes: timeout and an exact refund (Kling has no cancel endpoint)', async () => {
    kling.jobScript = { statuses: ['submitted', 'processing'] };
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'kling-2-1', prompt: 'a cat', duration: 5 });
    const task = await e2e.waitForFinal(created.body.task_id);
    expect([task.status, task.error]).toEqual(['failed', TASK_FAILURE.timeout]);
    expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
    // Only creates, queries and lists reached Kling: no cancel exists to call.
    expect(kling.server.requests.every((r) => r.path.startsWith('/v1/videos/'))).toBe(true);
    await e2e.expectLedgerClean();
  });

  it('a create lost before Kling made a job: reconcile finds nothing, failed at the deadline with a refund', async () => {
    kling.jobScript = {};
    kling.submitScripts.push('drop-before');
    const calls = kling.creates().length;
    const jobs = kling.jobs.size;
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'kling-2-1', prompt: 'a cat', duration: 5 });
    const taskId = created.body.task_id;
    const task = await e2e.waitForFinal(taskId);
    expect(task.status).toBe('failed');
    expect(task.error).toBe(TASK_FAILURE.timeout);
    expect(kling.creates().length - calls).toBe(1);
    expect(kling.jobs.size).toBe(jobs);
    // The lookups by our id reached Kling.
    expect(kling.queries().some((q) => q.path === `/v1/videos/text2video/${taskId}`)).toBe(true);
    expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
    await e2e.expectLedgerClean();
  });
});
