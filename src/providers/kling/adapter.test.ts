// The Kling adapter against the loopback Kling fake: request shapes and the JWT as Kling sees them,
// params mapping and refusals, the error-code table (429-billing vs 429-busy), polling, uncertain
// submit and reconcile, callbacks, check() and the settings validation.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KlingFake } from '../../testing/fakes/kling.js';
import { startReceiver } from '../../testing/webhook-receiver.js';
import type { ProviderSettings } from '../config.js';
import type { ProviderTask } from '../task-provider.js';
import { type KlingProvider, parseKlingJobId } from './adapter.js';
import { klingAdapterType } from './index.js';

const AK = 'ak-test';
const SK = 'sk-test-secret';
let fake: KlingFake;
let taskCounter = 0;

function settings(options: Record<string, unknown> = {}, name = 'kling'): ProviderSettings {
  return {
    name,
    type: 'kling',
    baseUrl: fake.baseUrl,
    apiKey: undefined,
    options: { access_key: AK, secret_key: SK, ...options },
  };
}

function provider(
  options: Record<string, unknown> = {},
  now: () => number = () => Date.now(),
): KlingProvider {
  return klingAdapterType.create(settings(options), { clock: { now } }) as KlingProvider;
}

function task(params: Record<string, unknown> = {}, upstreamModel = 'kling-v2-1-master'): ProviderTask {
  taskCounter += 1;
  return {
    id: `tsk_kling_${taskCounter}_${Date.now().toString(36)}`,
    modelId: 'kling-2-1',
    upstreamModel,
    kind: 'video',
    params: { prompt: 'a red fox in the snow', duration: 5, aspect_ratio: '16:9', ...params },
    requeues: 0,
  };
}

function decodeJwt(header: string | undefined) {
  const [head, claims] = String(header)
    .replace(/^Bearer /, '')
    .split('.');
  return {
    head: JSON.parse(Buffer.from(head, 'base64url').toString('utf8')),
    claims: JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')),
  };
}

beforeAll(async () => {
  fake = await new KlingFake(AK, SK).start();
});
afterAll(async () => {
  await fake.close();
});
afterEach(() => {
  fake.submitScripts.length = 0;
  fake.queryScripts.length = 0;
  fake.jobScript = {};
  fake.lookupByExternalId = true;
});

describe('submit: request shape and auth', () => {
  it('sends a text2video create with a signed JWT, our task id and the callback URL', async () => {
    const now = Date.now();
    const t = task({ negative_prompt: 'blur', cfg_scale: 0.4, duration: 10, aspect_ratio: '9:16' });
    const callbackUrl = 'http://127.0.0.1:9/hooks/kling?task=abc&token=xyz';
    const outcome = await provider({}, () => now).submit(t, { callbackUrl });
    expect(outcome.status).toBe('submitted');
    const create = fake.creates().at(-1)!;
    expect(create.path).toBe('/v1/videos/text2video');
    const { head, claims } = decodeJwt(create.headers.authorization);
    expect(head).toEqual({ alg: 'HS256', typ: 'JWT' });
    const seconds = Math.floor(now / 1000);
    expect(claims).toEqual({ iss: AK, exp: seconds + 1800, nbf: seconds - 5 });
    expect(create.json).toEqual({
      model_name: 'kling-v2-1-master',
      prompt: 'a red fox in the snow',
      negative_prompt: 'blur',
      cfg_scale: 0.4,
      mode: 'std',
      aspect_ratio: '9:16',
      duration: '10',
      callback_url: `${callbackUrl}&kling_endpoint=text2video`,
      external_task_id: t.id,
    });
    const job = fake.jobByExternalId(t.id)!;
    expect(outcome).toEqual({ status: 'submitted', jobId: `text2video:${job.taskId}` });
  });

  it('sends image2video with the start image, no aspect_ratio, and the pro mode option', async () => {
    const t = task({ start_image_url: 'https://example.com/start.png' }, 'kling-v2-1');
    const outcome = await provider({ mode: 'pro' }).submit(t);
    const create = fake.creates().at(-1)!;
    expect(create.path).toBe('/v1/videos/image2video');
    expect(create.json).toEqual({
      model_name: 'kling-v2-1',
      image: 'https://example.com/start.png',
      prompt: 'a red fox in the snow',
      mode: 'pro',
      duration: '5',
      external_task_id: t.id,
    });
    const job = fake.jobByExternalId(t.id)!;
    expect(outcome).toMatchObject({ status: 'submitted', jobId: `image2video:${job.taskId}` });
    // The job id's endpoint decides the poll path.
    await provider().poll(`image2video:${job.taskId}`, t);
    expect(fake.queries().at(-1)!.path).toBe(`/v1/videos/image2video/${job.taskId}`);
  });

  it('a route that names no Kling model sends Kling’s name for our catalog id', async () => {
    await provider().submit(task({}, 'kling-2-1'));
    expect(fake.creates().at(-1)!.json.model_name).toBe('kling-v2-1-master');
    await provider().submit(task({ start_image_url: 'https://example.com/s.png' }, 'kling-2-1'));
    expect(fake.creates().at(-1)!.json.model_name).toBe('kling-v2-1');
  });

  it('refuses what Kling cannot express, without a network call', async () => {
    const before = fake.creates().length;
    const p = provider();
    expect(await p.submit(task({ seed: 42 }))).toEqual({
      status: 'failed',
      failure: { kind: 'params', message: 'unexpected parameter: seed' },
    });
    expect(await p.submit(task({ duration: 7 }))).toEqual({
      status: 'failed',
      failure: { kind: 'params', message: 'duration must be 5 or 10' },
    });
    expect(await p.submit(task({ aspect_ratio: '4:3' }))).toEqual({
      status: 'failed',
      failure: { kind: 'params', message: 'invalid aspect_ratio' },
    });
    expect(fake.creates().length).toBe(before);
  });

  it.each([
    ['a wrong secret key', { secret_key: 'not-the-secret' }, 0, 1000],
    ['a wrong access key', { access_key: 'someone-else' }, 0, 1000],
    ['an expired token (our clock 31 minutes behind)', {}, -31 * 60_000, 1004],
    ['a token not yet valid (our clock 1 minute ahead)', {}, 60_000, 1003],
  ])('answers auth for %s', async (_label, options, skewMs, code) => {
    const outcome = await provider(options, () => Date.now() + skewMs).submit(task());
    expect(outcome).toMatchObject({ status: 'failed', failure: { kind: 'auth' } });
    expect((outcome as { failure: { detail: string } }).failure.detail).toContain(`"code":${code}`);
  });
});

