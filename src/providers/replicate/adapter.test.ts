// The Replicate adapter against its loopback fake: request shapes, params mapping and refusals,
// the error table, prediction statuses, uncertain submits, cancel, reconcile, webhooks and check().
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_MP4, FAKE_PNG } from '../../testing/fakes/fake-server.js';
import { FakeReplicate } from '../../testing/fakes/replicate.js';
import { startReceiver } from '../../testing/webhook-receiver.js';
import type { ProviderSettings } from '../config.js';
import type { ProviderTask, TaskProvider } from '../task-provider.js';
import { replicateAdapterType } from './index.js';
import { signWebhook } from './webhook.js';

const SECRET = `whsec_${Buffer.from('replicate-test-signing-secret-32b').toString('base64')}`;
const HASH = 'a'.repeat(64);
const CALLBACK = 'http://127.0.0.1:9/hooks/replicate?task=tsk_abc123&token=tok_1';

let fake: FakeReplicate;
let provider: TaskProvider;
const clock = { now: () => Date.now() };

function settings(overrides: Partial<ProviderSettings> = {}): ProviderSettings {
  return {
    name: 'replicate',
    type: 'replicate',
    baseUrl: fake.baseUrl,
    apiKey: fake.apiKey,
    options: {},
    ...overrides,
  };
}

function task(overrides: Partial<ProviderTask> = {}): ProviderTask {
  return {
    id: 'tsk_abc123',
    modelId: 'veo-3-fast',
    upstreamModel: 'google/veo-3-fast',
    kind: 'video',
    params: { prompt: 'a fox in the snow', duration: 8, aspect_ratio: '16:9', generate_audio: false },
    requeues: 0,
    ...overrides,
  };
}

const flux = (params: Record<string, unknown> = {}) =>
  task({
    modelId: 'flux-1-1-pro',
    upstreamModel: 'black-forest-labs/flux-1.1-pro',
    kind: 'image',
    params: { prompt: 'a red apple', aspect_ratio: '1:1', ...params },
  });

