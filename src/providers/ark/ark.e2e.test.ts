// The whole path through gengate with an Ark provider: POST /generate → the ark adapter → the Ark
// fake (Seedance tasks, Seedream images) → our object storage → the ledger → the client's webhook.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureMessage } from '../../domain/tasks/failures.js';
import { TASK_FAILURE } from '../../domain/tasks/states.js';
import { type ArkJobScript, type ArkSubmitScript, FakeArk } from '../../testing/fakes/ark.js';
import { FAKE_MP4, FAKE_PNG } from '../../testing/fakes/fake-server.js';
import {
  clientHooksFor,
  ledgerKinds,
  type ProviderE2E,
  startProviderE2E,
  waitFor,
} from '../../testing/provider-e2e.js';

const SEEDANCE_2 = 'doubao-seedance-2-0-260128';
const SEEDANCE_1_PRO = 'seedance-1-0-pro-250528';
const SEEDREAM_4 = 'seedream-4-0-250828';
/** seedance-2 costs 45 RUB a shot; seedream-4 3.5 RUB (micro-rubles). */
const SEEDANCE_2_PRICE = 45_000_000;
const SEEDREAM_4_PRICE = 3_500_000;

function providersFile(fakes: Record<string, FakeArk>, routes: Record<string, unknown>) {
  return {
    providers: Object.fromEntries(
      Object.entries(fakes).map(([name, fake]) => [
        name,
        { type: 'ark', base_url: fake.baseUrl, api_key: fake.apiKey },
      ]),
    ),
    routes,
  };
}