describe('submit: the error-code table', () => {
  it.each([
    [429, 1100, 'billing'],
    [429, 1101, 'billing'],
    [429, 1102, 'billing'],
    [403, 1103, 'auth'],
    [429, 1304, 'auth'],
    [400, 1300, 'rejected'],
    [400, 1301, 'rejected'],
    [404, 1203, 'upstream'],
    [500, 5000, 'overload'],
    [503, 5001, 'overload'],
    [504, 5002, 'overload'],
  ])('HTTP %i code %i → %s', async (status, code, kind) => {
    fake.submitScripts.push({ error: { status, code } });
    const outcome = await provider().submit(task());
    expect(outcome).toMatchObject({ status: 'failed', failure: { kind } });
  });

  it.each([1200, 1201])('code %i → params with Kling’s message', async (code) => {
    fake.submitScripts.push({ error: { status: 400, code, message: 'prompt is too long' } });
    expect(await provider().submit(task())).toMatchObject({
      status: 'failed',
      failure: { kind: 'params', message: 'Parameter validation failed: prompt is too long' },
    });
  });

  it.each([1302, 1303])('HTTP 429 code %i → busy with Retry-After', async (code) => {
    fake.submitScripts.push({ error: { status: 429, code, retryAfter: '7' } });
    expect(await provider().submit(task())).toEqual({ status: 'busy', retryAfterMs: 7000 });
  });

  it('maps an answer without a Kling code by its status', async () => {
    fake.submitScripts.push({ reply: { status: 502, body: 'bad gateway' } });
    expect(await provider().submit(task())).toMatchObject({
      status: 'failed',
      failure: { kind: 'overload' },
    });
  });

  it('a 2xx it cannot parse is uncertain (a job may exist)', async () => {
    fake.submitScripts.push({ reply: { status: 200, body: '<html>ok</html>' } });
    expect(await provider().submit(task())).toMatchObject({ status: 'uncertain' });
    fake.submitScripts.push({ reply: { status: 200, json: { code: 0, message: 'SUCCEED', data: {} } } });
    expect(await provider().submit(task())).toMatchObject({ status: 'uncertain' });
  });

  it('a connection that never opens throws NotSentError', async () => {
    const closed = klingAdapterType.create(
      { ...settings(), baseUrl: 'http://127.0.0.1:1' },
      { clock: { now: () => Date.now() } },
    );
    await expect(closed.submit(task())).rejects.toMatchObject({ name: 'NotSentError' });
  });
});

