import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_MP4, FAKE_PNG, FakeServer } from '../../testing/fakes/fake-server.js';
import { FAKE_JPEG, FakeGemini, GEMINI_ERRORS } from '../../testing/fakes/gemini.js';
import { NotSentError } from '../http/upstream-http.js';
import type { PollOutcome, ProviderTask, SubmitOutcome, TaskProvider } from '../task-provider.js';
import { GeminiProvider } from './adapter.js';
import { geminiAdapterType } from './index.js';
import { InputImageFetcher } from './inputs.js';
import { apiRoot } from './request.js';

let fake: FakeGemini;
let inputs: InputImageFetcher;

function provider(overrides: { apiKey?: string; baseUrl?: string; personGeneration?: string } = {}) {
  return new GeminiProvider({
    baseUrl: overrides.baseUrl ?? fake.baseUrl,
    apiKey: overrides.apiKey ?? fake.apiKey,
    personGeneration: overrides.personGeneration,
    inputs,
  });
}

let taskNo = 0;
function video(
  params: Record<string, unknown> = {},
  upstreamModel = 'veo-3.0-fast-generate-001',
): ProviderTask {
  return {
    id: `task-${++taskNo}`,
    modelId: 'veo-3-fast',
    upstreamModel,
    kind: 'video',
    params: {
      prompt: 'a red fox in snow',
      duration: 8,
      aspect_ratio: '16:9',
      generate_audio: false,
      ...params,
    },
    requeues: 0,
  };
}

function image(params: Record<string, unknown> = {}): ProviderTask {
  return {
    id: `task-${++taskNo}`,
    modelId: 'nano-banana',
    upstreamModel: 'gemini-2.5-flash-image',
    kind: 'image',
    params: { prompt: 'a banana on a desk', aspect_ratio: '1:1', ...params },
    requeues: 0,
  };
}

