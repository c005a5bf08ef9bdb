import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeServer } from '../../testing/fakes/fake-server.js';
import { FAL_TEST_KEY, type FalFake, startFalFake } from '../../testing/fakes/fal.js';
import type { ProviderSettings } from '../config.js';
import { NotSentError } from '../http/upstream-http.js';
import type { ProviderTask } from '../task-provider.js';
import { FalProvider } from './adapter.js';
import { falAdapterType } from './index.js';
import { buildFalRequest } from './request.js';

let fake: FalFake;

function settings(overrides: Partial<ProviderSettings> = {}): ProviderSettings {
  return { name: 'fal', type: 'fal', baseUrl: fake.origin, apiKey: FAL_TEST_KEY, options: {}, ...overrides };
}

function task(overrides: Partial<ProviderTask> = {}): ProviderTask {
  return {
    id: 'task_1',
    modelId: 'kling-2-1',
    upstreamModel: 'kling-2-1',
    kind: 'video',
    params: { prompt: 'a cat on a boat', duration: 5, aspect_ratio: '16:9' },
    requeues: 0,
    ...overrides,
  };
}

const CALLBACK = 'http://127.0.0.1:9/hooks/fal?task=task_1&token=abc';

beforeAll(async () => {
  fake = await startFalFake();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.server.requests.length = 0;
  fake.jobs.clear();
  fake.cancels.length = 0;
  fake.defaultScript = {};
});

async function submitted(provider: FalProvider, t: ProviderTask): Promise<string> {
  const outcome = await provider.submit(t, { callbackUrl: CALLBACK });
  if (outcome.status !== 'submitted') throw new Error(`not submitted: ${JSON.stringify(outcome)}`);
  return outcome.jobId;
}