describe('poll', () => {
  async function submitted(script = {}) {
    fake.jobScript = script;
    const t = task();
    const outcome = await provider().submit(t);
    if (outcome.status !== 'submitted') throw new Error(`not submitted: ${JSON.stringify(outcome)}`);
    return { t, jobId: outcome.jobId };
  }

  it('submitted → processing → succeed: a public URL with its duration, expiry and seconds used', async () => {
    const { t, jobId } = await submitted({ duration: '5.1' });
    const p = provider();
    expect(await p.poll(jobId, t)).toEqual({ status: 'running' });
    expect(await p.poll(jobId, t)).toEqual({ status: 'running' });
    const before = Date.now();
    const done = await p.poll(jobId, t);
    expect(done.status).toBe('succeeded');
    if (done.status !== 'succeeded') return;
    const { taskId } = parseKlingJobId(jobId);
    expect(done.outputs).toHaveLength(1);
    expect(done.outputs[0]).toMatchObject({
      source: { kind: 'url', url: `${fake.baseUrl}/files/${taskId}/0.mp4` },
      contentType: 'video/mp4',
      durationSec: 5.1,
    });
    const thirtyDays = 30 * 24 * 3600 * 1000;
    expect(done.outputs[0].expiresAt).toBeGreaterThanOrEqual(before + thirtyDays - 1000);
    expect(done.outputs[0].expiresAt).toBeLessThanOrEqual(Date.now() + thirtyDays);
    expect(done.usage).toEqual({ seconds: 5.1 });
  });

  it('reads a 2xx other than 200 (a compatible gateway) with code 0 at create, poll, reconcile and check', async () => {
    fake.server.successStatus.push(
      { method: 'POST', pattern: /\/v1\/videos\//, status: 201 },
      { method: 'GET', pattern: /\/v1\/videos\//, status: 202 },
    );
    try {
      const { t, jobId } = await submitted();
      const p = provider();
      let outcome = await p.poll(jobId, t);
      for (let i = 0; i < 5 && outcome.status === 'running'; i++) outcome = await p.poll(jobId, t);
      expect(outcome).toMatchObject({ status: 'succeeded' });
      expect(await p.reconcile(t)).toEqual({ status: 'found', jobId });
      expect(await p.check()).toEqual({ reachable: true, authOk: true });
    } finally {
      fake.server.successStatus.length = 0;
    }
  });

  it('a failed job: safety messages → rejected, anything else → upstream', async () => {
    const p = provider();
    const safety = await submitted({
      statuses: ['failed'],
      failMsg: 'Failure to pass the risk control system',
    });
    expect(await p.poll(safety.jobId, safety.t)).toMatchObject({
      status: 'failed',
      failure: { kind: 'rejected' },
    });
    const other = await submitted({ statuses: ['failed'], failMsg: 'internal render error' });
    expect(await p.poll(other.jobId, other.t)).toMatchObject({
      status: 'failed',
      failure: { kind: 'upstream' },
    });
  });

  it('an unknown status, a 429 (even billing) and a 5xx are never terminal', async () => {
    const { t, jobId } = await submitted({ statuses: ['queued_somewhere' as never] });
    const p = provider();
    expect(await p.poll(jobId, t)).toEqual({ status: 'running' });
    fake.queryScripts.push({
      status: 429,
      json: { code: 1302, message: 'rate limit' },
      headers: { 'retry-after': '3' },
    });
    expect(await p.poll(jobId, t)).toEqual({ status: 'running', retryAfterMs: 3000 });
    fake.queryScripts.push({ status: 429, json: { code: 1102, message: 'resource pack depleted' } });
    expect(await p.poll(jobId, t)).toMatchObject({ status: 'running' });
    fake.queryScripts.push({ status: 500, json: { code: 5000, message: 'server error' } });
    expect(await p.poll(jobId, t)).toMatchObject({ status: 'running' });
  });

  it('an unknown job and a refused credential fail the poll', async () => {
    const t = task();
    expect(await provider().poll('text2video:999', t)).toMatchObject({
      status: 'failed',
      failure: { kind: 'upstream' },
    });
    const { jobId } = await submitted();
    expect(await provider({ secret_key: 'wrong' }).poll(jobId, t)).toMatchObject({
      status: 'failed',
      failure: { kind: 'auth' },
    });
  });
});

describe('uncertain submit and reconcile', () => {
  it('a dropped create is uncertain; reconcile finds the one job by external_task_id', async () => {
    fake.submitScripts.push('drop');
    const t = task();
    const before = fake.creates().length;
    expect(await provider().submit(t)).toMatchObject({ status: 'uncertain' });
    expect(fake.creates().length).toBe(before + 1);
    const job = fake.jobByExternalId(t.id)!;
    expect(job).toBeDefined();
    expect(await provider().reconcile(t)).toEqual({ status: 'found', jobId: `text2video:${job.taskId}` });
    expect(fake.queries().at(-1)!.path).toBe(`/v1/videos/text2video/${t.id}`);
  });

  it('falls back to the task list when the single query does not take the external id', async () => {
    fake.submitScripts.push('drop');
    fake.lookupByExternalId = false;
    const t = task({ start_image_url: 'https://example.com/i.png' });
    await provider().submit(t);
    const job = fake.jobByExternalId(t.id)!;
    expect(await provider().reconcile(t)).toEqual({ status: 'found', jobId: `image2video:${job.taskId}` });
  });

  it('not_found when Kling has no such task; unknown when it cannot tell', async () => {
    expect(await provider().reconcile(task())).toEqual({ status: 'not_found' });
    fake.queryScripts.push({ status: 500, json: { code: 5000, message: 'server error' } });
    expect(await provider().reconcile(task())).toEqual({ status: 'unknown' });
    const closed = klingAdapterType.create(
      { ...settings(), baseUrl: 'http://127.0.0.1:1' },
      { clock: { now: () => Date.now() } },
    );
    expect(await closed.reconcile!(task())).toEqual({ status: 'unknown' });
  });
});

describe('callbacks', () => {
  it('names the job from the task object Kling posts and the endpoint in our callback URL', async () => {
    const receiver = await startReceiver();
    try {
      const t = task({ start_image_url: 'https://example.com/i.png' });
      const outcome = await provider().submit(t, {
        callbackUrl: `${receiver.url}/hooks/kling?task=${t.id}&token=tok`,
      });
      const job = fake.jobByExternalId(t.id)!;
      await fake.deliverCallback(job.taskId);
      const [delivery] = await receiver.waitForRequests(1);
      const query = Object.fromEntries(new URL(delivery.path, receiver.url).searchParams);
      expect(query).toEqual({ task: t.id, token: 'tok', kling_endpoint: 'image2video' });
      const hook = { headers: delivery.headers, rawBody: Buffer.from(delivery.body), query };
      expect(await provider().receiveHook(hook)).toEqual({
        status: 'accepted',
        jobId: (outcome as { jobId: string }).jobId,
        taskId: t.id,
      });
    } finally {
      await receiver.close();
    }
  });

  it('a body about another task, or one it cannot read, names no job', async () => {
    const p = provider();
    const other = {
      code: 0,
      data: { task_id: '1', task_status: 'succeed', task_info: { external_task_id: 'tsk_other' } },
    };
    const query = { task: 'tsk_mine', token: 't', kling_endpoint: 'text2video' };
    expect(await p.receiveHook({ headers: {}, rawBody: Buffer.from(JSON.stringify(other)), query })).toEqual({
      status: 'accepted',
      taskId: 'tsk_mine',
    });
    expect(await p.receiveHook({ headers: {}, rawBody: Buffer.from('not json'), query })).toEqual({
      status: 'accepted',
      taskId: 'tsk_mine',
    });
  });
});

describe('check and settings', () => {
  it('check() lists one task: reachable and authenticated, or the refusal', async () => {
    expect(await provider().check()).toEqual({ reachable: true, authOk: true });
    const last = fake.server.requests.at(-1)!;
    expect(`${last.method} ${last.path}?${last.query}`).toBe(
      'GET /v1/videos/text2video?pageNum=1&pageSize=1',
    );
    expect(await provider({ secret_key: 'wrong' }).check()).toMatchObject({ reachable: true, authOk: false });
    const closed = klingAdapterType.create(
      { ...settings(), baseUrl: 'http://127.0.0.1:1' },
      { clock: { now: () => Date.now() } },
    );
    expect(await closed.check!()).toMatchObject({ reachable: false, authOk: false });
  });

  it('validate() lists each missing key and a bad mode', () => {
    expect(klingAdapterType.validate(settings())).toEqual([]);
    expect(
      klingAdapterType.validate({ ...settings(), name: 'kl', options: { access_key: '', mode: 'turbo' } }),
    ).toEqual([
      'providers.kl.access_key is required for type kling',
      'providers.kl.secret_key is required for type kling',
      'providers.kl.mode must be std or pro',
    ]);
  });
});
