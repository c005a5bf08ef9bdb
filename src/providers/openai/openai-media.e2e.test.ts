// The whole path through gengate with an openai provider for media: POST /generate → the openai media
// adapter → the OpenAI Images/Videos fake → our object storage → the ledger → the client's webhook.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureMessage } from '../../domain/tasks/failures.js';
import { TASK_FAILURE } from '../../domain/tasks/states.js';
import { FAKE_MP4, FAKE_PNG } from '../../testing/fakes/fake-server.js';
import {
  type FakeOpenAiMedia,
  type OpenAiCreateScript,
  startFakeOpenAiMedia,
} from '../../testing/fakes/openai-media.js';
import {
  clientHooksFor,
  ledgerKinds,
  type ProviderE2E,
  startProviderE2E,
  waitFor,
} from '../../testing/provider-e2e.js';

const SECRET = `whsec_${Buffer.from('openai-media-e2e-secret-0123456789').toString('base64')}`;
/** sora-2 costs 10 RUB per second: 4 s hold and capture 40 RUB (micro-rubles). */
const SORA_4S = 40_000_000;
/** gpt-image-1 at low quality, 1024x1536: 1.44 RUB per shot (its billing variant). */
const IMAGE = 1_440_000;

function providersFile(fakes: Record<string, FakeOpenAiMedia>, routes: Record<string, unknown>) {
  return {
    providers: Object.fromEntries(
      Object.entries(fakes).map(([name, fake]) => [
        name,
        { type: 'openai', base_url: fake.baseUrl, api_key: fake.apiKey, webhook_secret: SECRET },
      ]),
    ),
    routes,
  };
}

const SORA = { model_name: 'sora-2', prompt: 'a red fox in the snow', duration: 4 };
const GPT_IMAGE = { model_name: 'gpt-image-1', prompt: 'a lighthouse at dusk' };