describe('fal submit', () => {
  it('posts the mapped input to the endpoint path with the key and our callback as fal_webhook', async () => {
    const provider = new FalProvider(settings());
    const jobId = await submitted(provider, task());
    const [call] = fake.submitCalls;
    expect(call.path).toBe('/fal-ai/kling-video/v2.1/standard/text-to-video');
    expect(call.headers.authorization).toBe(`Key ${FAL_TEST_KEY}`);
    expect(call.headers['content-type']).toBe('application/json');
    expect(call.json).toEqual({ prompt: 'a cat on a boat', duration: '5', aspect_ratio: '16:9' });
    // Our callback URL arrives intact, its own query included.
    expect(call.query.get('fal_webhook')).toBe(CALLBACK);
    // fal's URLs are the standard layout: the job id is the bare request_id.
    expect(jobId).toBe(fake.onlyJob().id);
  });

  it('sends no fal_webhook without a callback URL, and the route model as the endpoint path', async () => {
    const provider = new FalProvider(settings());
    await provider.submit(task({ upstreamModel: 'fal-ai/kling-video/v2.1/pro/text-to-video' }));
    expect(fake.submitCalls[0].path).toBe('/fal-ai/kling-video/v2.1/pro/text-to-video');
    expect(fake.submitCalls[0].query.has('fal_webhook')).toBe(false);
  });

  it('uses the image-to-video sibling when a start image is given', async () => {
    const provider = new FalProvider(settings());
    await submitted(
      provider,
      task({
        params: { prompt: 'p', duration: 10, aspect_ratio: '16:9', start_image_url: 'https://x/y.png' },
      }),
    );
    expect(fake.submitCalls[0].path).toBe('/fal-ai/kling-video/v2.1/standard/image-to-video');
    expect(fake.submitCalls[0].json).toEqual({ prompt: 'p', duration: '10', image_url: 'https://x/y.png' });
  });

  it('refuses what the endpoint cannot express, without a network call', async () => {
    const provider = new FalProvider(settings());
    const cases: Array<[Partial<ProviderTask>, string]> = [
      [{ params: { prompt: 'p', seed: 1 } }, 'unexpected parameter: seed'],
      [{ params: { prompt: 'p', duration: 7 } }, 'duration must be 5 or 10'],
      [
        { modelId: 'veo-3-fast', upstreamModel: 'veo-3-fast', params: { prompt: 'p', duration: 5 } },
        'duration must be 4, 6 or 8',
      ],
      [
        { modelId: 'sora-2', upstreamModel: 'sora-2', params: { prompt: 'p', seed: 3 } },
        'unexpected parameter: seed',
      ],
      [
        {
          modelId: 'seedance-2',
          upstreamModel: 'bytedance/seedance-2/text-to-video',
          params: { prompt: 'p', reference_video_urls: ['https://v'] },
        },
        'unexpected parameter: reference_video_urls',
      ],
      [
        {
          modelId: 'seedance-1-pro',
          upstreamModel: 'seedance-1-pro',
          params: { prompt: 'p', end_image_url: 'https://e' },
        },
        'end_image_url requires start_image_url',
      ],
      [
        {
          modelId: 'flux-1-1-pro',
          upstreamModel: 'flux-1-1-pro',
          kind: 'image',
          params: { prompt: 'p', aspect_ratio: '5:4' },
        },
        'invalid aspect_ratio: must be one of 1:1, 16:9, 9:16, 4:3, 3:4, 3:2, 2:3, 21:9',
      ],
    ];
    for (const [overrides, message] of cases)
      expect(await provider.submit(task(overrides)), message).toEqual({
        status: 'failed',
        failure: { kind: 'params', message },
      });
    expect(fake.submitCalls).toHaveLength(0);
  });

  it('fails as upstream (next route) when no fal endpoint is known for the model', async () => {
    const provider = new FalProvider(settings());
    const outcome = await provider.submit(
      task({ modelId: 'seedance-2', upstreamModel: 'seedance-2', params: { prompt: 'p' } }),
    );
    expect(outcome).toMatchObject({ status: 'failed', failure: { kind: 'upstream' } });
    expect(fake.submitCalls).toHaveLength(0);
  });

  it('maps every error answer from its body first', async () => {
    const provider = new FalProvider(settings());
    const detail = (type: string, msg = 'bad') => ({ detail: [{ loc: ['body', 'prompt'], msg, type }] });
    const cases: Array<[{ status: number; json: unknown; headers?: Record<string, string> }, unknown]> = [
      [
        { status: 401, json: { detail: 'Unauthorized' } },
        { status: 'failed', failure: { kind: 'auth' } },
      ],
      [
        {
          status: 403,
          json: {
            detail:
              'User is locked. Reason: Exhausted balance. Top up your balance at fal.ai/dashboard/billing.',
          },
        },
        { status: 'failed', failure: { kind: 'billing' } },
      ],
      [
        {
          status: 403,
          json: { detail: 'User is locked. Reason: Admin lock. Please contact support@fal.ai' },
        },
        { status: 'failed', failure: { kind: 'billing' } },
      ],
      [
        { status: 403, json: { detail: 'Forbidden' } },
        { status: 'failed', failure: { kind: 'auth' } },
      ],
      [
        { status: 422, json: detail('content_policy_violation', 'The content could not be processed') },
        { status: 'failed', failure: { kind: 'rejected' } },
      ],
      [
        {
          status: 422,
          json: {
            detail: [
              { loc: ['body', 'aspect_ratio'], msg: "Input should be '16:9' or '9:16'", type: 'enum' },
            ],
          },
        },
        {
          status: 'failed',
          failure: {
            kind: 'params',
            message: "Parameter validation failed: aspect_ratio: Input should be '16:9' or '9:16'",
          },
        },
      ],
      [
        { status: 429, json: { detail: 'Too many requests' }, headers: { 'retry-after': '3' } },
        { status: 'busy', retryAfterMs: 3000 },
      ],
      [
        { status: 500, json: detail('internal_server_error') },
        { status: 'failed', failure: { kind: 'upstream' } },
      ],
      [
        { status: 502, json: { detail: 'Bad gateway' } },
        { status: 'failed', failure: { kind: 'overload' } },
      ],
      [
        { status: 503, json: detail('downstream_service_unavailable') },
        { status: 'failed', failure: { kind: 'overload' } },
      ],
      [
        { status: 504, json: detail('generation_timeout') },
        { status: 'failed', failure: { kind: 'overload' } },
      ],
      [
        { status: 400, json: { detail: 'try again' }, headers: { 'x-fal-retryable': 'true' } },
        { status: 'failed', failure: { kind: 'overload' } },
      ],
      [
        { status: 404, json: { detail: 'Application not found' } },
        { status: 'failed', failure: { kind: 'upstream' } },
      ],
    ];
    for (const [reject, expected] of cases) {
      fake.next({ reject });
      expect(await provider.submit(task()), JSON.stringify(reject)).toMatchObject(expected as object);
    }
    expect(fake.jobs.size).toBe(0);
  });

  it('answers 401 for a wrong key (the fake checks it) → auth', async () => {
    const provider = new FalProvider(settings({ apiKey: 'wrong' }));
    expect(await provider.submit(task())).toMatchObject({ status: 'failed', failure: { kind: 'auth' } });
  });

  it('is uncertain when the connection drops after fal queued the request', async () => {
    const provider = new FalProvider(settings());
    fake.next({ drop: true });
    expect(await provider.submit(task())).toMatchObject({ status: 'uncertain' });
    expect(fake.jobs.size).toBe(1);
  });

  it('lets NotSentError propagate when nothing reached fal', async () => {
    const provider = new FalProvider(settings({ baseUrl: 'http://127.0.0.1:1' }));
    await expect(provider.submit(task())).rejects.toBeInstanceOf(NotSentError);
  });
});

