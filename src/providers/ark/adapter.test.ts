import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeArk } from '../../testing/fakes/ark.js';
import { FAKE_MP4, FakeServer } from '../../testing/fakes/fake-server.js';
import { NotSentError } from '../http/upstream-http.js';
import type { ProviderOutput, ProviderTask, TaskProvider } from '../task-provider.js';
import { ArkProvider } from './adapter.js';
import { arkAdapterType } from './index.js';
import { SEEDREAM_SIZES } from './request.js';

const CALLBACK = 'http://127.0.0.1:9/hooks/ark?task=t_1&token=abc';

function videoTask(
  params: Record<string, unknown> = {},
  upstreamModel = 'seedance-2-0-260128',
): ProviderTask {
  return {
    id: 't_1',
    modelId: 'seedance-2',
    upstreamModel,
    kind: 'video',
    params: { prompt: 'a cat on a windowsill', duration: 5, ...params },
    requeues: 0,
  };
}

function imageTask(params: Record<string, unknown> = {}): ProviderTask {
  return {
    id: 't_2',
    modelId: 'seedream-4',
    upstreamModel: 'seedream-4-0-250828',
    kind: 'image',
    params: { prompt: 'a red fox', aspect_ratio: '1:1', ...params },
    requeues: 0,
  };
}

let fake: FakeArk;
let ark: ArkProvider;

function provider(apiKey = fake.apiKey, baseUrl = fake.baseUrl): ArkProvider {
  return new ArkProvider(
    { name: 'ark', type: 'ark', baseUrl, apiKey, options: {} },
    { now: () => Date.parse('2026-11-25T00:00:00Z') },
  );
}

beforeEach(async () => {
  fake = await new FakeArk().start();
  ark = provider();
});

afterEach(async () => {
  await fake.close();
});

async function pollUntilDone(jobId: string, task: ProviderTask) {
  for (let i = 0; i < 10; i++) {
    const outcome = await ark.poll(jobId, task);
    if (outcome.status !== 'running') return outcome;
  }
  throw new Error('still running');
}

async function read(output: ProviderOutput): Promise<Buffer> {
  if (output.source.kind !== 'url') throw new Error('expected a url output');
  const res = await fetch(output.source.url);
  return Buffer.from(await res.arrayBuffer());
}

