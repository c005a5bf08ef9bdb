import type { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { webhookHeaders } from '../../domain/webhooks/signing.js';
import { FAKE_MP4, FAKE_PNG } from '../../testing/fakes/fake-server.js';
import { FakeOpenAiMedia } from '../../testing/fakes/openai-media.js';
import type { ProviderSettings } from '../config.js';
import { DownloadError, NotSentError } from '../http/upstream-http.js';
import type { ProviderTask, SubmitOutcome, TaskProvider } from '../task-provider.js';
import { OpenAiMediaProvider } from './media-adapter.js';
import { openAiMediaAdapterType } from './media-index.js';

const SECRET = `whsec_${Buffer.from('openai-media-test-secret-0123456789').toString('base64')}`;

let fake: FakeOpenAiMedia;
let provider: OpenAiMediaProvider;

const video = (params: Record<string, unknown> = {}, id = 'task_v1'): ProviderTask => ({
  id,
  modelId: 'sora-2',
  upstreamModel: 'sora-2',
  kind: 'video',
  params: { prompt: 'a red fox in the snow', duration: 4, aspect_ratio: '16:9', ...params },
  requeues: 0,
});

const image = (params: Record<string, unknown> = {}, id = 'task_i1'): ProviderTask => ({
  id,
  modelId: 'gpt-image-1',
  upstreamModel: 'gpt-image-1',
  kind: 'image',
  params: { prompt: 'a lighthouse at dusk', aspect_ratio: '1:1', ...params },
  requeues: 0,
});

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

async function submitted(outcome: Promise<SubmitOutcome>): Promise<string> {
  const result = await outcome;
  if (result.status !== 'submitted') throw new Error(`expected submitted, got ${JSON.stringify(result)}`);
  return result.jobId;
}

beforeAll(async () => {
  fake = await new FakeOpenAiMedia().start();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.creates = [];
  fake.polls = ['queued', 'in_progress', 'completed'];
  fake.expiredDownloads = 0;
  fake.webhook = undefined;
  fake.server.requests.length = 0;
  provider = new OpenAiMediaProvider({ baseUrl: fake.baseUrl, apiKey: fake.apiKey, webhookSecret: SECRET });
});

describe('images (gpt-image-1)', () => {
  it('sends the documented JSON body with our key and task id, and succeeds at once with the bytes', async () => {
    const outcome = await provider.submit(image({ aspect_ratio: '3:2', quality: 'high' }));
    const [call] = fake.createCalls('image');
    expect(call.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(call.headers['x-client-request-id']).toBe('task_i1');
    expect(call.json).toEqual({
      model: 'gpt-image-1',
      prompt: 'a lighthouse at dusk',
      n: 1,
      size: '1536x1024',
      quality: 'high',
    });
    if (outcome.status !== 'succeeded') throw new Error(JSON.stringify(outcome));
    expect(outcome.jobId).toBe('img_task_i1');
    expect(outcome.usage).toEqual({ images: 1, tokens: 1056 });
    const [output] = outcome.outputs;
    expect(output.source).toEqual({ kind: 'bytes', data: FAKE_PNG });
    expect(output).toMatchObject({ contentType: 'image/png', width: 1536, height: 1024 });
  });

  it('maps every aspect ratio to its size and omits quality when not given', async () => {
    for (const [aspect, size] of [
      ['1:1', '1024x1024'],
      ['3:2', '1536x1024'],
      ['2:3', '1024x1536'],
    ]) {
      fake.server.requests.length = 0;
      expect((await provider.submit(image({ aspect_ratio: aspect }))).status).toBe('succeeded');
      expect(fake.createCalls('image')[0].json).toEqual({
        model: 'gpt-image-1',
        prompt: 'a lighthouse at dusk',
        n: 1,
        size,
      });
    }
  });

  it('refuses what the images API cannot express, without a call', async () => {
    expect(await provider.submit(image({ aspect_ratio: '16:9' }))).toEqual({
      status: 'failed',
      failure: { kind: 'params', message: 'invalid aspect_ratio' },
    });
    expect(await provider.submit(image({ quality: 'ultra' }))).toEqual({
      status: 'failed',
      failure: { kind: 'params', message: 'quality must be low, medium or high' },
    });
    expect(await provider.submit(image({ style: 'vivid' }))).toEqual({
      status: 'failed',
      failure: { kind: 'params', message: 'unexpected parameter: style' },
    });
    expect(fake.createCalls('image')).toHaveLength(0);
  });

  it('drops a seed by default and refuses it with seed: refuse', async () => {
    expect((await provider.submit(image({ seed: 42 }))).status).toBe('succeeded');
    expect(fake.createCalls('image')[0].json).not.toHaveProperty('seed');
    const strict = new OpenAiMediaProvider({ baseUrl: fake.baseUrl, apiKey: fake.apiKey, seed: 'refuse' });
    expect(await strict.submit(image({ seed: 42 }))).toEqual({
      status: 'failed',
      failure: { kind: 'params', message: 'unexpected parameter: seed' },
    });
    expect(fake.createCalls('image')).toHaveLength(1);
  });

  it('answers a failure if the image job id is ever polled', async () => {
    const outcome = await provider.poll('img_task_i1', image());
    expect(outcome).toMatchObject({ status: 'failed', failure: { kind: 'upstream' } });
    expect(fake.server.requests).toHaveLength(0);
  });

  it('a dropped connection after the request was sent is uncertain (never retried)', async () => {
    fake.creates = ['drop'];
    expect(await provider.submit(image())).toMatchObject({ status: 'uncertain' });
    expect(fake.createCalls('image')).toHaveLength(1);
  });
});

describe('videos (sora-2)', () => {
  it('creates a multipart job with our key and task id, then polls queued → in_progress → completed', async () => {
    const jobId = await submitted(provider.submit(video({ duration: 8, aspect_ratio: '9:16' })));
    const [call] = fake.createCalls('video');
    expect(call.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(call.headers['x-client-request-id']).toBe('task_v1');
    expect(String(call.headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/);
    expect(fake.videos.get(jobId)?.fields).toEqual({
      model: 'sora-2',
      prompt: 'a red fox in the snow',
      seconds: '8',
      size: '720x1280',
    });
    expect(await provider.poll(jobId, video())).toEqual({ status: 'running' });
    expect(await provider.poll(jobId, video())).toEqual({ status: 'running' });
    const done = await provider.poll(jobId, video({ duration: 8 }));
    if (done.status !== 'succeeded') throw new Error(JSON.stringify(done));
    expect(done.usage).toEqual({ seconds: 8 });
    const [output] = done.outputs;
    expect(output).toMatchObject({
      contentType: 'video/mp4',
      width: 720,
      height: 1280,
      durationSec: 8,
      expiresAt: 1_790_003_700_000,
    });
    if (output.source.kind !== 'stream') throw new Error('expected a stream');
    expect(await readAll(await output.source.open())).toEqual(FAKE_MP4);
    const [download] = fake.server.calls(/\/content$/);
    expect(download.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
  });

  it('reads a 201 or 202 (a compatible server or proxy) at create, poll and check as the answer it carries', async () => {
    fake.server.successStatus.push(
      { method: 'POST', pattern: /^\/v1\/videos$/, status: 201 },
      { method: 'GET', pattern: /^\/v1\/videos\/[^/]+$/, status: 202 },
      { method: 'GET', pattern: /^\/v1\/models$/, status: 202 },
    );
    try {
      const jobId = await submitted(provider.submit(video()));
      expect(await provider.poll(jobId, video())).toEqual({ status: 'running' });
      expect(await provider.poll(jobId, video())).toEqual({ status: 'running' });
      expect(await provider.poll(jobId, video())).toMatchObject({ status: 'succeeded' });
      expect(await provider.check()).toEqual({ reachable: true, authOk: true });
    } finally {
      fake.server.successStatus.length = 0;
    }
  });

  it('maps the default shape (16:9, 4 s) and refuses durations, ratios and start_image_url it cannot send', async () => {
    const jobId = await submitted(provider.submit(video({ duration: undefined, aspect_ratio: undefined })));
    expect(fake.videos.get(jobId)?.fields).toMatchObject({ seconds: '4', size: '1280x720' });
    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ duration: 5 }, 'duration must be 4, 8 or 12'],
      [{ aspect_ratio: '1:1' }, 'invalid aspect_ratio'],
      [{ start_image_url: 'https://example.com/a.png' }, 'unexpected parameter: start_image_url'],
      [{ end_image_url: 'https://example.com/a.png' }, 'unexpected parameter: end_image_url'],
    ];
    for (const [params, message] of refusals)
      expect(await provider.submit(video(params))).toEqual({
        status: 'failed',
        failure: { kind: 'params', message },
      });
    expect(fake.createCalls('video')).toHaveLength(1);
  });

  it('a failed video maps its error code: moderation → rejected, anything else → upstream', async () => {
    fake.polls = ['failed'];
    fake.videoError = { code: 'moderation_blocked', message: 'blocked' };
    const rejected = await submitted(provider.submit(video()));
    expect(await provider.poll(rejected, video())).toMatchObject({
      status: 'failed',
      failure: { kind: 'rejected' },
    });
    fake.videoError = { code: 'internal_error', message: 'something broke' };
    const broken = await submitted(provider.submit(video()));
    expect(await provider.poll(broken, video())).toMatchObject({
      status: 'failed',
      failure: { kind: 'upstream' },
    });
  });

  it('a 429 or 5xx on a poll, and an unknown status, keep the job running', async () => {
    fake.polls = ['rate_limited', 'server_error', 'completed'];
    const jobId = await submitted(provider.submit(video()));
    expect(await provider.poll(jobId, video())).toEqual({ status: 'running', retryAfterMs: 1000 });
    expect(await provider.poll(jobId, video())).toEqual({ status: 'running', retryAfterMs: 5000 });
    expect((await provider.poll(jobId, video())).status).toBe('succeeded');
    // A status this adapter does not know (a future one) is never terminal.
    fake.polls = ['rendering' as never];
    const other = await submitted(provider.submit(video()));
    expect(await provider.poll(other, video())).toEqual({ status: 'running' });
  });

  it('a job the upstream no longer knows (404) fails as upstream', async () => {
    expect(await provider.poll('video_gone', video())).toMatchObject({
      status: 'failed',
      failure: { kind: 'upstream' },
    });
  });

  it('an expired download throws DownloadError.expired (the runner re-polls for a fresh one)', async () => {
    fake.polls = ['completed'];
    fake.expiredDownloads = 1;
    const jobId = await submitted(provider.submit(video()));
    const done = await provider.poll(jobId, video());
    if (done.status !== 'succeeded' || done.outputs[0].source.kind !== 'stream')
      throw new Error('expected a stream');
    const failure = await done.outputs[0].source.open().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DownloadError);
    expect((failure as DownloadError).expired).toBe(true);
    expect(await readAll(await done.outputs[0].source.open())).toEqual(FAKE_MP4);
  });

  it('a dropped create is uncertain: exactly one job exists upstream, and nothing is retried', async () => {
    fake.creates = ['drop'];
    const before = fake.videos.size;
    expect(await provider.submit(video())).toMatchObject({ status: 'uncertain' });
    expect(fake.createCalls('video')).toHaveLength(1);
    expect(fake.videos.size).toBe(before + 1);
  });

  it('has no cancel and no reconcile (the API has neither a stop call nor a lookup by reference)', () => {
    const contract: TaskProvider = provider;
    expect(contract.cancel).toBeUndefined();
    expect(contract.reconcile).toBeUndefined();
  });
});

describe('error mapping at submit', () => {
  const table: Array<[string, Parameters<typeof fake.creates.push>[0], object]> = [
    [
      '429 rate_limit_exceeded → busy',
      { status: 429, code: 'rate_limit_exceeded', retryAfter: '7' },
      { status: 'busy', retryAfterMs: 7000 },
    ],
    ['429 without a code → busy', { status: 429, code: null }, { status: 'busy' }],
    [
      '429 insufficient_quota → billing',
      { status: 429, code: 'insufficient_quota', type: 'insufficient_quota' },
      { status: 'failed', failure: { kind: 'billing' } },
    ],
    [
      '400 moderation_blocked → rejected',
      { status: 400, code: 'moderation_blocked', type: 'image_generation_user_error' },
      { status: 'failed', failure: { kind: 'rejected' } },
    ],
    [
      '400 content_policy_violation → rejected',
      { status: 400, code: 'content_policy_violation' },
      { status: 'failed', failure: { kind: 'rejected' } },
    ],
    [
      '400 invalid_request_error on size → params "invalid aspect_ratio"',
      { status: 400, code: 'invalid_value', param: 'size' },
      { status: 'failed', failure: { kind: 'params', message: 'invalid aspect_ratio' } },
    ],
    [
      '400 invalid_request_error on seconds → params "invalid duration"',
      { status: 400, code: 'invalid_value', param: 'seconds' },
      { status: 'failed', failure: { kind: 'params', message: 'invalid duration' } },
    ],
    [
      '400 invalid_request_error on an unknown field → params with the default message',
      { status: 400, code: 'invalid_value', param: 'frobnicate' },
      { status: 'failed', failure: { kind: 'params' } },
    ],
    [
      '403 → auth',
      { status: 403, code: 'unsupported_country_region_territory' },
      { status: 'failed', failure: { kind: 'auth' } },
    ],
    ['500 → overload', { status: 500, code: null }, { status: 'failed', failure: { kind: 'overload' } }],
    [
      '503 → overload',
      { status: 503, code: null, type: 'server_error' },
      { status: 'failed', failure: { kind: 'overload' } },
    ],
    [
      '404 (the videos API is gone) → upstream',
      { status: 404, code: null },
      { status: 'failed', failure: { kind: 'upstream' } },
    ],
  ];
  for (const [name, script, expected] of table) {
    it(name, async () => {
      for (const task of [video(), image()]) {
        fake.creates = [script];
        const outcome = await provider.submit(task);
        expect(outcome).toMatchObject(expected);
        if (outcome.status === 'failed' && outcome.failure.kind !== 'params')
          expect(outcome.failure.message).toBeUndefined();
        if (
          outcome.status === 'failed' &&
          outcome.failure.kind === 'params' &&
          !('message' in (expected as { failure: object }).failure)
        )
          expect(outcome.failure.message).toBeUndefined();
      }
    });
  }

  it('a wrong key → auth, and the detail never reaches a client message', async () => {
    const wrong = new OpenAiMediaProvider({ baseUrl: fake.baseUrl, apiKey: 'sk-wrong' });
    for (const task of [video(), image()]) {
      const outcome = await wrong.submit(task);
      expect(outcome).toMatchObject({ status: 'failed', failure: { kind: 'auth' } });
      if (outcome.status === 'failed') expect(outcome.failure.message).toBeUndefined();
    }
  });

  it('a connection never made throws NotSentError (the runner may retry or use the next route)', async () => {
    const nowhere = new OpenAiMediaProvider({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'k' });
    await expect(nowhere.submit(video())).rejects.toBeInstanceOf(NotSentError);
    await expect(nowhere.submit(image())).rejects.toBeInstanceOf(NotSentError);
  });
});

describe('webhooks (project-level, Standard Webhooks)', () => {
  const body = (type: string, id: string) =>
    Buffer.from(JSON.stringify({ id: 'evt_1', object: 'event', type, created_at: 1, data: { id } }));
  const signed = (raw: Buffer, secret = SECRET, now = Date.now()) =>
    webhookHeaders('msg_1', raw.toString('utf8'), [secret], now) as unknown as Record<string, string>;

  it('accepts a signed video.completed / video.failed and names the video', async () => {
    for (const type of ['video.completed', 'video.failed']) {
      const raw = body(type, 'video_abc');
      expect(await provider.receiveHook({ headers: signed(raw), rawBody: raw, query: {} })).toEqual({
        status: 'accepted',
        jobId: 'video_abc',
      });
    }
  });

  it('refuses a forged, altered, unsigned or stale delivery when the secret is set', async () => {
    const raw = body('video.completed', 'video_abc');
    const other = `whsec_${Buffer.from('another-secret-entirely-0123456789').toString('base64')}`;
    expect(await provider.receiveHook({ headers: signed(raw, other), rawBody: raw, query: {} })).toEqual({
      status: 'forged',
    });
    const altered = body('video.completed', 'video_xyz');
    expect(await provider.receiveHook({ headers: signed(raw), rawBody: altered, query: {} })).toEqual({
      status: 'forged',
    });
    expect(await provider.receiveHook({ headers: {}, rawBody: raw, query: {} })).toEqual({
      status: 'forged',
    });
    const stale = signed(raw, SECRET, Date.now() - 10 * 60_000);
    expect(await provider.receiveHook({ headers: stale, rawBody: raw, query: {} })).toEqual({
      status: 'forged',
    });
  });

  it('other project events are accepted without a job; without a secret a delivery is only a hint', async () => {
    const response = body('response.completed', 'resp_1');
    expect(await provider.receiveHook({ headers: signed(response), rawBody: response, query: {} })).toEqual({
      status: 'accepted',
    });
    const open = new OpenAiMediaProvider({ baseUrl: fake.baseUrl, apiKey: fake.apiKey });
    const raw = body('video.completed', 'video_abc');
    expect(await open.receiveHook({ headers: {}, rawBody: raw, query: { task: 't1' } })).toEqual({
      status: 'accepted',
      jobId: 'video_abc',
      taskId: 't1',
    });
    expect(await open.receiveHook({ headers: {}, rawBody: Buffer.from('not json'), query: {} })).toEqual({
      status: 'accepted',
    });
  });

  it('the fake signs deliveries the adapter verifies', async () => {
    const received: Array<{ headers: Record<string, string>; raw: Buffer }> = [];
    const { createServer } = await import('node:http');
    const server = createServer(async (req, res) => {
      const parts: Buffer[] = [];
      for await (const part of req) parts.push(part as Buffer);
      received.push({ headers: req.headers as Record<string, string>, raw: Buffer.concat(parts) });
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await fake.sendWebhook(`http://127.0.0.1:${port}/hooks/oa`, SECRET, 'video_42', 'video.completed');
    server.close();
    expect(
      await provider.receiveHook({ headers: received[0].headers, rawBody: received[0].raw, query: {} }),
    ).toEqual({
      status: 'accepted',
      jobId: 'video_42',
    });
  });
});

describe('check() and the adapter type', () => {
  it('GET /models with our key: ok, or authOk false on 401; unreachable when no connection', async () => {
    expect(await provider.check()).toEqual({ reachable: true, authOk: true });
    expect(fake.server.calls(/^\/v1\/models$/, 'GET')).toHaveLength(1);
    const wrong = new OpenAiMediaProvider({ baseUrl: fake.baseUrl, apiKey: 'sk-wrong' });
    expect(await wrong.check()).toMatchObject({ reachable: true, authOk: false });
    const nowhere = new OpenAiMediaProvider({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'k' });
    expect(await nowhere.check()).toMatchObject({ reachable: false, authOk: false });
    expect(fake.createCalls('video')).toHaveLength(0);
    expect(fake.createCalls('image')).toHaveLength(0);
  });

  it('validates its options and builds a provider from the PROVIDERS_FILE entry', async () => {
    const settings = (options: Record<string, unknown>): ProviderSettings => ({
      name: 'oa',
      type: 'openai',
      baseUrl: fake.baseUrl,
      apiKey: fake.apiKey,
      options,
    });
    expect(openAiMediaAdapterType.type).toBe('openai');
    expect(openAiMediaAdapterType.validate(settings({}))).toEqual([]);
    expect(openAiMediaAdapterType.validate({ ...settings({}), apiKey: undefined })).toEqual([]);
    expect(openAiMediaAdapterType.validate(settings({ seed: 'maybe', webhook_secret: 3 }))).toEqual([
      "providers.oa.webhook_secret must be the project's whsec_… secret",
      'providers.oa.seed must be one of ignore, refuse',
    ]);
    const built = openAiMediaAdapterType.create(settings({ seed: 'refuse' }), { clock: { now: () => 0 } });
    expect(await built.submit(image({ seed: 1 }))).toMatchObject({
      failure: { message: 'unexpected parameter: seed' },
    });
    expect((await built.submit(image())).status).toBe('succeeded');
  });
});