describe('openai media end to end', () => {
  let fake: FakeOpenAiMedia;
  let e2e: ProviderE2E;

  beforeAll(async () => {
    fake = await startFakeOpenAiMedia();
    e2e = await startProviderE2E({
      providers: providersFile(
        { oa: fake },
        {
          'sora-2': { provider: 'oa', model: 'sora-2' },
          'gpt-image-1': { provider: 'oa', model: 'gpt-image-1' },
        },
      ),
    });
  });
  afterAll(async () => {
    await e2e?.dispose();
    await fake?.close();
  });

  function script(options: { creates?: OpenAiCreateScript[]; polls?: FakeOpenAiMedia['polls'] } = {}) {
    fake.creates = options.creates ?? [];
    fake.polls = options.polls ?? ['queued', 'in_progress', 'completed'];
    fake.expiredDownloads = 0;
    fake.webhook = undefined;
  }

  async function run(params: Record<string, unknown>) {
    const before = await e2e.balance();
    const created = await e2e.generate(params);
    expect(created.status).toBe(202);
    const task = await e2e.waitForFinal(created.body.task_id);
    return { before, task, taskId: created.body.task_id as string };
  }

  it('sora-2 queued → in_progress → completed: our copy of the video, the price captured, one client webhook', async () => {
    script();
    const { before, task, taskId } = await run({ ...SORA, aspect_ratio: '9:16' });
    expect(task.status).toBe('completed');
    const videoUrl: string = task.result!.video_url;
    expect(videoUrl.startsWith(`${e2e.origin}/objects/`)).toBe(true);
    const file = await e2e.download(videoUrl);
    expect(file.status).toBe(200);
    expect(file.bytes.equals(FAKE_MP4)).toBe(true);
    const row = await e2e.taskRow(taskId);
    expect(Number(row.hold_amount)).toBe(SORA_4S);
    expect(Number(row.cost)).toBe(SORA_4S);
    expect(row.provider_job_id).toMatch(/^video_/);
    expect(await e2e.balance()).toEqual({ balance: before.balance - SORA_4S, held: 0 });
    // OpenAI saw our key, our task id and the mapped multipart fields.
    const create = fake.createCalls('video').at(-1)!;
    expect(create.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(create.headers['x-client-request-id']).toBe(taskId);
    expect(fake.videos.get(row.provider_job_id)?.fields).toEqual({
      model: 'sora-2',
      prompt: 'a red fox in the snow',
      seconds: '4',
      size: '720x1280',
    });
    expect(fake.server.calls(/\/content$/, 'GET').at(-1)!.headers.authorization).toBe(
      `Bearer ${fake.apiKey}`,
    );
    await waitFor(
      () => clientHooksFor(e2e, taskId),
      (hooks) => hooks.length >= 1,
      3_000,
    );
    expect(clientHooksFor(e2e, taskId).map((h) => JSON.parse(h.body).status)).toEqual(['completed']);
    await e2e.expectLedgerClean();
  });

  it('gpt-image-1 succeeds at submit: our copy of the image, its low 1024x1536 price (1.44 RUB) captured', async () => {
    script();
    const { before, task, taskId } = await run({ ...GPT_IMAGE, aspect_ratio: '2:3', quality: 'low' });
    expect(task.status).toBe('completed');
    const file = await e2e.download(task.result!.image_url);
    expect(file.bytes.equals(FAKE_PNG)).toBe(true);
    expect(fake.createCalls('image').at(-1)!.json).toEqual({
      model: 'gpt-image-1',
      prompt: 'a lighthouse at dusk',
      n: 1,
      size: '1024x1536',
      quality: 'low',
    });
    expect((await e2e.taskRow(taskId)).provider_job_id).toBe(`img_${taskId}`);
    expect(await e2e.balance()).toEqual({ balance: before.balance - IMAGE, held: 0 });
    await e2e.expectLedgerClean();
  });

  const failures: Array<[string, Record<string, unknown>, Parameters<typeof script>[0], string]> = [
    [
      'rejected (the video fails with moderation_blocked)',
      SORA,
      { polls: ['queued', 'failed'] },
      TASK_FAILURE.rejected,
    ],
    [
      'rejected (image 400 moderation_blocked at submit)',
      GPT_IMAGE,
      { creates: [{ status: 400, code: 'moderation_blocked', type: 'image_generation_user_error' }] },
      TASK_FAILURE.rejected,
    ],
    [
      'billing (429 insufficient_quota)',
      SORA,
      { creates: [{ status: 429, code: 'insufficient_quota', type: 'insufficient_quota' }] },
      TASK_FAILURE.billing,
    ],
    [
      'overload (500 at submit, no other route)',
      SORA,
      { creates: [{ status: 500, code: null, type: 'server_error' }] },
      TASK_FAILURE.overload,
    ],
    [
      'params (400 invalid_value on size)',
      GPT_IMAGE,
      { creates: [{ status: 400, code: 'invalid_value', param: 'size' }] },
      failureMessage({ kind: 'params', message: 'invalid aspect_ratio' }),
    ],
    [
      'auth (401 invalid_api_key)',
      SORA,
      { creates: [{ status: 401, code: 'invalid_api_key' }] },
      TASK_FAILURE.upstream,
    ],
    [
      'upstream (404: the videos API is gone, no other route)',
      SORA,
      { creates: [{ status: 404, code: null }] },
      TASK_FAILURE.upstream,
    ],
    ['upstream (the video fails with an internal error)', SORA, { polls: ['failed'] }, TASK_FAILURE.upstream],
  ];
  for (const [name, params, setup, message] of failures) {
    it(`fails as ${name} with the exact message and an exact refund`, async () => {
      script(setup);
      fake.videoError = name.includes('internal')
        ? { code: 'internal_error', message: 'Video generation failed' }
        : { code: 'moderation_blocked', message: 'blocked' };
      const { before, task } = await run(params);
      expect([task.status, task.error]).toEqual(['failed', message]);
      expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
      await e2e.expectLedgerClean();
    });
  }

  it('refuses start_image_url (an upload this adapter does not make) before any call to OpenAI', async () => {
    script();
    const calls = fake.createCalls('video').length;
    const { before, task } = await run({ ...SORA, start_image_url: 'https://example.com/first.png' });
    expect([task.status, task.error]).toEqual(['failed', 'unexpected parameter: start_image_url']);
    expect(fake.createCalls('video')).toHaveLength(calls);
    expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
    await e2e.expectLedgerClean();
  });

  it('busy at submit (429 rate_limit_exceeded): re-queued without an error, then completes', async () => {
    script({ creates: [{ status: 429, code: 'rate_limit_exceeded', retryAfter: '0' }] });
    const created = await e2e.generate(SORA);
    const taskId = created.body.task_id;
    const requeued = await waitFor(
      () => e2e.taskRow(taskId),
      (row) => Number(row.requeues) >= 1 || row.status === 'completed',
    );
    expect(requeued.error ?? null).toBeNull();
    const task = await e2e.waitForFinal(taskId);
    expect([task.status, task.error ?? null]).toEqual(['completed', null]);
    await e2e.expectLedgerClean();
  });

  it('the content download answers 403 every time: failed as upstream, exact refund', async () => {
    script({ polls: ['completed'] });
    fake.expiredDownloads = 1_000;
    const { before, task } = await run(SORA);
    expect([task.status, task.error]).toEqual(['failed', TASK_FAILURE.upstream]);
    expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
    fake.expiredDownloads = 0;
    await e2e.expectLedgerClean();
  });

  it('the content download answers 403 once: the runner polls again and the next download succeeds', async () => {
    script({ polls: ['completed'] });
    fake.expiredDownloads = 1;
    const { task } = await run(SORA);
    expect(task.status).toBe('completed');
    expect((await e2e.download(task.result!.video_url)).bytes.equals(FAKE_MP4)).toBe(true);
    await e2e.expectLedgerClean();
  });

  it('a duplicate OpenAI webhook (signed, project-level): one completion, one capture, one client webhook', async () => {
    script({ polls: ['queued', 'in_progress', 'completed'] });
    fake.webhook = { url: `${e2e.origin}/hooks/oa`, secret: SECRET, times: 2 };
    const before = await e2e.balance();
    const created = await e2e.generate(SORA);
    const taskId = created.body.task_id;
    const task = await e2e.waitForFinal(taskId);
    expect(task.status).toBe('completed');
    // The fake delivered video.completed twice when the video turned completed; twice more now.
    const jobId = (await e2e.taskRow(taskId)).provider_job_id;
    const delivered = () => fake.deliveries.filter((d) => d.videoId === jobId).map((d) => d.status);
    await waitFor(delivered, (statuses) => statuses.length >= 2);
    expect(await fake.sendWebhook(`${e2e.origin}/hooks/oa`, SECRET, jobId)).toBe(200);
    expect(await fake.sendWebhook(`${e2e.origin}/hooks/oa`, SECRET, jobId)).toBe(200);
    expect(delivered()).toEqual([200, 200]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await e2e.taskRow(taskId)).status).toBe('completed');
    expect((await ledgerKinds(e2e, taskId)).filter((k) => k === 'capture')).toHaveLength(1);
    expect(await e2e.balance()).toEqual({ balance: before.balance - SORA_4S, held: 0 });
    await waitFor(
      () => clientHooksFor(e2e, taskId).length,
      (n) => n >= 1,
      3_000,
    );
    expect(clientHooksFor(e2e, taskId)).toHaveLength(1);
    await e2e.expectLedgerClean();
  });

  it('a delivery signed with another secret is refused (401) and changes nothing', async () => {
    const other = `whsec_${Buffer.from('not-the-project-secret-0123456789').toString('base64')}`;
    expect(await fake.sendWebhook(`${e2e.origin}/hooks/oa`, other, 'video_whatever')).toBe(401);
  });
});