describe('ark adapter: Seedance video', () => {
  it('submits the documented body with the Bearer key, and polls queued → running → succeeded', async () => {
    const task = videoTask({
      aspect_ratio: '9:16',
      resolution: '1080p',
      seed: 42,
      start_image_url: 'https://img.example/first.png',
      end_image_url: 'https://img.example/last.png',
      reference_image_urls: ['https://img.example/ref.png'],
    });
    const submitted = await ark.submit(task, { callbackUrl: CALLBACK });
    expect(submitted).toMatchObject({ status: 'submitted', jobId: expect.stringMatching(/^cgt-/) });
    const [create] = fake.creates();
    expect(create.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(create.path).toBe('/api/v3/contents/generations/tasks');
    expect(create.json).toEqual({
      model: 'seedance-2-0-260128',
      content: [
        { type: 'text', text: 'a cat on a windowsill' },
        { type: 'image_url', image_url: { url: 'https://img.example/first.png' }, role: 'first_frame' },
        { type: 'image_url', image_url: { url: 'https://img.example/last.png' }, role: 'last_frame' },
        { type: 'image_url', image_url: { url: 'https://img.example/ref.png' }, role: 'reference_image' },
      ],
      callback_url: CALLBACK,
      ratio: '9:16',
      resolution: '1080p',
      duration: 5,
      seed: 42,
      watermark: false,
    });
    const jobId = (submitted as { jobId: string }).jobId;
    expect(await ark.poll(jobId, task)).toEqual({ status: 'running' });
    expect(await ark.poll(jobId, task)).toEqual({ status: 'running' });
    const done = await ark.poll(jobId, task);
    expect(done).toMatchObject({
      status: 'succeeded',
      usage: { tokens: 108_900 },
      outputs: [{ contentType: 'video/mp4', durationSec: 5, source: { kind: 'url' } }],
    });
    if (done.status !== 'succeeded') throw new Error('unreachable');
    const expiresAt = done.outputs[0].expiresAt ?? 0;
    expect(expiresAt - Date.now()).toBeGreaterThan(23 * 3_600_000);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(24 * 3_600_000 + 1000);
    expect(await read(done.outputs[0])).toEqual(FAKE_MP4);
  });

  it('reads a 2xx other than 200 (a compatible gateway) at create, poll, cancel, image and check as the answer', async () => {
    fake.server.successStatus.push(
      { method: 'POST', pattern: /\/tasks$/, status: 201 },
      { method: 'GET', pattern: /\/tasks\/[^/]+$/, status: 202 },
      { method: 'DELETE', pattern: /\/tasks\/[^/]+$/, status: 202 },
      { method: 'POST', pattern: /\/images\/generations$/, status: 201 },
      { method: 'GET', pattern: /\/tasks$/, status: 203 },
    );
    const task = videoTask();
    const submitted = await ark.submit(task);
    if (submitted.status !== 'submitted') throw new Error(JSON.stringify(submitted));
    expect(await pollUntilDone(submitted.jobId, task)).toMatchObject({ status: 'succeeded' });
    fake.jobScript = { statuses: ['queued'] };
    const queued = (await ark.submit(task)) as { jobId: string };
    await ark.cancel(queued.jobId);
    expect(await ark.submit(imageTask())).toMatchObject({ status: 'succeeded' });
    expect(await ark.check()).toEqual({ reachable: true, authOk: true });
  });

  it('sends video and audio references on Seedance 2.x, and no callback_url without a callback', async () => {
    const task = videoTask({
      reference_video_urls: ['https://v.example/a.mp4'],
      reference_audio_urls: ['https://a.example/a.mp3'],
    });
    expect(await ark.submit(task)).toMatchObject({ status: 'submitted' });
    const body = fake.creates()[0].json;
    expect(body.callback_url).toBeUndefined();
    expect(body.content.slice(1)).toEqual([
      { type: 'video_url', video_url: { url: 'https://v.example/a.mp4' }, role: 'reference_video' },
      { type: 'audio_url', audio_url: { url: 'https://a.example/a.mp3' }, role: 'reference_audio' },
    ]);
  });

  it.each([
    [
      { reference_video_urls: ['https://v.example/a.mp4'] },
      'unexpected parameter: reference_video_urls',
      'seedance-1-0-pro-250528',
    ],
    [
      { reference_audio_urls: ['https://a.example/a.mp3'] },
      'unexpected parameter: reference_audio_urls',
      'doubao-seedance-1-0-pro-250528',
    ],
    [
      { reference_audio_urls: ['https://a.example/a.mp3'] },
      'reference_audio_urls requires a reference image or video',
      'seedance-2-0-260128',
    ],
    [
      { end_image_url: 'https://img.example/last.png' },
      'end_image_url requires start_image_url',
      'seedance-2-0-260128',
    ],
    [{ aspect_ratio: '5:4' }, 'invalid aspect_ratio', 'seedance-2-0-260128'],
    [{ resolution: '4k' }, 'resolution must be 480p, 720p or 1080p', 'seedance-2-0-260128'],
    [{ negative_prompt: 'dogs' }, 'unexpected parameter: negative_prompt', 'seedance-2-0-260128'],
    [{ prompt: undefined }, 'prompt is required', 'seedance-2-0-260128'],
  ])('refuses %o without a network call: %s', async (params, message, model) => {
    const outcome = await ark.submit(videoTask(params, model), { callbackUrl: CALLBACK });
    expect(outcome).toEqual({ status: 'failed', failure: { kind: 'params', message } });
    expect(fake.server.requests).toHaveLength(0);
  });

  it('sends token usage of a token-billed model (seedance-1-pro)', async () => {
    fake.jobScript = { statuses: ['succeeded'], tokens: 244_800 };
    const task = {
      ...videoTask({ resolution: '1080p' }, 'seedance-1-0-pro-250528'),
      modelId: 'seedance-1-pro',
    };
    const submitted = await ark.submit(task);
    const done = await ark.poll((submitted as { jobId: string }).jobId, task);
    expect(done).toMatchObject({ status: 'succeeded', usage: { tokens: 244_800 } });
  });

  it.each([
    [400, 'InputTextSensitiveContentDetected', 'rejected'],
    [400, 'SensitiveContentDetected.Violence', 'rejected'],
    [400, 'InputImageSensitiveContentDetected', 'rejected'],
    [403, 'AccountOverdueError', 'billing'],
    [429, 'QuotaExceeded', 'billing'],
    [429, 'SetLimitExceeded', 'billing'],
    [400, 'InvalidParameter', 'params'],
    [400, 'MissingParameter', 'params'],
    [401, 'AuthenticationError', 'auth'],
    [403, 'AccessDenied', 'auth'],
    [429, 'ServerOverloaded', 'overload'],
    [500, 'InternalServiceError', 'overload'],
    [503, 'SomethingNew', 'overload'],
    [400, 'InvalidEndpoint.ClosedEndpoint', 'overload'],
    [404, 'InvalidEndpointOrModel.NotFound', 'upstream'],
    [404, 'ModelNotOpen', 'upstream'],
    [418, 'Teapot', 'upstream'],
  ])('maps a create answered %i %s to %s', async (status, code, kind) => {
    fake.submitScripts.push({ status, code });
    const outcome = await ark.submit(videoTask());
    expect(outcome).toMatchObject({ status: 'failed', failure: { kind } });
    if (outcome.status !== 'failed') throw new Error('unreachable');
    expect(outcome.failure.message).toBeUndefined();
    expect(outcome.failure.detail).toContain(code);
  });

  it.each([
    'RateLimitExceeded.EndpointRPMExceeded',
    'RateLimitExceeded.EndpointTPMExceeded',
    'SomeFutureLimit',
  ])('maps 429 %s to busy with Retry-After', async (code) => {
    fake.submitScripts.push({ status: 429, code, headers: { 'retry-after': '7' } });
    expect(await ark.submit(videoTask())).toEqual({ status: 'busy', retryAfterMs: 7000 });
  });

  it('answers 401 to a wrong key, reported as auth', async () => {
    const outcome = await provider('wrong-key').submit(videoTask());
    expect(outcome).toMatchObject({ status: 'failed', failure: { kind: 'auth' } });
    expect(fake.jobs.size).toBe(0);
  });

  it('reports a dropped create as uncertain (the job exists upstream) and never repeats it', async () => {
    fake.submitScripts.push('drop');
    const outcome = await ark.submit(videoTask(), { callbackUrl: CALLBACK });
    expect(outcome).toMatchObject({ status: 'uncertain' });
    expect(fake.creates()).toHaveLength(1);
    expect(fake.jobs.size).toBe(1);
  });

  it('reports a 2xx create without a task id as uncertain', async () => {
    const bare = await new FakeServer()
      .on('POST', /^\/api\/v3\/contents\/generations\/tasks$/, () => ({ status: 200, body: '<html>' }))
      .start();
    try {
      const outcome = await provider(fake.apiKey, `${bare.origin}/api/v3`).submit(videoTask());
      expect(outcome).toMatchObject({ status: 'uncertain' });
    } finally {
      await bare.close();
    }
  });

  it('lets a connection that was never made throw NotSentError', async () => {
    const closed = provider(fake.apiKey, 'http://127.0.0.1:1/api/v3');
    await expect(closed.submit(videoTask())).rejects.toBeInstanceOf(NotSentError);
  });

  it.each([
    ['OutputVideoSensitiveContentDetected', 'rejected'],
    ['InputImageSensitiveContentDetected.PrivacyInformation', 'rejected'],
    ['InternalServiceError', 'overload'],
    ['SomethingElse', 'upstream'],
  ])('maps a failed task with %s to %s', async (code, kind) => {
    fake.jobScript = { statuses: ['running', 'failed'], error: { code } };
    const task = videoTask();
    const submitted = await ark.submit(task);
    const outcome = await pollUntilDone((submitted as { jobId: string }).jobId, task);
    expect(outcome).toMatchObject({ status: 'failed', failure: { kind } });
  });

  it.each(['cancelled', 'expired'])('maps a %s task to an upstream failure', async (status) => {
    fake.jobScript = { statuses: [status] };
    const task = videoTask();
    const submitted = await ark.submit(task);
    expect(await ark.poll((submitted as { jobId: string }).jobId, task)).toMatchObject({
      status: 'failed',
      failure: { kind: 'upstream' },
    });
  });

  it('keeps polling through unknown statuses, 429 and 5xx answers', async () => {
    fake.jobScript = { statuses: ['pending_review', 'succeeded'] };
    const task = videoTask();
    const { jobId } = (await ark.submit(task)) as { jobId: string };
    expect(await ark.poll(jobId, task)).toEqual({ status: 'running' });
    const flaky = await new FakeServer()
      .on('GET', /^\/api\/v3\/contents\/generations\/tasks\/.+$/, () => ({
        status: 429,
        json: { error: { code: 'RateLimitExceeded.EndpointRPMExceeded', message: 'slow down' } },
        headers: { 'retry-after': '3' },
      }))
      .start();
    const down = await new FakeServer()
      .on('GET', /^\/api\/v3\/contents\/generations\/tasks\/.+$/, () => ({
        status: 502,
        body: 'bad gateway',
      }))
      .start();
    try {
      expect(await provider(fake.apiKey, `${flaky.origin}/api/v3`).poll(jobId, task)).toEqual({
        status: 'running',
        retryAfterMs: 3000,
      });
      expect(await provider(fake.apiKey, `${down.origin}/api/v3`).poll(jobId, task)).toMatchObject({
        status: 'running',
      });
    } finally {
      await flaky.close();
      await down.close();
    }
    expect(await ark.poll(jobId, task)).toMatchObject({ status: 'succeeded' });
  });

  it('fails a poll of a task Ark no longer knows (404) as upstream, and a revoked key as auth', async () => {
    const task = videoTask();
    expect(await ark.poll('cgt-missing', task)).toMatchObject({
      status: 'failed',
      failure: { kind: 'upstream' },
    });
    const { jobId } = (await ark.submit(task)) as { jobId: string };
    expect(await provider('revoked').poll(jobId, task)).toMatchObject({
      status: 'failed',
      failure: { kind: 'auth' },
    });
  });

  it('gives a fresh signed URL on every poll; the expired one answers 403', async () => {
    fake.jobScript = { statuses: ['succeeded'], expiredDownloads: 1 };
    const task = videoTask();
    const { jobId } = (await ark.submit(task)) as { jobId: string };
    const first = await ark.poll(jobId, task);
    const second = await ark.poll(jobId, task);
    if (first.status !== 'succeeded' || second.status !== 'succeeded') throw new Error('expected succeeded');
    const url = (o: ProviderOutput) => (o.source.kind === 'url' ? o.source.url : '');
    expect(url(first.outputs[0])).not.toBe(url(second.outputs[0]));
    expect((await fetch(url(first.outputs[0]))).status).toBe(403);
    expect((await fetch(url(second.outputs[0]))).status).toBe(200);
  });

  it('cancels a queued task with DELETE; a running one is refused (the call throws)', async () => {
    fake.jobScript = { statuses: ['queued'] };
    const task = videoTask();
    const { jobId } = (await ark.submit(task)) as { jobId: string };
    await ark.cancel(jobId);
    expect(fake.cancels()).toHaveLength(1);
    expect(fake.cancels()[0].headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(await ark.poll(jobId, task)).toMatchObject({ status: 'failed', failure: { kind: 'upstream' } });
    // A task already gone (deleted, or older than Ark keeps) is not an error.
    await ark.cancel('cgt-gone');
    fake.jobScript = { statuses: ['running'] };
    const running = (await ark.submit(task)) as { jobId: string };
    await expect(ark.cancel(running.jobId)).rejects.toThrow(/refused to cancel/);
  });

  it('has no reconcile: Ark lists tasks without any client reference or request content', () => {
    expect((ark as TaskProvider).reconcile).toBeUndefined();
  });

  it('receiveHook names the job of an Ark callback body and our task from the query', async () => {
    fake.jobScript = { statuses: ['succeeded'] };
    const { jobId } = (await ark.submit(videoTask())) as { jobId: string };
    const body = Buffer.from(JSON.stringify(fake.view(fake.job(0))));
    expect(await ark.receiveHook({ headers: {}, rawBody: body, query: { task: 't_1', token: 'x' } })).toEqual(
      {
        status: 'accepted',
        jobId,
        taskId: 't_1',
      },
    );
    // Ark does not sign callbacks: junk is never "forged", it only names no job.
    expect(
      await ark.receiveHook({ headers: {}, rawBody: Buffer.from('not json'), query: { task: 't_1' } }),
    ).toEqual({ status: 'accepted', jobId: undefined, taskId: 't_1' });
    expect(
      await ark.receiveHook({ headers: {}, rawBody: Buffer.from('{"id":"../../x y"}'), query: {} }),
    ).toEqual({ status: 'accepted', jobId: undefined, taskId: undefined });
  });

  it('check() lists one task: ok with the key, authOk false on 401, unreachable when closed', async () => {
    expect(await ark.check()).toEqual({ reachable: true, authOk: true });
    const call = fake.server.calls(/\/contents\/generations\/tasks$/, 'GET')[0];
    expect(call.query.get('page_size')).toBe('1');
    expect(fake.jobs.size).toBe(0);
    expect(await provider('wrong').check()).toMatchObject({ reachable: true, authOk: false });
    expect(await provider(fake.apiKey, 'http://127.0.0.1:1/api/v3').check()).toMatchObject({
      reachable: false,
      authOk: false,
    });
  });
});

describe('ark adapter: Seedream images', () => {
  it('answers synchronously with the image URL, its size and usage.images', async () => {
    const outcome = await ark.submit(
      imageTask({ aspect_ratio: '16:9', seed: 7, image_url: 'https://img.example/in.png' }),
    );
    const [create] = fake.creates();
    expect(create.path).toBe('/api/v3/images/generations');
    expect(create.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(create.json).toEqual({
      model: 'seedream-4-0-250828',
      prompt: 'a red fox',
      size: '2560x1440',
      response_format: 'url',
      watermark: false,
      seed: 7,
      image: 'https://img.example/in.png',
    });
    expect(outcome).toMatchObject({
      status: 'succeeded',
      jobId: expect.stringMatching(/^ark-image:/),
      usage: { images: 1 },
      outputs: [{ width: 2560, height: 1440, source: { kind: 'url' } }],
    });
  });

  it.each(Object.entries(SEEDREAM_SIZES))('maps aspect_ratio %s to a size', async (ratio, size) => {
    await ark.submit(imageTask({ aspect_ratio: ratio }));
    expect(fake.creates()[0].json.size).toBe(`${size.width}x${size.height}`);
  });

  it('refuses an unknown aspect ratio and unexpected params without a call', async () => {
    expect(await ark.submit(imageTask({ aspect_ratio: '5:4' }))).toEqual({
      status: 'failed',
      failure: { kind: 'params', message: 'invalid aspect_ratio' },
    });
    expect(await ark.submit(imageTask({ duration: 5 }))).toEqual({
      status: 'failed',
      failure: { kind: 'params', message: 'unexpected parameter: duration' },
    });
    expect(fake.server.requests).toHaveLength(0);
  });

  it('maps an image refused by the output filter to rejected, and create errors like video', async () => {
    fake.imageItemError = 'OutputImageSensitiveContentDetected';
    expect(await ark.submit(imageTask())).toMatchObject({ status: 'failed', failure: { kind: 'rejected' } });
    fake.imageItemError = undefined;
    fake.submitScripts.push({ status: 403, code: 'AccountOverdueError' });
    expect(await ark.submit(imageTask())).toMatchObject({ status: 'failed', failure: { kind: 'billing' } });
    fake.submitScripts.push({ status: 429, code: 'RateLimitExceeded.EndpointRPMExceeded' });
    expect(await ark.submit(imageTask())).toMatchObject({ status: 'busy' });
    fake.submitScripts.push('drop');
    expect(await ark.submit(imageTask())).toMatchObject({ status: 'uncertain' });
  });

  it('an image has no job: poll fails, cancel is a no-op', async () => {
    expect(await ark.poll('ark-image:req-1', imageTask())).toMatchObject({ status: 'failed' });
    await ark.cancel('ark-image:req-1');
    expect(fake.server.requests).toHaveLength(0);
  });
});

describe('ark adapter type', () => {
  it('requires an api_key and a base_url ending in /api/v3', () => {
    const settings = { name: 'ark', type: 'ark' as const, apiKey: 'k', options: {} };
    expect(
      arkAdapterType.validate({ ...settings, baseUrl: 'https://ark.ap-southeast.bytepluses.com/api/v3' }),
    ).toEqual([]);
    expect(arkAdapterType.validate({ ...settings, baseUrl: 'https://ark.cn-beijing.volces.com' })).toEqual([
      'providers.ark.base_url must end in /api/v3 for type ark',
    ]);
    expect(
      arkAdapterType.validate({
        ...settings,
        apiKey: undefined,
        baseUrl: 'https://ark.cn-beijing.volces.com/api/v3',
      }),
    ).toHaveLength(1);
  });
});