async function readAll(outcome: PollOutcome | SubmitOutcome): Promise<Buffer> {
  if (outcome.status !== 'succeeded') throw new Error(`not succeeded: ${JSON.stringify(outcome)}`);
  const source = outcome.outputs[0].source;
  if (source.kind === 'bytes') return source.data;
  if (source.kind !== 'stream') throw new Error('unexpected url output');
  const chunks: Buffer[] = [];
  for await (const chunk of await source.open()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function pollUntilDone(
  adapter: GeminiProvider,
  jobId: string,
  task: ProviderTask,
): Promise<PollOutcome> {
  for (let i = 0; i < 10; i++) {
    const outcome = await adapter.poll(jobId, task);
    if (outcome.status !== 'running') return outcome;
  }
  throw new Error('still running');
}

beforeAll(async () => {
  fake = await new FakeGemini().start();
  inputs = new InputImageFetcher(true);
});
afterAll(async () => {
  await fake.close();
  await inputs.close();
});
beforeEach(() => {
  fake.submitErrors = [];
  fake.pollErrors = [];
  fake.videoScripts = [];
  fake.imageScripts = [];
  fake.server.requests.length = 0;
});

describe('gemini adapter: Veo', () => {
  it('submits predictLongRunning with the key and the documented body, polls the operation, streams the video', async () => {
    const adapter = provider();
    const task = video({ negative_prompt: 'blur', duration: 6, aspect_ratio: '9:16' });
    const submitted = await adapter.submit(task);
    expect(submitted).toEqual({
      status: 'submitted',
      jobId: 'models/veo-3.0-fast-generate-001/operations/op1',
    });
    const [create] = fake.createCalls();
    expect(create.path).toBe('/v1beta/models/veo-3.0-fast-generate-001:predictLongRunning');
    expect(create.headers['x-goog-api-key']).toBe(fake.apiKey);
    expect(create.headers['content-type']).toBe('application/json');
    expect(create.json).toEqual({
      instances: [{ prompt: 'a red fox in snow' }],
      parameters: { aspectRatio: '9:16', durationSeconds: 6, negativePrompt: 'blur' },
    });
    if (submitted.status !== 'submitted') throw new Error('not submitted');
    expect(await adapter.poll(submitted.jobId, task)).toEqual({ status: 'running' });
    const done = await adapter.poll(submitted.jobId, task);
    expect(done).toMatchObject({
      status: 'succeeded',
      outputs: [{ contentType: 'video/mp4', durationSec: 6 }],
      usage: { seconds: 6 },
    });
    expect(await readAll(done)).toEqual(FAKE_MP4);
    // The poll went to /v1beta/{name} with the key; the download followed the redirect.
    expect(fake.server.calls(/\/operations\//)[0].headers['x-goog-api-key']).toBe(fake.apiKey);
    expect(fake.server.calls(/^\/blobs\//)).toHaveLength(1);
  });

  it('reads a 2xx other than 200 (a compatible gateway) at create, poll, image and check as the answer', async () => {
    fake.server.successStatus.push(
      { method: 'POST', pattern: /:predictLongRunning$/, status: 201 },
      { method: 'POST', pattern: /:generateContent$/, status: 201 },
      { method: 'GET', pattern: /\/operations\//, status: 202 },
      { method: 'GET', pattern: /^\/v1beta\/models$/, status: 203 },
    );
    try {
      const adapter = provider();
      const task = video();
      const submitted = await adapter.submit(task);
      if (submitted.status !== 'submitted') throw new Error(JSON.stringify(submitted));
      expect(await adapter.poll(submitted.jobId, task)).toEqual({ status: 'running' });
      expect(await adapter.poll(submitted.jobId, task)).toMatchObject({ status: 'succeeded' });
      expect(await adapter.submit(image())).toMatchObject({ status: 'succeeded' });
      expect(await adapter.check!()).toEqual({ reachable: true, authOk: true });
    } finally {
      fake.server.successStatus.length = 0;
    }
  });

  it('accepts a base_url that already ends in /v1beta', async () => {
    expect(apiRoot('https://generativelanguage.googleapis.com')).toBe(
      'https://generativelanguage.googleapis.com/v1beta',
    );
    expect(apiRoot('https://generativelanguage.googleapis.com/v1beta/')).toBe(
      'https://generativelanguage.googleapis.com/v1beta',
    );
    const outcome = await provider({ baseUrl: `${fake.baseUrl}/v1beta` }).submit(video());
    expect(outcome.status).toBe('submitted');
    expect(fake.createCalls()[0].path).toBe('/v1beta/models/veo-3.0-fast-generate-001:predictLongRunning');
  });

  it('never sends generate_audio (the Gemini API refuses it) and passes the operator personGeneration', async () => {
    await provider({ personGeneration: 'allow_adult' }).submit(video({ generate_audio: true }));
    expect(fake.createCalls()[0].json.parameters).toEqual({
      aspectRatio: '16:9',
      durationSeconds: 8,
      personGeneration: 'allow_adult',
    });
  });

  it('downloads start_image_url and sends it inline as bytesBase64Encoded', async () => {
    const outcome = await provider().submit(video({ start_image_url: `${fake.origin}/inputs/frame.png` }));
    expect(outcome.status).toBe('submitted');
    expect(fake.createCalls()[0].json.instances[0].image).toEqual({
      bytesBase64Encoded: FAKE_PNG.toString('base64'),
      mimeType: 'image/png',
    });
  });

  it.each([
    [{ duration: 5 }, 'duration must be 6 or 8'],
    [{ duration: 7 }, 'duration must be 6 or 8'],
    [{ seed: 42 }, 'unexpected parameter: seed'],
    [{ aspect_ratio: '1:1' }, 'invalid aspect_ratio: must be 16:9 or 9:16'],
    [{ end_image_url: 'https://example.com/a.png' }, 'unexpected parameter: end_image_url'],
    [{ start_image_url: 'ftp://example.com/a.png' }, 'start_image_url must be an http(s) URL'],
    [
      { start_image_url: 'PLACEHOLDER/inputs/not-an-image' },
      'start_image_url must be a PNG, JPEG or WebP image',
    ],
    [
      { start_image_url: 'PLACEHOLDER/inputs/missing.png' },
      'start_image_url could not be downloaded (HTTP 404)',
    ],
  ])('refuses %j without calling Veo: %s', async (params, message) => {
    const fixed = Object.fromEntries(
      Object.entries(params).map(([k, v]) => [
        k,
        typeof v === 'string' ? v.replace('PLACEHOLDER', fake.origin) : v,
      ]),
    );
    const outcome = await provider().submit(video(fixed));
    expect(outcome).toEqual({ status: 'failed', failure: { kind: 'params', message } });
    expect(fake.createCalls()).toHaveLength(0);
  });

  it('takes 5 to 8 seconds on Veo 2', async () => {
    const outcome = await provider().submit(video({ duration: 5 }, 'veo-2.0-generate-001'));
    expect(outcome.status).toBe('submitted');
    expect(fake.createCalls()[0].json.parameters.durationSeconds).toBe(5);
  });

  it('refuses private input addresses unless the operator allows them', async () => {
    const strict = new InputImageFetcher(false);
    try {
      const adapter = new GeminiProvider({ baseUrl: fake.baseUrl, apiKey: fake.apiKey, inputs: strict });
      const outcome = await adapter.submit(video({ start_image_url: `${fake.origin}/inputs/frame.png` }));
      expect(outcome).toEqual({
        status: 'failed',
        failure: { kind: 'params', message: 'start_image_url could not be downloaded' },
      });
      expect(fake.createCalls()).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });

  it.each([
    ['busy', GEMINI_ERRORS.busy, { status: 'busy', retryAfterMs: 1000 }],
    [
      'invalid argument',
      GEMINI_ERRORS.invalid,
      {
        status: 'failed',
        failure: { kind: 'params', message: 'Parameter validation failed: Invalid value for aspectRatio.' },
      },
    ],
    [
      'billing (FAILED_PRECONDITION)',
      GEMINI_ERRORS.billing,
      { status: 'failed', failure: { kind: 'billing' } },
    ],
    ['billing (403)', GEMINI_ERRORS.billing403, { status: 'failed', failure: { kind: 'billing' } }],
    ['permission denied', GEMINI_ERRORS.denied, { status: 'failed', failure: { kind: 'auth' } }],
    ['invalid key (a 400)', GEMINI_ERRORS.badKey, { status: 'failed', failure: { kind: 'auth' } }],
    ['unavailable', GEMINI_ERRORS.unavailable, { status: 'failed', failure: { kind: 'overload' } }],
    ['internal', GEMINI_ERRORS.internal, { status: 'failed', failure: { kind: 'overload' } }],
    ['model not found', GEMINI_ERRORS.notFound, { status: 'failed', failure: { kind: 'upstream' } }],
  ])('maps a %s answer at submit', async (_name, error, expected) => {
    fake.submitErrors = [error];
    const outcome = await provider().submit(video());
    expect(outcome).toMatchObject(expected);
    if (outcome.status === 'failed') expect(outcome.failure.detail).toContain(`HTTP ${error.code}`);
    if (outcome.status === 'failed' && outcome.failure.kind === 'params')
      expect(outcome.failure.message).not.toContain(fake.apiKey);
  });

  it('a wrong key reads as auth (the fake checks the header)', async () => {
    const outcome = await provider({ apiKey: 'wrong' }).submit(video());
    expect(outcome).toMatchObject({ status: 'failed', failure: { kind: 'auth' } });
  });

  it('a dropped create call is uncertain, and exactly one operation exists', async () => {
    fake.videoScripts = [{ dropCreate: true }];
    const outcome = await provider().submit(video());
    expect(outcome.status).toBe('uncertain');
    expect(fake.createCalls()).toHaveLength(1);
  });

  it('a connection never made propagates NotSentError', async () => {
    const closed = new FakeGemini();
    await closed.start();
    const origin = closed.origin;
    await closed.close();
    await expect(provider({ baseUrl: origin }).submit(video())).rejects.toBeInstanceOf(NotSentError);
  });

  it('a 2xx without an operation name is uncertain', async () => {
    fake.server.on('POST', /^\/weird\/v1beta\/models\/[^/]+:predictLongRunning$/, () => ({
      status: 200,
      json: {},
    }));
    const outcome = await provider({ baseUrl: `${fake.origin}/weird` }).submit(video());
    expect(outcome.status).toBe('uncertain');
  });

  it.each([
    ['the safety filter', 'filtered' as const, 'rejected'],
    ['no samples', 'empty' as const, 'rejected'],
    [
      'a safety error',
      { error: { code: 3, message: 'The prompt violates our usage guidelines (safety).' } },
      'rejected',
    ],
    ['an invalid argument', { error: { code: 3, message: 'Image is too small.' } }, 'params'],
    ['an internal error', { error: { code: 13, message: 'Internal error.' } }, 'overload'],
    ['an unknown error', { error: { code: 2, message: 'Unknown.' } }, 'upstream'],
    ['cancelled', { error: { code: 1, message: 'Cancelled.' } }, 'upstream'],
  ])('maps a finished operation with %s', async (_name, result, kind) => {
    fake.videoScripts = [{ runningPolls: 0, result }];
    const adapter = provider();
    const task = video();
    const submitted = await adapter.submit(task);
    if (submitted.status !== 'submitted') throw new Error('not submitted');
    const outcome = await adapter.poll(submitted.jobId, task);
    expect(outcome).toMatchObject({ status: 'failed', failure: { kind } });
  });

  it('a resource shortage inside a finished operation is busy (the job is over: resubmitting is safe)', async () => {
    fake.videoScripts = [{ runningPolls: 0, result: { error: { code: 8, message: 'Resource exhausted.' } } }];
    const adapter = provider();
    const task = video();
    const submitted = await adapter.submit(task);
    if (submitted.status !== 'submitted') throw new Error('not submitted');
    expect(await adapter.poll(submitted.jobId, task)).toEqual({ status: 'busy' });
  });

  it('a 429 or 5xx on a poll is running, never terminal; a vanished operation is upstream', async () => {
    const adapter = provider();
    const task = video();
    const submitted = await adapter.submit(task);
    if (submitted.status !== 'submitted') throw new Error('not submitted');
    fake.pollErrors = [GEMINI_ERRORS.busy, GEMINI_ERRORS.unavailable];
    expect(await adapter.poll(submitted.jobId, task)).toMatchObject({ status: 'running' });
    expect(await adapter.poll(submitted.jobId, task)).toMatchObject({
      status: 'running',
      retryAfterMs: 15_000,
    });
    expect(await pollUntilDone(adapter, submitted.jobId, task)).toMatchObject({ status: 'succeeded' });
    expect(await adapter.poll('models/veo-3.0-fast-generate-001/operations/nope', task)).toMatchObject({
      status: 'failed',
      failure: { kind: 'upstream' },
    });
    expect(await adapter.poll('not-an-operation', task)).toMatchObject({ status: 'failed' });
    expect(await adapter.poll('models/../operations/x', task)).toMatchObject({ status: 'failed' });
    expect(fake.server.calls(/\.\./)).toHaveLength(0);
  });

  it('an expired video URI (403) throws an expired DownloadError; the next poll hands out a fresh one', async () => {
    fake.videoScripts = [{ runningPolls: 0, expiredDownloads: 1 }];
    const adapter = provider();
    const task = video();
    const submitted = await adapter.submit(task);
    if (submitted.status !== 'submitted') throw new Error('not submitted');
    const first = await adapter.poll(submitted.jobId, task);
    await expect(readAll(first)).rejects.toMatchObject({ name: 'DownloadError', expired: true });
    const second = await adapter.poll(submitted.jobId, task);
    expect(await readAll(second)).toEqual(FAKE_MP4);
  });

  it('sends the key only to the API origin', async () => {
    // Another server plays the API; the video URI it hands out points at the fake (another origin).
    const api = await new FakeServer().start();
    try {
      const uri = `${fake.origin}/v1beta/files/op1:download?alt=media`;
      api.on('GET', /^\/v1beta\/models\/m\/operations\/x$/, () => ({
        status: 200,
        json: { done: true, response: { generateVideoResponse: { generatedSamples: [{ video: { uri } }] } } },
      }));
      const adapter = provider({ baseUrl: api.origin });
      const done = await adapter.poll('models/m/operations/x', video());
      await expect(readAll(done)).rejects.toMatchObject({ name: 'DownloadError' });
      const download = fake.server.calls(/\/files\//).at(-1);
      expect(download?.headers['x-goog-api-key']).toBeUndefined();
    } finally {
      await api.close();
    }
  });

  it('has no cancel, reconcile or receiveHook (the Gemini API offers none for these operations)', () => {
    const adapter: TaskProvider = provider();
    expect(adapter.cancel).toBeUndefined();
    expect(adapter.reconcile).toBeUndefined();
    expect(adapter.receiveHook).toBeUndefined();
  });
});

describe('gemini adapter: image (nano-banana)', () => {
  it('answers synchronously with the inline image, its size and the output tokens', async () => {
    const task = image({ aspect_ratio: '16:9', seed: 7 });
    const outcome = await provider().submit(task);
    expect(outcome).toMatchObject({
      status: 'succeeded',
      jobId: 'sync:resp-1',
      outputs: [{ contentType: 'image/png', width: 1, height: 1 }],
      usage: { images: 1, tokens: 1290 },
    });
    expect(await readAll(outcome)).toEqual(FAKE_PNG);
    const [call] = fake.createCalls();
    expect(call.path).toBe('/v1beta/models/gemini-2.5-flash-image:generateContent');
    expect(call.headers['x-goog-api-key']).toBe(fake.apiKey);
    expect(call.json).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'a banana on a desk' }] }],
      generationConfig: { responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '16:9' }, seed: 7 },
    });
  });

  it('takes the last image when text and several images come back', async () => {
    fake.imageScripts = ['text-and-two-images'];
    const outcome = await provider().submit(image());
    expect(await readAll(outcome)).toEqual(FAKE_PNG);
  });

  it('sends image_url inline before the prompt', async () => {
    await provider().submit(image({ image_url: `${fake.origin}/inputs/frame.jpg` }));
    expect(fake.createCalls()[0].json.contents[0].parts).toEqual([
      { inlineData: { mimeType: 'image/jpeg', data: FAKE_JPEG.toString('base64') } },
      { text: 'a banana on a desk' },
    ]);
  });

  it.each([
    ['image-safety', 'rejected'],
    ['prohibited', 'rejected'],
    ['blocked-prompt', 'rejected'],
    ['text-only', 'upstream'],
  ] as const)('a 200 without an image (%s) is a failure (%s), not a success', async (script, kind) => {
    fake.imageScripts = [script];
    const outcome = await provider().submit(image());
    expect(outcome).toMatchObject({ status: 'failed', failure: { kind } });
  });

  it('a 200 that is not JSON is uncertain; a dropped call too', async () => {
    fake.imageScripts = ['not-json'];
    expect((await provider().submit(image())).status).toBe('uncertain');
    fake.submitErrors = ['drop'];
    expect((await provider().submit(image())).status).toBe('uncertain');
  });

  it('maps errors like Veo (busy, billing, auth)', async () => {
    fake.submitErrors = [GEMINI_ERRORS.busy, GEMINI_ERRORS.billing, GEMINI_ERRORS.badKey];
    expect(await provider().submit(image())).toMatchObject({ status: 'busy' });
    expect(await provider().submit(image())).toMatchObject({
      status: 'failed',
      failure: { kind: 'billing' },
    });
    expect(await provider().submit(image())).toMatchObject({ status: 'failed', failure: { kind: 'auth' } });
  });

  it.each([
    [{ seed: 3_000_000_000 }, 'seed must be an integer from 0 to 2147483647'],
    [{ aspect_ratio: '7:3' }, 'invalid aspect_ratio'],
    [{ start_image_url: 'https://example.com/a.png' }, 'unexpected parameter: start_image_url'],
  ])('refuses %j without a call', async (params, message) => {
    expect(await provider().submit(image(params))).toEqual({
      status: 'failed',
      failure: { kind: 'params', message },
    });
    expect(fake.createCalls()).toHaveLength(0);
  });
});

describe('gemini adapter: check and settings', () => {
  it('check() lists one model with the key', async () => {
    expect(await provider().check()).toEqual({ reachable: true, authOk: true });
    const [call] = fake.server.calls(/^\/v1beta\/models$/, 'GET');
    expect(call.query.get('pageSize')).toBe('1');
    expect(call.headers['x-goog-api-key']).toBe(fake.apiKey);
  });

  it('check() tells a refused key and an unreachable host', async () => {
    expect(await provider({ apiKey: 'wrong' }).check()).toMatchObject({ reachable: true, authOk: false });
    const closed = await new FakeGemini().start();
    const origin = closed.origin;
    await closed.close();
    expect(await provider({ baseUrl: origin }).check()).toMatchObject({ reachable: false, authOk: false });
  });

  it('validates its settings', () => {
    const base = { name: 'gemini', type: 'gemini' as const, baseUrl: 'https://x', apiKey: 'k', options: {} };
    expect(geminiAdapterType.validate(base)).toEqual([]);
    expect(geminiAdapterType.validate({ ...base, apiKey: undefined })).toEqual([
      'providers.gemini.api_key is required for type gemini',
    ]);
    expect(
      geminiAdapterType.validate({
        ...base,
        options: { person_generation: 1, allow_private_inputs: 'yes', submit_timeout_ms: -1 },
      }),
    ).toHaveLength(3);
  });
});