describe('ark end to end', () => {
  let ark: FakeArk;
  let e2e: ProviderE2E;

  beforeAll(async () => {
    ark = await new FakeArk().start();
    e2e = await startProviderE2E({
      providers: providersFile(
        { ark },
        {
          'seedance-2': { provider: 'ark', model: SEEDANCE_2 },
          'seedance-1-pro': { provider: 'ark', model: SEEDANCE_1_PRO },
          'seedream-4': { provider: 'ark', model: SEEDREAM_4 },
        },
      ),
    });
  });
  afterAll(async () => {
    await e2e?.dispose();
    await ark?.close();
  });

  async function run(
    job: ArkJobScript = {},
    submits: ArkSubmitScript[] = [],
    params: Record<string, unknown> = {},
  ) {
    ark.jobScript = job;
    ark.submitScripts.splice(0, ark.submitScripts.length, ...submits);
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'seedance-2', prompt: 'a cat', duration: 5, ...params });
    expect(created.body.task_id).toEqual(expect.any(String));
    const task = await e2e.waitForFinal(created.body.task_id);
    return { before, task, taskId: created.body.task_id as string };
  }

  it('queued → running → succeeded: our copy of the video, the price captured, one client webhook', async () => {
    const { before, task, taskId } = await run({}, [], {
      aspect_ratio: '16:9',
      start_image_url: 'https://img.example/a.png',
    });
    expect(task.status).toBe('completed');
    const videoUrl: string = task.result!.video_url;
    expect(videoUrl.startsWith(`${e2e.origin}/objects/`)).toBe(true);
    const file = await e2e.download(videoUrl);
    expect(file.status).toBe(200);
    expect(file.bytes.equals(FAKE_MP4)).toBe(true);
    const row = await e2e.taskRow(taskId);
    expect(Number(row.hold_amount)).toBe(SEEDANCE_2_PRICE);
    expect(Number(row.cost)).toBe(SEEDANCE_2_PRICE);
    expect(await e2e.balance()).toEqual({ balance: before.balance - SEEDANCE_2_PRICE, held: 0 });
    // Ark saw our key, the mapped body and our callback URL (with its own task query).
    const create = ark.creates().at(-1)!;
    expect(create.headers.authorization).toBe(`Bearer ${ark.apiKey}`);
    expect(create.json).toMatchObject({
      model: SEEDANCE_2,
      content: [
        { type: 'text', text: 'a cat' },
        { type: 'image_url', image_url: { url: 'https://img.example/a.png' }, role: 'first_frame' },
      ],
      duration: 5,
      ratio: '16:9',
      watermark: false,
    });
    expect(create.json.callback_url).toMatch(new RegExp(`^${e2e.origin}/hooks/ark\\?task=${taskId}&token=`));
    const hooks = await waitFor(
      () => clientHooksFor(e2e, taskId),
      (h) => h.length >= 1,
    );
    expect(hooks.map((h) => JSON.parse(h.body).status)).toEqual(['completed']);
    await e2e.expectLedgerClean();
  });

  it('a token-billed model (seedance-1-pro): captures usage.completion_tokens × price, under the hold', async () => {
    ark.jobScript = { statuses: ['running', 'succeeded'], tokens: 108_900 };
    const before = await e2e.balance();
    const created = await e2e.generate({
      model_name: 'seedance-1-pro',
      prompt: 'a cat',
      duration: 5,
      resolution: '1080p',
    });
    const taskId = created.body.task_id;
    const task = await e2e.waitForFinal(taskId);
    expect(task.status).toBe('completed');
    const row = await e2e.taskRow(taskId);
    // 220 RUB per million tokens × 108 900 tokens = 23.958 RUB; the hold was for 48 600 tokens/s × 5 s.
    expect(Number(row.cost)).toBe(23_958_000);
    expect(Number(row.hold_amount)).toBeGreaterThan(Number(row.cost));
    expect(await e2e.balance()).toEqual({ balance: before.balance - 23_958_000, held: 0 });
    expect(ark.creates().at(-1)!.json).toMatchObject({
      model: SEEDANCE_1_PRO,
      resolution: '1080p',
      ratio: '16:9',
    });
    await e2e.expectLedgerClean();
  });

  it('an image model (seedream-4): the synchronous answer is copied, the price captured', async () => {
    ark.submitScripts.length = 0;
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'seedream-4', prompt: 'a dog', aspect_ratio: '16:9' });
    const task = await e2e.waitForFinal(created.body.task_id);
    expect(task.status).toBe('completed');
    expect((await e2e.download(task.result!.image_url)).bytes.equals(FAKE_PNG)).toBe(true);
    expect([task.result!.width, task.result!.height]).toEqual([2560, 1440]);
    expect(ark.creates().at(-1)!.json).toEqual({
      model: SEEDREAM_4,
      prompt: 'a dog',
      size: '2560x1440',
      response_format: 'url',
      watermark: false,
    });
    expect(await e2e.balance()).toEqual({ balance: before.balance - SEEDREAM_4_PRICE, held: 0 });
    await e2e.expectLedgerClean();
  });

  const failures: Array<[string, ArkJobScript, ArkSubmitScript[], string]> = [
    [
      'rejected (task failed: OutputVideoSensitiveContentDetected)',
      { statuses: ['running', 'failed'], error: { code: 'OutputVideoSensitiveContentDetected' } },
      [],
      TASK_FAILURE.rejected,
    ],
    [
      'rejected at submit (400 InputTextSensitiveContentDetected)',
      {},
      [{ status: 400, code: 'InputTextSensitiveContentDetected' }],
      TASK_FAILURE.rejected,
    ],
    [
      'billing (403 AccountOverdueError)',
      {},
      [{ status: 403, code: 'AccountOverdueError' }],
      TASK_FAILURE.billing,
    ],
    [
      'billing (429 QuotaExceeded, not a rate limit)',
      {},
      [{ status: 429, code: 'QuotaExceeded' }],
      TASK_FAILURE.billing,
    ],
    [
      'overload (500 InternalServiceError at submit, no other route)',
      {},
      [{ status: 500, code: 'InternalServiceError' }],
      TASK_FAILURE.overload,
    ],
    [
      'params (400 InvalidParameter)',
      {},
      [{ status: 400, code: 'InvalidParameter' }],
      failureMessage({ kind: 'params' }),
    ],
    [
      'auth (401 AuthenticationError)',
      {},
      [{ status: 401, code: 'AuthenticationError' }],
      TASK_FAILURE.upstream,
    ],
    [
      'upstream (task failed with an unknown code)',
      { statuses: ['failed'], error: { code: 'SomethingUnexpected' } },
      [],
      TASK_FAILURE.upstream,
    ],
    ['upstream (task cancelled upstream)', { statuses: ['queued', 'cancelled'] }, [], TASK_FAILURE.upstream],
  ];
  for (const [name, job, submits, message] of failures) {
    it(`fails as ${name} with the exact message and an exact refund`, async () => {
      const { before, task } = await run(job, submits);
      expect(task.status).toBe('failed');
      expect(task.error).toBe(message);
      expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
      await e2e.expectLedgerClean();
    });
  }

  it('refuses what Ark cannot take (a last frame without a first frame) before any call to Ark', async () => {
    const calls = ark.creates().length;
    const { before, task } = await run({}, [], { end_image_url: 'https://img.example/z.png' });
    expect([task.status, task.error]).toEqual(['failed', 'end_image_url requires start_image_url']);
    expect(ark.creates().length).toBe(calls);
    expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
    await e2e.expectLedgerClean();
  });

  it('busy at submit (429 RateLimitExceeded): re-queued without an error, then completes', async () => {
    ark.jobScript = {};
    ark.submitScripts.splice(0, ark.submitScripts.length, {
      status: 429,
      code: 'RateLimitExceeded.EndpointRPMExceeded',
    });
    const created = await e2e.generate({ model_name: 'seedance-2', prompt: 'a cat', duration: 5 });
    const taskId = created.body.task_id;
    const requeued = await waitFor(
      () => e2e.taskRow(taskId),
      (row) => Number(row.requeues) >= 1 || row.status === 'completed',
    );
    expect(requeued.error ?? null).toBeNull();
    const task = await e2e.waitForFinal(taskId);
    expect(task.status).toBe('completed');
    expect(task.error ?? null).toBeNull();
    await e2e.expectLedgerClean();
  });

  it('a result URL that answers 403 (expired) every time: failed as upstream, exact refund', async () => {
    const { before, task } = await run({ statuses: ['succeeded'], expiredDownloads: 1000 });
    expect([task.status, task.error]).toEqual(['failed', TASK_FAILURE.upstream]);
    expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
    await e2e.expectLedgerClean();
  });

  it('a result URL that answers 403 once: the runner polls again for a fresh URL and completes', async () => {
    const { task } = await run({ statuses: ['succeeded'], expiredDownloads: 1 });
    expect(task.status).toBe('completed');
    expect((await e2e.download(task.result!.video_url)).bytes.equals(FAKE_MP4)).toBe(true);
    await e2e.expectLedgerClean();
  });

  it('the create answer is lost after Ark made the task: Ark’s callback names it, one task, completed', async () => {
    ark.jobs.clear();
    ark.jobScript = { statuses: ['queued'] };
    ark.submitScripts.splice(0, ark.submitScripts.length, 'drop');
    const calls = ark.creates().length;
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'seedance-2', prompt: 'a cat', duration: 5 });
    const taskId = created.body.task_id;
    // The runner marks the submit uncertain; Ark's list cannot name our task, so it waits for the callback.
    await waitFor(
      () => e2e.taskRow(taskId),
      (row) => String(row.provider_state ?? '').includes('uncertain_since') && row.lease_owner == null,
    );
    const job = ark.job(0);
    expect(job.body.callback_url).toContain(`task=${taskId}`);
    ark.finish(job.id);
    expect(await ark.sendCallback(job.id)).toBe(200);
    const task = await e2e.waitForFinal(taskId);
    expect(task.status).toBe('completed');
    expect(ark.creates().length - calls).toBe(1);
    expect(ark.jobs.size).toBe(1);
    expect((await e2e.taskRow(taskId)).provider_job_id).toBe(job.id);
    expect(await e2e.balance()).toEqual({ balance: before.balance - SEEDANCE_2_PRICE, held: 0 });
    await e2e.expectLedgerClean();
  });

  it('a duplicate Ark callback: one completion, one capture, one client webhook', async () => {
    ark.jobs.clear();
    ark.submitScripts.length = 0;
    ark.jobScript = { statuses: ['queued', 'queued', 'running', 'succeeded'] };
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'seedance-2', prompt: 'a cat', duration: 5 });
    const taskId = created.body.task_id;
    const job = await waitFor(
      () => [...ark.jobs.values()][0],
      (j) => j !== undefined,
    );
    // The same callback twice while the task runs, and twice again after it completed.
    expect([await ark.sendCallback(job.id), await ark.sendCallback(job.id)]).toEqual([200, 200]);
    const task = await e2e.waitForFinal(taskId);
    expect(task.status).toBe('completed');
    expect([await ark.sendCallback(job.id), await ark.sendCallback(job.id)]).toEqual([200, 200]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await e2e.app.ctx.storage.tasks.byIdForWorker(taskId))?.status).toBe('completed');
    expect((await ledgerKinds(e2e, taskId)).filter((k) => k === 'capture')).toHaveLength(1);
    expect(await e2e.balance()).toEqual({ balance: before.balance - SEEDANCE_2_PRICE, held: 0 });
    await waitFor(
      () => clientHooksFor(e2e, taskId).length,
      (n) => n >= 1,
    );
    expect(clientHooksFor(e2e, taskId)).toHaveLength(1);
    await e2e.expectLedgerClean();
  });
});