describe('fal poll', () => {
  it('IN_QUEUE and IN_PROGRESS run, COMPLETED reads the result: a public video URL', async () => {
    const provider = new FalProvider(settings());
    const t = task();
    const jobId = await submitted(provider, t);
    expect(await provider.poll(jobId, t)).toEqual({ status: 'running' });
    expect(await provider.poll(jobId, t)).toEqual({ status: 'running' });
    const done = await provider.poll(jobId, t);
    expect(done).toEqual({
      status: 'succeeded',
      outputs: [
        { source: { kind: 'url', url: `${fake.origin}/files/${jobId}.mp4` }, contentType: 'video/mp4' },
      ],
    });
    const statusCalls = fake.server.calls(/\/requests\/[^/]+\/status$/, 'GET');
    // The status URL lives under the app (owner/app), not the endpoint's subpath.
    expect(statusCalls[0].path).toBe(`/fal-ai/kling-video/requests/${jobId}/status`);
    expect(statusCalls.every((c) => c.headers.authorization === `Key ${FAL_TEST_KEY}`)).toBe(true);
  });

  it("reads fal's documented 202 status answers (queued, in progress) as running, 200 COMPLETED as done", async () => {
    const provider = new FalProvider(settings());
    const t = task();
    fake.next({ statuses: ['IN_QUEUE', 'IN_QUEUE', 'IN_PROGRESS', 'COMPLETED'] });
    const jobId = await submitted(provider, t);
    const statusUrl = `${fake.origin}/fal-ai/kling-video/requests/${jobId}/status`;
    const queued = await fetch(statusUrl, { headers: { authorization: `Key ${FAL_TEST_KEY}` } });
    expect([queued.status, ((await queued.json()) as { status: string }).status]).toEqual([202, 'IN_QUEUE']);
    expect(await provider.poll(jobId, t)).toEqual({ status: 'running' });
    expect(await provider.poll(jobId, t)).toEqual({ status: 'running' });
    expect(await provider.poll(jobId, t)).toMatchObject({ status: 'succeeded' });
    const done = await fetch(statusUrl, { headers: { authorization: `Key ${FAL_TEST_KEY}` } });
    expect([done.status, ((await done.json()) as { status: string }).status]).toEqual([200, 'COMPLETED']);
  });

  it('a result URL that answers 202 (not stored yet) is read again later, never a failure', async () => {
    const server = await new FakeServer()
      .on('GET', /\/fal-ai\/flux\/requests\/[^/]+\/status/, () => ({
        status: 200,
        json: { status: 'COMPLETED' },
      }))
      .on('GET', /\/fal-ai\/flux\/requests\/[^/]+/, () => ({ status: 202, json: { status: 'IN_PROGRESS' } }))
      .start();
    try {
      const provider = new FalProvider(settings({ baseUrl: server.origin }));
      const t = task({
        modelId: 'flux-1-1-pro',
        upstreamModel: 'fal-ai/flux/dev',
        kind: 'image',
        params: { prompt: 'x' },
      });
      const jobId = '3f1c0000-0000-4000-8000-00000000abcd';
      expect(await provider.poll(jobId, t)).toMatchObject({ status: 'running' });
    } finally {
      await server.close();
    }
  });

  it('image endpoints: images with their size, and the image count as usage', async () => {
    const provider = new FalProvider(settings());
    const t = task({
      modelId: 'flux-1-1-pro',
      upstreamModel: 'flux-1-1-pro',
      kind: 'image',
      params: { prompt: 'p', aspect_ratio: '16:9', seed: 7 },
    });
    fake.next({ statuses: ['COMPLETED'] });
    const jobId = await submitted(provider, t);
    expect(fake.submitCalls[0].path).toBe('/fal-ai/flux-pro/v1.1');
    expect(fake.submitCalls[0].json).toEqual({
      prompt: 'p',
      seed: 7,
      image_size: 'landscape_16_9',
      num_images: 1,
    });
    expect(await provider.poll(jobId, t)).toEqual({
      status: 'succeeded',
      outputs: [
        {
          source: { kind: 'url', url: `${fake.origin}/files/${jobId}.png` },
          contentType: 'image/png',
          width: 1,
          height: 1,
        },
      ],
      usage: { images: 1 },
    });
  });

  it('keeps fal URLs that are not the usual layout in the job id, and polls them', async () => {
    const provider = new FalProvider(settings());
    const t = task();
    fake.next({ statuses: ['COMPLETED'], altUrls: true });
    const jobId = await submitted(provider, t);
    const id = fake.onlyJob().id;
    expect(JSON.parse(jobId)).toEqual({
      id,
      s: `${fake.origin}/alt/fal-ai/kling-video/requests/${id}/status`,
      r: `${fake.origin}/alt/fal-ai/kling-video/requests/${id}`,
      c: `${fake.origin}/alt/fal-ai/kling-video/requests/${id}/cancel`,
    });
    expect(jobId.length).toBeLessThan(1024);
    expect(await provider.poll(jobId, t)).toMatchObject({ status: 'succeeded' });
    expect(fake.server.calls(/^\/alt\//, 'GET')).toHaveLength(2);
  });

  it('a COMPLETED request whose result is the model error fails with the mapped kind', async () => {
    const provider = new FalProvider(settings());
    const t = task();
    const cases: Array<[{ status: number; detail: unknown; retryable?: boolean }, unknown]> = [
      [
        {
          status: 422,
          detail: [{ loc: ['body', 'prompt'], msg: 'flagged', type: 'content_policy_violation' }],
        },
        { kind: 'rejected' },
      ],
      [
        {
          status: 422,
          detail: [{ loc: ['body', 'image_url'], msg: 'Image too small', type: 'image_too_small' }],
        },
        { kind: 'params', message: 'Parameter validation failed: image_url: Image too small' },
      ],
      [
        { status: 500, detail: [{ loc: [], msg: 'boom', type: 'internal_server_error' }] },
        { kind: 'upstream' },
      ],
      [
        { status: 504, detail: [{ loc: [], msg: 'took too long', type: 'generation_timeout' }] },
        { kind: 'overload' },
      ],
    ];
    for (const [result, failure] of cases) {
      fake.next({ statuses: ['COMPLETED'], result });
      const jobId = await submitted(provider, t);
      expect(await provider.poll(jobId, t)).toMatchObject({ status: 'failed', failure: failure as object });
    }
  });

  it('never ends a job on a gateway error, an unknown status or a 429', async () => {
    const provider = new FalProvider(settings());
    const t = task();
    fake.next({ statuses: ['SOMETHING_NEW'] });
    const jobId = await submitted(provider, t);
    expect(await provider.poll(jobId, t)).toEqual({ status: 'running' });
    fake.next({ statuses: ['COMPLETED'], result: { status: 502, detail: undefined } });
    const gateway = await submitted(provider, t);
    expect(await provider.poll(gateway, t)).toMatchObject({ status: 'running' });
  });

  it('a request fal does not know fails as upstream; a refused key as auth', async () => {
    const t = task();
    expect(await new FalProvider(settings()).poll('3f1c0000-0000-4000-8000-00000000abcd', t)).toMatchObject({
      status: 'failed',
      failure: { kind: 'upstream' },
    });
    const jobId = await submitted(new FalProvider(settings()), t);
    expect(await new FalProvider(settings({ apiKey: 'bad' })).poll(jobId, t)).toMatchObject({
      status: 'failed',
      failure: { kind: 'auth' },
    });
  });
});

describe('fal cancel, webhook and check', () => {
  it('cancel PUTs the cancel URL; an already completed request is not an error', async () => {
    const provider = new FalProvider(settings());
    const t = task();
    const jobId = await submitted(provider, t);
    await provider.cancel(jobId, t);
    expect(fake.cancels).toEqual([jobId]);
    expect(fake.server.calls(/\/cancel$/, 'PUT')[0].headers.authorization).toBe(`Key ${FAL_TEST_KEY}`);
    fake.next({ statuses: ['COMPLETED'] });
    const done = await submitted(provider, t);
    await expect(provider.cancel(done, t)).resolves.toBeUndefined();
    await expect(new FalProvider(settings({ apiKey: 'bad' })).cancel(done, t)).rejects.toThrow(/401/);
  });

  it('a webhook names the request as job id and our task from the query (a hint, never trusted)', async () => {
    const provider = new FalProvider(settings());
    const body = {
      request_id: '024ca5b1-45d3-4afd-883e-ad3abe2a1c4d',
      gateway_request_id: '024ca5b1-45d3-4afd-883e-ad3abe2a1c4d',
      status: 'OK',
      payload: { video: { url: 'https://evil.example/x.mp4' } },
      error: null,
    };
    expect(
      await provider.receiveHook({
        headers: {},
        rawBody: Buffer.from(JSON.stringify(body)),
        query: { task: 'task_1', token: 't' },
      }),
    ).toEqual({ status: 'accepted', jobId: body.request_id, taskId: 'task_1' });
    // A body that is not fal's: only our task id is kept, and the runner polls that task.
    expect(
      await provider.receiveHook({
        headers: {},
        rawBody: Buffer.from('not json'),
        query: { task: 'task_1' },
      }),
    ).toEqual({
      status: 'accepted',
      taskId: 'task_1',
    });
    expect(
      await provider.receiveHook({
        headers: {},
        rawBody: Buffer.from('{"request_id":"../../x"}'),
        query: {},
      }),
    ).toEqual({ status: 'accepted' });
  });

  it('check GETs the status of a request id fal never issued: 404 is a good key, 401 a bad one', async () => {
    expect(await new FalProvider(settings()).check()).toEqual({ reachable: true, authOk: true });
    const call = fake.server.requests.at(-1)!;
    expect([call.method, call.path]).toEqual([
      'GET',
      '/fal-ai/flux/requests/00000000-0000-4000-8000-000000000000/status',
    ]);
    expect(await new FalProvider(settings({ apiKey: 'bad' })).check()).toMatchObject({
      reachable: true,
      authOk: false,
    });
    expect(await new FalProvider(settings({ baseUrl: 'http://127.0.0.1:1' })).check()).toMatchObject({
      reachable: false,
      authOk: false,
    });
  });

  it('the adapter type requires an api_key', () => {
    expect(falAdapterType.validate(settings({ apiKey: undefined }))).toEqual([
      'providers.fal.api_key is required for type fal',
    ]);
    expect(falAdapterType.validate(settings())).toEqual([]);
  });
});

describe('fal request mapping', () => {
  const build = (modelId: string, params: Record<string, unknown>, upstreamModel = modelId) =>
    buildFalRequest({ modelId, upstreamModel, params });

  it('maps each family to its endpoint and input', () => {
    expect(
      build('veo-3-fast', { prompt: 'p', duration: 8, aspect_ratio: '9:16', generate_audio: true, seed: 1 }),
    ).toEqual({
      path: 'fal-ai/veo3/fast',
      input: { prompt: 'p', duration: '8s', aspect_ratio: '9:16', generate_audio: true, seed: 1 },
    });
    expect(build('veo-3-fast:audio', { prompt: 'p', start_image_url: 'https://i' })).toEqual({
      path: 'fal-ai/veo3/fast/image-to-video',
      input: { prompt: 'p', image_url: 'https://i' },
    });
    expect(build('sora-2', { prompt: 'p', duration: 12, aspect_ratio: '16:9' })).toEqual({
      path: 'fal-ai/sora-2/text-to-video',
      input: { prompt: 'p', duration: 12, aspect_ratio: '16:9' },
    });
    expect(
      build('seedance-1-pro', {
        prompt: 'p',
        duration: 6,
        resolution: '1080p',
        start_image_url: 'https://a',
        end_image_url: 'https://b',
        aspect_ratio: '16:9',
      }),
    ).toEqual({
      path: 'fal-ai/bytedance/seedance/v1/pro/image-to-video',
      input: {
        prompt: 'p',
        duration: '6',
        resolution: '1080p',
        image_url: 'https://a',
        end_image_url: 'https://b',
      },
    });
    expect(
      build('seedance-2:1080p', { prompt: 'p', duration: 5 }, 'bytedance/seedance-2.0/text-to-video'),
    ).toEqual({
      path: 'bytedance/seedance-2.0/text-to-video',
      input: { prompt: 'p', duration: '5', resolution: '1080p' },
    });
    expect(build('seedream-4', { prompt: 'p', aspect_ratio: '3:2', image_url: 'https://i' })).toEqual({
      path: 'fal-ai/bytedance/seedream/v4/edit',
      input: {
        prompt: 'p',
        image_size: { width: 1536, height: 1024 },
        image_urls: ['https://i'],
        num_images: 1,
      },
    });
    expect(build('nano-banana', { prompt: 'p', aspect_ratio: '4:3' })).toEqual({
      path: 'fal-ai/nano-banana',
      input: { prompt: 'p', aspect_ratio: '4:3', num_images: 1 },
    });
    expect(build('nano-banana', { prompt: 'p', image_url: 'https://i' })).toEqual({
      path: 'fal-ai/nano-banana/edit',
      input: { prompt: 'p', image_urls: ['https://i'], num_images: 1 },
    });
    expect(build('flux-1-1-pro', { prompt: 'p', image_url: 'https://i' })).toEqual({
      path: 'fal-ai/flux-pro/v1.1/redux',
      input: { prompt: 'p', image_url: 'https://i', num_images: 1 },
    });
    // A model without a family passes our params through, on the endpoint the route names.
    expect(
      build('gpt-image-1', { prompt: 'p', quality: 'high' }, 'fal-ai/gpt-image-1/text-to-image'),
    ).toEqual({
      path: 'fal-ai/gpt-image-1/text-to-image',
      input: { prompt: 'p', quality: 'high' },
    });
  });
});