/** Polls until the outcome is terminal (the fake's statuses advance with time). */
async function pollToEnd(jobId: string, t: ProviderTask) {
  for (let i = 0; i < 200; i++) {
    const outcome = await provider.poll(jobId, t);
    if (outcome.status !== 'running') return outcome;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('never finished');
}

async function fetchBytes(url: string): Promise<{ status: number; bytes: Buffer }> {
  const res = await fetch(url);
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
}

beforeAll(async () => {
  fake = await new FakeReplicate().start();
  provider = replicateAdapterType.create(settings(), { clock });
});

afterEach(() => {
  fake.scripts.length = 0;
  fake.createErrors.length = 0;
  fake.getErrors.length = 0;
  fake.defaultScript = {};
  fake.listShowsWebhook = false;
  fake.pageSize = 100;
  fake.server.requests.length = 0;
});

afterAll(async () => {
  await fake.close();
});

describe('submit and poll', () => {
  it('creates a video prediction on the official model endpoint, with our webhook, and polls it to its file', async () => {
    fake.next({ statuses: ['starting', 'processing', 'succeeded'], stepMs: 150, predictTime: 42.5 });
    const t = task({ params: { ...task().params, start_image_url: 'https://example.com/first.png' } });
    const submitted = await provider.submit(t, { callbackUrl: CALLBACK });
    expect(submitted.status).toBe('submitted');
    const [create] = fake.creates();
    expect(create.path).toBe('/v1/models/google/veo-3-fast/predictions');
    expect(create.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(create.headers.prefer).toBeUndefined();
    expect(create.json).toEqual({
      input: {
        prompt: 'a fox in the snow',
        duration: 8,
        aspect_ratio: '16:9',
        generate_audio: false,
        image: 'https://example.com/first.png',
      },
      webhook: CALLBACK,
      webhook_events_filter: ['completed'],
    });
    if (submitted.status !== 'submitted') throw new Error('not submitted');
    expect(fake.jobs.has(submitted.jobId)).toBe(true);
    const first = await provider.poll(submitted.jobId, t);
    expect(first.status).toBe('running');
    const final = await pollToEnd(submitted.jobId, t);
    if (final.status !== 'succeeded') throw new Error(`not succeeded: ${JSON.stringify(final)}`);
    expect(final.usage).toEqual({ seconds: 42.5 });
    expect(final.outputs).toHaveLength(1);
    const [output] = final.outputs;
    expect(output.contentType).toBe('video/mp4');
    expect(output.expiresAt).toBe(fake.jobs.get(submitted.jobId)!.createdAt + 3_600_000);
    if (output.source.kind !== 'url') throw new Error('not a url');
    expect(output.source.url.startsWith(`${fake.origin}/files/`)).toBe(true);
    expect((await fetchBytes(output.source.url)).bytes.equals(FAKE_MP4)).toBe(true);
  });

  it("reads Replicate's documented 201 Created of a create, and any other 2xx, as an answer", async () => {
    fake.next({ statuses: ['starting', 'succeeded'], stepMs: 5 });
    const created = await fetch(`${fake.baseUrl}/models/google/veo-3-fast/predictions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fake.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: { prompt: 'x' } }),
    });
    expect(created.status).toBe(201);
    fake.listShowsWebhook = true;
    const submitted = await provider.submit(task(), { callbackUrl: CALLBACK });
    expect(submitted.status).toBe('submitted');
    if (submitted.status !== 'submitted') throw new Error('not submitted');
    // A proxy in front of Replicate may answer 202 to a read: still the prediction.
    fake.server.successStatus.push({ method: 'GET', pattern: /^\/v1\//, status: 202 });
    try {
      expect(await pollToEnd(submitted.jobId, task())).toMatchObject({ status: 'succeeded' });
      expect(await provider.check!()).toEqual({ reachable: true, authOk: true });
      expect(await provider.reconcile!(task())).toEqual({ status: 'found', jobId: submitted.jobId });
    } finally {
      fake.server.successStatus.length = 0;
    }
  });

  it('omits the webhook when callbacks are off', async () => {
    await provider.submit(task());
    expect(fake.creates()[0].json).toEqual({
      input: { prompt: 'a fox in the snow', duration: 8, aspect_ratio: '16:9', generate_audio: false },
    });
  });

  it('sends Prefer: wait=30 for images and returns a prediction finished within the wait as succeeded', async () => {
    fake.next({ statuses: ['starting', 'succeeded'], stepMs: 40, outputShape: 'array', predictTime: 2 });
    const outcome = await provider.submit(flux({ seed: 7, image_url: 'https://example.com/ref.png' }));
    const [create] = fake.creates();
    expect(create.headers.prefer).toBe('wait=30');
    expect(create.path).toBe('/v1/models/black-forest-labs/flux-1.1-pro/predictions');
    expect(create.json.input).toEqual({
      prompt: 'a red apple',
      aspect_ratio: '1:1',
      seed: 7,
      image_prompt: 'https://example.com/ref.png',
    });
    if (outcome.status !== 'succeeded') throw new Error(`not succeeded: ${JSON.stringify(outcome)}`);
    expect(fake.jobs.has(outcome.jobId)).toBe(true);
    expect(outcome.usage).toEqual({ seconds: 2, images: 1 });
    expect(outcome.outputs[0].contentType).toBe('image/png');
    if (outcome.outputs[0].source.kind !== 'url') throw new Error('not a url');
    expect((await fetchBytes(outcome.outputs[0].source.url)).bytes.equals(FAKE_PNG)).toBe(true);
  });

  it('an image still running after the wait is submitted and polled', async () => {
    fake.next({ statuses: ['starting', 'processing'], stepMs: 10 });
    const outcome = await provider.submit(flux());
    expect(outcome.status).toBe('submitted');
  });

  it('the wait is an option (wait_seconds: 0 turns it off)', async () => {
    const noWait = replicateAdapterType.create(settings({ options: { wait_seconds: 0 } }), { clock });
    fake.next({ statuses: ['starting', 'succeeded'], stepMs: 5 });
    expect((await noWait.submit(flux())).status).toBe('submitted');
    expect(fake.creates()[0].headers.prefer).toBeUndefined();
  });

  it('creates a versioned prediction on /predictions for "owner/name:hash" and for a bare hash', async () => {
    await provider.submit(task({ upstreamModel: `someone/custom-video:${HASH}` }), { callbackUrl: CALLBACK });
    await provider.submit(task({ upstreamModel: HASH }));
    const [named, bare] = fake.creates();
    expect(named.path).toBe('/v1/predictions');
    expect(named.json).toMatchObject({
      version: HASH,
      webhook: CALLBACK,
      webhook_events_filter: ['completed'],
    });
    expect(bare.path).toBe('/v1/predictions');
    expect(bare.json.version).toBe(HASH);
  });

  it('maps the statuses of a prediction', async () => {
    const cases: Array<[Parameters<FakeReplicate['next']>[0], string, string?]> = [
      [
        {
          statuses: ['failed'],
          error: 'NSFW content detected. Try running it again, or try a different prompt.',
        },
        'rejected',
      ],
      [
        { statuses: ['failed'], error: 'Flagged as sensitive (E005). Please try a different prompt.' },
        'rejected',
      ],
      [{ statuses: ['failed'], error: 'CUDA out of memory' }, 'upstream'],
      [{ statuses: ['canceled'] }, 'upstream'],
      [{ statuses: ['aborted'] }, 'upstream'],
    ];
    for (const [script, kind] of cases) {
      fake.next(script);
      const submitted = await provider.submit(task());
      if (submitted.status !== 'submitted') throw new Error('not submitted');
      const outcome = await provider.poll(submitted.jobId, task());
      expect(outcome, JSON.stringify(script)).toMatchObject({ status: 'failed', failure: { kind } });
    }
  });

  it('an unknown status is running, never terminal', async () => {
    fake.next({ statuses: ['warming_up'] });
    const submitted = await provider.submit(task());
    if (submitted.status !== 'submitted') throw new Error('not submitted');
    expect(await provider.poll(submitted.jobId, task())).toEqual({ status: 'running' });
  });

  it('a poll answered 429 or 5xx is running with a retry hint; an unknown id fails upstream', async () => {
    fake.next({ statuses: ['starting', 'succeeded'], stepMs: 5 });
    const submitted = await provider.submit(task());
    if (submitted.status !== 'submitted') throw new Error('not submitted');
    fake.getErrors.push(
      {
        status: 429,
        json: {
          title: 'Request was throttled',
          detail: 'Request was throttled. Expected available in 4 seconds.',
          status: 429,
        },
        headers: { 'retry-after': '4' },
      },
      { status: 503, body: 'upstream connect error' },
    );
    expect(await provider.poll(submitted.jobId, task())).toEqual({ status: 'running', retryAfterMs: 4000 });
    expect(await provider.poll(submitted.jobId, task())).toEqual({ status: 'running', retryAfterMs: 5000 });
    // The script succeeds one step (5 ms) after the submit; two fast polls can come sooner than that.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await provider.poll(submitted.jobId, task())).toMatchObject({ status: 'succeeded' });
    expect(await provider.poll('nosuchprediction', task())).toMatchObject({
      status: 'failed',
      failure: { kind: 'upstream' },
    });
  });
});

describe('params', () => {
  const refused = async (t: ProviderTask, message: string) => {
    const outcome = await provider.submit(t, { callbackUrl: CALLBACK });
    expect(outcome).toEqual({ status: 'failed', failure: { kind: 'params', message } });
    expect(fake.creates()).toHaveLength(0);
  };

  it('maps Sora: duration → seconds, aspect ratio → landscape/portrait, the first frame → input_reference', async () => {
    await provider.submit(
      task({
        modelId: 'sora-2',
        upstreamModel: 'openai/sora-2',
        params: { prompt: 'p', duration: 8, aspect_ratio: '9:16', start_image_url: 'https://e.com/a.png' },
      }),
    );
    expect(fake.creates()[0].json.input).toEqual({
      prompt: 'p',
      seconds: 8,
      aspect_ratio: 'portrait',
      input_reference: 'https://e.com/a.png',
    });
  });

  it('maps Seedream and Nano Banana: image_url → image_input as a list', async () => {
    for (const upstreamModel of ['bytedance/seedream-4', 'google/nano-banana']) {
      fake.server.requests.length = 0;
      await provider.submit(
        task({
          upstreamModel,
          kind: 'image',
          params: { prompt: 'p', aspect_ratio: '21:9', image_url: 'https://e.com/a.png' },
        }),
      );
      expect(fake.creates()[0].json.input).toEqual({
        prompt: 'p',
        aspect_ratio: '21:9',
        image_input: ['https://e.com/a.png'],
      });
    }
  });

  it('maps Kling 2.1: start_image, standard mode, no aspect_ratio (the image sets the shape)', async () => {
    await provider.submit(
      task({
        upstreamModel: 'kwaivgi/kling-v2.1',
        params: {
          prompt: 'p',
          negative_prompt: 'blur',
          duration: 10,
          aspect_ratio: '16:9',
          start_image_url: 'https://e.com/a.png',
        },
      }),
    );
    expect(fake.creates()[0].json.input).toEqual({
      prompt: 'p',
      negative_prompt: 'blur',
      duration: 10,
      start_image: 'https://e.com/a.png',
      mode: 'standard',
    });
  });

  it('maps Seedance: first and last frames', async () => {
    await provider.submit(
      task({
        upstreamModel: 'bytedance/seedance-1-pro',
        params: {
          prompt: 'p',
          duration: 5,
          resolution: '1080p',
          start_image_url: 'https://e.com/a.png',
          end_image_url: 'https://e.com/b.png',
        },
      }),
    );
    expect(fake.creates()[0].json.input).toEqual({
      prompt: 'p',
      duration: 5,
      resolution: '1080p',
      image: 'https://e.com/a.png',
      last_frame_image: 'https://e.com/b.png',
    });
  });

  it('refuses what a model cannot take, without calling Replicate', async () => {
    await refused(
      flux({ aspect_ratio: '21:9' }),
      'invalid aspect_ratio: must be one of 1:1, 16:9, 3:2, 2:3, 4:5, 5:4, 9:16, 3:4, 4:3',
    );
    await refused(
      task({ upstreamModel: 'openai/sora-2', params: { prompt: 'p', duration: 4, aspect_ratio: '1:1' } }),
      'invalid aspect_ratio: must be one of 16:9, 9:16',
    );
    await refused(
      task({ upstreamModel: 'openai/sora-2', params: { prompt: 'p', seed: 3 } }),
      'unexpected parameter: seed',
    );
    await refused(
      task({ upstreamModel: 'bytedance/seedream-4', kind: 'image', params: { prompt: 'p', seed: 1 } }),
      'unexpected parameter: seed',
    );
    await refused(
      task({ upstreamModel: 'kwaivgi/kling-v2.1', params: { prompt: 'p', duration: 5 } }),
      'start_image_url is required for this model',
    );
    await refused(
      task({
        upstreamModel: 'kwaivgi/kling-v2.1',
        params: { prompt: 'p', cfg_scale: 0.5, start_image_url: 'https://e.com/a.png' },
      }),
      'unexpected parameter: cfg_scale',
    );
    await refused(
      task({
        upstreamModel: 'bytedance/seedance-2',
        params: { prompt: 'p', reference_video_urls: ['https://e.com/v.mp4'] },
      }),
      'unexpected parameter: reference_video_urls',
    );
  });

  it('an upstream model name that is neither owner/name nor a version fails without a call', async () => {
    const outcome = await provider.submit(task({ upstreamModel: 'veo-3-fast' }));
    expect(outcome).toMatchObject({ status: 'failed', failure: { kind: 'upstream' } });
    expect(fake.creates()).toHaveLength(0);
  });
});

describe('errors at submit', () => {
  const problem = (status: number, title: string, detail: string, extra: Record<string, unknown> = {}) => ({
    status,
    json: { title, detail, status, ...extra },
  });

  it('maps every documented refusal to its kind', async () => {
    const table: Array<[ReturnType<typeof problem> & { headers?: Record<string, string> }, unknown]> = [
      [
        problem(
          402,
          'Insufficient credit',
          'You have insufficient credit to run this model. Go to https://replicate.com/account/billing#billing to purchase credit.',
        ),
        { status: 'failed', failure: { kind: 'billing' } },
      ],
      [
        {
          ...problem(429, 'Request was throttled', 'Request was throttled. Expected available in 7 seconds.'),
          headers: { 'retry-after': '7' },
        },
        { status: 'busy', retryAfterMs: 7000 },
      ],
      [
        problem(429, 'Request was throttled', 'Request was throttled. Expected available in 3 seconds.'),
        { status: 'busy', retryAfterMs: 3000 },
      ],
      [
        problem(
          422,
          'Input validation failed',
          '- input.seconds: seconds must be one of the following: 4, 8, 12\n',
          {
            invalid_fields: [
              {
                type: 'enum',
                field: 'input.seconds',
                description: 'seconds must be one of the following: 4, 8, 12',
              },
            ],
          },
        ),
        { status: 'failed', failure: { kind: 'params', message: 'invalid duration' } },
      ],
      [
        problem(422, 'Input validation failed', '- input: prompt is required\n', {
          invalid_fields: [{ type: 'required', field: 'input', description: 'prompt is required' }],
        }),
        { status: 'failed', failure: { kind: 'params', message: 'prompt is required' } },
      ],
      [
        problem(
          422,
          'Invalid version or not permitted',
          "The specified version does not exist (or perhaps you don't have permission to use it?)",
        ),
        { status: 'failed', failure: { kind: 'upstream' } },
      ],
      [
        problem(404, 'Not found', 'The requested resource could not be found.'),
        { status: 'failed', failure: { kind: 'upstream' } },
      ],
      [
        problem(403, 'Forbidden', 'You do not have permission to perform this action.'),
        { status: 'failed', failure: { kind: 'auth' } },
      ],
      [
        problem(400, 'Prompt flagged', 'Your prompt was flagged by the safety filter.'),
        { status: 'failed', failure: { kind: 'rejected' } },
      ],
      [
        problem(500, 'Internal server error', 'Something went wrong'),
        { status: 'failed', failure: { kind: 'overload' } },
      ],
      [
        { status: 503, body: 'upstream connect error' } as never,
        { status: 'failed', failure: { kind: 'overload' } },
      ],
    ];
    for (const [reply, expected] of table) {
      fake.createErrors.push(reply);
      const outcome = await provider.submit(
        task({ upstreamModel: 'openai/sora-2', params: { prompt: 'p', duration: 8 } }),
      );
      expect(outcome, JSON.stringify(reply)).toMatchObject(expected as object);
      if (outcome.status === 'failed' && outcome.failure.kind !== 'params')
        expect(outcome.failure.message).toBeUndefined();
      if (outcome.status === 'failed') expect(outcome.failure.detail).toContain(`HTTP ${reply.status}`);
    }
  });

  it('names a 422 input field with the param the task carries (image is start_image_url or image_url)', async () => {
    const invalidImage = () =>
      fake.createErrors.push({
        status: 422,
        json: {
          title: 'Input validation failed',
          detail: '- input.image: Does not match format uri\n',
          status: 422,
          invalid_fields: [
            { type: 'format', field: 'input.image', description: 'Does not match format uri' },
          ],
        },
      });
    invalidImage();
    const image = await provider.submit(
      task({
        upstreamModel: 'someone/image-model',
        kind: 'image',
        params: { prompt: 'p', image_url: 'https://e.com/a.png' },
      }),
    );
    expect(image).toMatchObject({
      status: 'failed',
      failure: { kind: 'params', message: 'invalid image_url' },
    });
    invalidImage();
    const video = await provider.submit(
      task({
        upstreamModel: 'someone/video-model',
        params: { prompt: 'p', start_image_url: 'https://e.com/a.png' },
      }),
    );
    expect(video).toMatchObject({
      status: 'failed',
      failure: { kind: 'params', message: 'invalid start_image_url' },
    });
  });

  it('a wrong key is auth (the fake answers its 401 problem)', async () => {
    const wrong = replicateAdapterType.create(settings({ apiKey: 'r8_wrong' }), { clock });
    expect(await wrong.submit(task())).toMatchObject({ status: 'failed', failure: { kind: 'auth' } });
    expect(await wrong.poll('anything', task())).toMatchObject({
      status: 'failed',
      failure: { kind: 'auth' },
    });
  });

  it('a dropped create answer is uncertain, and the fake holds exactly one prediction for it', async () => {
    const before = fake.jobs.size;
    fake.next({ drop: true });
    const outcome = await provider.submit(task(), { callbackUrl: CALLBACK });
    expect(outcome.status).toBe('uncertain');
    expect(fake.creates()).toHaveLength(1);
    expect(fake.jobs.size).toBe(before + 1);
  });

  it('an unreadable 2xx create answer is uncertain', async () => {
    fake.createErrors.push({ status: 201, body: '<html>ok</html>' });
    expect((await provider.submit(task())).status).toBe('uncertain');
  });

  it('a connection never made propagates (NotSentError) so the runner may retry', async () => {
    const closed = replicateAdapterType.create(settings({ baseUrl: 'http://127.0.0.1:9/v1' }), { clock });
    await expect(closed.submit(task())).rejects.toMatchObject({ name: 'NotSentError' });
  });
});

describe('cancel and reconcile', () => {
  it('cancels a running prediction', async () => {
    fake.next({ statuses: ['starting', 'processing'], stepMs: 5 });
    const submitted = await provider.submit(task());
    if (submitted.status !== 'submitted') throw new Error('not submitted');
    await provider.cancel!(submitted.jobId, task());
    expect(fake.cancels().map((r) => r.path)).toEqual([`/v1/predictions/${submitted.jobId}/cancel`]);
    expect(fake.cancels()[0].headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(await provider.poll(submitted.jobId, task())).toMatchObject({
      status: 'failed',
      failure: { kind: 'upstream' },
    });
    await expect(provider.cancel!('nosuchprediction', task())).rejects.toThrow(/404/);
  });

  it('finds the prediction whose webhook names the task, across list pages', async () => {
    fake.listShowsWebhook = true;
    fake.pageSize = 1;
    fake.next({ drop: true });
    await provider.submit(task({ id: 'tsk_lost' }), {
      callbackUrl: CALLBACK.replace('tsk_abc123', 'tsk_lost'),
    });
    const lost = [...fake.jobs.values()].at(-1)!;
    await provider.submit(task({ id: 'tsk_other' }), {
      callbackUrl: CALLBACK.replace('tsk_abc123', 'tsk_other'),
    });
    await provider.submit(task({ id: 'tsk_third' }));
    expect(await provider.reconcile!(task({ id: 'tsk_lost' }))).toEqual({ status: 'found', jobId: lost.id });
    const lists = fake.server.calls(/^\/v1\/predictions$/, 'GET');
    expect(lists.length).toBeGreaterThanOrEqual(2);
    expect(lists[0].query.get('created_after')).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(lists[0].headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(await provider.reconcile!(task({ id: 'tsk_never' }))).toEqual({ status: 'unknown' });
  });

  it('answers unknown when the list does not carry webhooks (the documented list results)', async () => {
    fake.next({ drop: true });
    await provider.submit(task({ id: 'tsk_hidden' }), {
      callbackUrl: CALLBACK.replace('tsk_abc123', 'tsk_hidden'),
    });
    expect(await provider.reconcile!(task({ id: 'tsk_hidden' }))).toEqual({ status: 'unknown' });
  });

  it('answers unknown when the list call fails', async () => {
    const wrong = replicateAdapterType.create(settings({ apiKey: 'r8_wrong' }), { clock });
    expect(await wrong.reconcile!(task())).toEqual({ status: 'unknown' });
    const closed = replicateAdapterType.create(settings({ baseUrl: 'http://127.0.0.1:9/v1' }), { clock });
    expect(await closed.reconcile!(task())).toEqual({ status: 'unknown' });
  });
});

describe('webhooks', () => {
  const signed = replicateAdapterType.create(
    {
      name: 'replicate',
      type: 'replicate',
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKey: 'k',
      options: { webhook_secret: SECRET },
    },
    { clock },
  );
  const body = Buffer.from(
    JSON.stringify({ id: 'pred_123', status: 'succeeded', output: 'https://x/y.png' }),
  );
  const now = () => Math.floor(Date.now() / 1000);
  const headersFor = (raw: Buffer, timestamp = now(), id = 'msg_1') => ({
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': `v1,bm90IGEgc2lnbmF0dXJl ${signWebhook(SECRET, id, timestamp, raw)}`,
  });

  it('accepts a delivery signed as Replicate signs it, and names the prediction and our task', async () => {
    const outcome = await signed.receiveHook!({
      headers: headersFor(body),
      rawBody: body,
      query: { task: 'tsk_1' },
    });
    expect(outcome).toEqual({ status: 'accepted', jobId: 'pred_123', taskId: 'tsk_1' });
  });

  it('our signature is the Standard Webhooks one (checked with the standardwebhooks library)', () => {
    const headers = headersFor(body);
    expect(() => new Webhook(SECRET).verify(body, headers)).not.toThrow();
  });

  it('refuses a forged signature, a changed body, a missing header and a timestamp older than 5 minutes', async () => {
    const forged = { ...headersFor(body), 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}` };
    const changed = Buffer.from(body.toString().replace('pred_123', 'pred_999'));
    const stale = now() - 301;
    const { 'webhook-id': _omitted, ...missing } = headersFor(body);
    for (const [headers, raw] of [
      [forged, body],
      [headersFor(body), changed],
      [missing, body],
      [headersFor(body, stale), body],
    ] as const)
      expect(await signed.receiveHook!({ headers, rawBody: raw, query: { task: 'tsk_1' } })).toEqual({
        status: 'forged',
      });
  });

  it('verifies what the fake delivers to a callback URL', async () => {
    const receiver = await startReceiver();
    fake.webhookSecret = SECRET;
    try {
      fake.next({ statuses: ['starting', 'succeeded'], stepMs: 10 });
      const submitted = await provider.submit(task(), {
        callbackUrl: `${receiver.url}/hooks/replicate?task=tsk_abc123&token=t`,
      });
      if (submitted.status !== 'submitted') throw new Error('not submitted');
      const [delivery] = await receiver.waitForRequests(1, 3000);
      expect(delivery.path).toBe('/hooks/replicate?task=tsk_abc123&token=t');
      const outcome = await signed.receiveHook!({
        headers: delivery.headers as Record<string, string>,
        rawBody: Buffer.from(delivery.body),
        query: { task: 'tsk_abc123' },
      });
      expect(outcome).toEqual({ status: 'accepted', jobId: submitted.jobId, taskId: 'tsk_abc123' });
    } finally {
      fake.webhookSecret = undefined;
      await receiver.close();
    }
  });

  it('without a secret a delivery is a hint: accepted, with the prediction id from the body', async () => {
    expect(await provider.receiveHook!({ headers: {}, rawBody: body, query: { task: 'tsk_1' } })).toEqual({
      status: 'accepted',
      jobId: 'pred_123',
      taskId: 'tsk_1',
    });
    expect(await provider.receiveHook!({ headers: {}, rawBody: Buffer.from('nope'), query: {} })).toEqual({
      status: 'accepted',
      jobId: undefined,
      taskId: undefined,
    });
  });
});

describe('check and settings', () => {
  it('check() calls GET /account with the key', async () => {
    expect(await provider.check!()).toEqual({ reachable: true, authOk: true });
    const [call] = fake.server.calls(/^\/v1\/account$/, 'GET');
    expect(call.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    const wrong = replicateAdapterType.create(settings({ apiKey: 'r8_wrong' }), { clock });
    expect(await wrong.check!()).toMatchObject({
      reachable: true,
      authOk: false,
      detail: expect.stringContaining('401'),
    });
    const closed = replicateAdapterType.create(settings({ baseUrl: 'http://127.0.0.1:9/v1' }), { clock });
    expect(await closed.check!()).toMatchObject({ reachable: false, authOk: false });
  });

  it('validates the provider entry', () => {
    expect(replicateAdapterType.validate(settings())).toEqual([]);
    expect(replicateAdapterType.validate(settings({ apiKey: undefined }))).toEqual([
      'providers.replicate.api_key is required for type replicate',
    ]);
    expect(
      replicateAdapterType.validate(settings({ options: { webhook_secret: 'plain', wait_seconds: 90 } })),
    ).toEqual([
      'providers.replicate.webhook_secret must be the account\'s signing secret ("whsec_…")',
      'providers.replicate.wait_seconds must be an integer from 0 to 60',
    ]);
  });
});