describe('openai media end to end: route fallback', () => {
  let first: FakeOpenAiMedia;
  let second: FakeOpenAiMedia;
  let e2e: ProviderE2E;

  beforeAll(async () => {
    first = await startFakeOpenAiMedia();
    second = await startFakeOpenAiMedia();
    e2e = await startProviderE2E({
      providers: providersFile(
        { oa_a: first, oa_b: second },
        {
          'sora-2': [
            { provider: 'oa_a', model: 'sora-2' },
            { provider: 'oa_b', model: 'sora-2' },
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
    first.creates = [{ status: 503, code: null, type: 'server_error' }];
    const created = await e2e.generate(SORA);
    const task = await e2e.waitForFinal(created.body.task_id);
    expect(task.status).toBe('completed');
    expect((await e2e.taskRow(created.body.task_id)).provider).toBe('oa_b');
    expect(first.createCalls('video')).toHaveLength(1);
    expect(first.videos.size).toBe(0);
    expect(second.videos.size).toBe(1);
    await e2e.expectLedgerClean();
  });

  it('the first route has no videos API any more (404): the task completes on the second', async () => {
    first.creates = [{ status: 404, code: null }];
    const created = await e2e.generate(SORA);
    const task = await e2e.waitForFinal(created.body.task_id);
    expect(task.status).toBe('completed');
    expect((await e2e.taskRow(created.body.task_id)).provider).toBe('oa_b');
    await e2e.expectLedgerClean();
  });
});

describe('openai media end to end: deadlines', () => {
  let fake: FakeOpenAiMedia;
  let e2e: ProviderE2E;

  beforeAll(async () => {
    fake = await startFakeOpenAiMedia();
    e2e = await startProviderE2E({
      providers: providersFile({ oa: fake }, { 'sora-2': { provider: 'oa', model: 'sora-2' } }),
      config: { providerTimeoutMs: 1_500 },
    });
  });
  afterAll(async () => {
    await e2e?.dispose();
    await fake?.close();
  });

  it('a video that never finishes: timeout and an exact refund; no cancel call (OpenAI has none)', async () => {
    fake.polls = ['queued', 'in_progress'];
    const before = await e2e.balance();
    const created = await e2e.generate(SORA);
    const task = await e2e.waitForFinal(created.body.task_id);
    expect([task.status, task.error]).toEqual(['failed', TASK_FAILURE.timeout]);
    expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
    expect(fake.server.calls(/^\/v1\/videos\//, 'DELETE')).toHaveLength(0);
    await e2e.expectLedgerClean();
  });

  it('a lost create answer: one video at OpenAI, no lookup possible, failed at the deadline with an exact refund', async () => {
    fake.videos.clear();
    fake.polls = ['completed'];
    fake.creates = ['drop'];
    const calls = fake.createCalls('video').length;
    const before = await e2e.balance();
    const created = await e2e.generate(SORA);
    const taskId = created.body.task_id;
    // The project webhook names only the video, which no task has recorded: accepted, matched to nothing.
    const [video] = await waitFor(
      () => [...fake.videos.keys()],
      (ids) => ids.length === 1,
    );
    expect(await fake.sendWebhook(`${e2e.origin}/hooks/oa`, SECRET, video)).toBe(200);
    const task = await e2e.waitForFinal(taskId);
    expect([task.status, task.error]).toEqual(['failed', TASK_FAILURE.timeout]);
    expect(fake.createCalls('video').length - calls).toBe(1);
    expect(fake.videos.size).toBe(1);
    expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
    await e2e.expectLedgerClean();
  });
});