describe('ark end to end: route fallback', () => {
  let first: FakeArk;
  let second: FakeArk;
  let e2e: ProviderE2E;

  beforeAll(async () => {
    first = await new FakeArk().start();
    second = await new FakeArk('second-key').start();
    e2e = await startProviderE2E({
      providers: providersFile(
        { ark_a: first, ark_b: second },
        {
          'seedance-2': [
            { provider: 'ark_a', model: SEEDANCE_2 },
            { provider: 'ark_b', model: SEEDANCE_2 },
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

  it('the first route answers 429 ServerOverloaded at submit: the task completes on the second', async () => {
    first.submitScripts.push({ status: 429, code: 'ServerOverloaded' });
    const created = await e2e.generate({ model_name: 'seedance-2', prompt: 'a cat', duration: 5 });
    const task = await e2e.waitForFinal(created.body.task_id);
    expect(task.status).toBe('completed');
    expect((await e2e.taskRow(created.body.task_id)).provider).toBe('ark_b');
    expect(first.creates()).toHaveLength(1);
    expect(first.jobs.size).toBe(0);
    expect(second.jobs.size).toBe(1);
    expect(second.creates()[0].headers.authorization).toBe('Bearer second-key');
    // The callback URL handed to the second provider names that provider.
    expect(second.creates()[0].json.callback_url).toContain('/hooks/ark_b?');
    await e2e.expectLedgerClean();
  });
});

describe('ark end to end: deadlines', () => {
  let ark: FakeArk;
  let e2e: ProviderE2E;

  beforeAll(async () => {
    ark = await new FakeArk().start();
    e2e = await startProviderE2E({
      providers: providersFile({ ark }, { 'seedance-2': { provider: 'ark', model: SEEDANCE_2 } }),
      config: { providerTimeoutMs: 1_500 },
    });
  });
  afterAll(async () => {
    await e2e?.dispose();
    await ark?.close();
  });

  it('a task that stays queued: timeout, exact refund, and a DELETE sent to Ark', async () => {
    ark.jobScript = { statuses: ['queued'] };
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'seedance-2', prompt: 'a cat', duration: 5 });
    const task = await e2e.waitForFinal(created.body.task_id);
    expect([task.status, task.error]).toEqual(['failed', TASK_FAILURE.timeout]);
    expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
    const job = ark.job(0);
    expect(ark.cancels().map((c) => c.path)).toEqual([`/api/v3/contents/generations/tasks/${job.id}`]);
    expect(ark.statusOf(job)).toBe('cancelled');
    await e2e.expectLedgerClean();
  });

  it('a lost create answer and no callback from Ark: failed at the deadline with an exact refund, one create', async () => {
    ark.jobs.clear();
    const calls = ark.creates().length;
    ark.submitScripts.push('drop');
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'seedance-2', prompt: 'a cat', duration: 5 });
    const task = await e2e.waitForFinal(created.body.task_id);
    expect(task.status).toBe('failed');
    expect(task.error).toBe(TASK_FAILURE.timeout);
    expect(ark.creates().length - calls).toBe(1);
    expect(ark.jobs.size).toBe(1);
    expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
    await e2e.expectLedgerClean();
  });
});
