// The whole path through gengate with a gemini provider: POST /generate → the gemini adapter → the
// Gemini fake (Veo operations, synchronous image generation) → our object storage → the ledger →
// the client's webhook.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { failureMessage } from '../../domain/tasks/failures.js';
import { TASK_FAILURE } from '../../domain/tasks/states.js';
import { FAKE_MP4, FAKE_PNG } from '../../testing/fakes/fake-server.js';
import { FakeGemini, GEMINI_ERRORS } from '../../testing/fakes/gemini.js';
import { clientHooksFor, type ProviderE2E, startProviderE2E, waitFor } from '../../testing/provider-e2e.js';

const VEO = 'veo-3.0-fast-generate-001';
const IMAGE = 'gemini-2.5-flash-image';
/** veo-3-fast costs 22 RUB per second; nano-banana 4 RUB a shot (micro-rubles). */
const VEO_8S = 176_000_000;
const VEO_6S = 132_000_000;
const BANANA = 4_000_000;

function entry(fake: FakeGemini) {
  return { type: 'gemini', base_url: fake.baseUrl, api_key: fake.apiKey, allow_private_inputs: true };
}

function reset(...fakes: FakeGemini[]) {
  for (const fake of fakes) {
    fake.submitErrors = [];
    fake.pollErrors = [];
    fake.videoScripts = [];
    fake.imageScripts = [];
    fake.defaultVideo = {};
  }
}

describe('gemini end to end', () => {
  let fake: FakeGemini;
  let e2e: ProviderE2E;

  beforeAll(async () => {
    fake = await new FakeGemini().start();
    e2e = await startProviderE2E({
      providers: {
        providers: { gemini: entry(fake) },
        routes: {
          'veo-3-fast': { provider: 'gemini', model: VEO },
          'nano-banana': { provider: 'gemini', model: IMAGE },
        },
      },
    });
  });
  afterAll(async () => {
    await e2e?.dispose();
    await fake?.close();
  });
  beforeEach(() => reset(fake));

  async function run(params: Record<string, unknown>) {
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'veo-3-fast', prompt: 'a fox in snow', ...params });
    expect(created.status).toBe(202);
    const taskId = created.body.task_id as string;
    const task = await e2e.waitForFinal(taskId);
    return { before, task, taskId };
  }

  async function expectRefunded(before: { balance: number }, taskId: string) {
    expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
    const hooks = await waitFor(
      () => clientHooksFor(e2e, taskId),
      (list) => list.length > 0,
    );
    expect(hooks.map((h) => JSON.parse(h.body).status)).toEqual(['failed']);
    await e2e.expectLedgerClean();
  }

  it('Veo: running → running → done: our copy of the video, the price captured, one client webhook', async () => {
    fake.videoScripts = [{ runningPolls: 2 }];
    const { before, task, taskId } = await run({ negative_prompt: 'blur' });
    expect(task.status).toBe('completed');
    const videoUrl: string = task.result!.video_url;
    expect(videoUrl.startsWith(`${e2e.origin}/objects/`)).toBe(true);
    expect(task.result!.duration).toBe(8);
    const file = await e2e.download(videoUrl);
    expect(file.status).toBe(200);
    expect(file.bytes.equals(FAKE_MP4)).toBe(true);
    const row = await e2e.taskRow(taskId);
    expect(row.provider).toBe('gemini');
    expect(row.provider_job_id).toBe(
      `models/${VEO}/operations/${[...fake.operations.keys()].at(-1)!.split('/').pop()}`,
    );
    expect(Number(row.hold_amount)).toBe(VEO_8S);
    expect(Number(row.cost)).toBe(VEO_8S);
    expect(await e2e.balance()).toEqual({ balance: before.balance - VEO_8S, held: 0 });
    const create = fake.createCalls().at(-1)!;
    expect(create.headers['x-goog-api-key']).toBe(fake.apiKey);
    expect(create.json).toEqual({
      instances: [{ prompt: 'a fox in snow' }],
      parameters: { aspectRatio: '16:9', durationSeconds: 8, negativePrompt: 'blur' },
    });
    const hooks = await waitFor(
      () => clientHooksFor(e2e, taskId),
      (list) => list.length > 0,
    );
    expect(hooks.map((h) => JSON.parse(h.body).status)).toEqual(['completed']);
    await e2e.expectLedgerClean();
  });

  it('Veo with a first frame: the image is downloaded and sent inline; 6 s billed as 6 s', async () => {
    const { before, task } = await run({ duration: 6, start_image_url: `${fake.origin}/inputs/frame.png` });
    expect(task.status).toBe('completed');
    expect(fake.createCalls().at(-1)!.json.instances[0].image).toEqual({
      bytesBase64Encoded: FAKE_PNG.toString('base64'),
      mimeType: 'image/png',
    });
    expect(await e2e.balance()).toEqual({ balance: before.balance - VEO_6S, held: 0 });
    await e2e.expectLedgerClean();
  });

  it('nano-banana: a synchronous image, our copy, one shot captured', async () => {
    const before = await e2e.balance();
    const created = await e2e.generate({
      model_name: 'nano-banana',
      prompt: 'a banana',
      aspect_ratio: '16:9',
    });
    expect(created.status).toBe(202);
    const task = await e2e.waitForFinal(created.body.task_id);
    expect(task.status).toBe('completed');
    expect(task.result!.image_url.startsWith(`${e2e.origin}/objects/`)).toBe(true);
    expect((await e2e.download(task.result!.image_url)).bytes.equals(FAKE_PNG)).toBe(true);
    expect(await e2e.balance()).toEqual({ balance: before.balance - BANANA, held: 0 });
    expect(fake.createCalls().at(-1)!.json.generationConfig).toEqual({
      responseModalities: ['IMAGE'],
      imageConfig: { aspectRatio: '16:9' },
    });
    await e2e.expectLedgerClean();
  });

  it('nano-banana: a 200 without an image (IMAGE_SAFETY) fails as rejected with an exact refund', async () => {
    fake.imageScripts = ['image-safety'];
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'nano-banana', prompt: 'something forbidden' });
    const task = await e2e.waitForFinal(created.body.task_id);
    expect([task.status, task.error]).toEqual(['failed', TASK_FAILURE.rejected]);
    await expectRefunded(before, created.body.task_id);
  });

  it.each([
    [
      'rejected (the safety filter removed the video)',
      () => (fake.videoScripts = [{ runningPolls: 0, result: 'filtered' }]),
      TASK_FAILURE.rejected,
    ],
    [
      'billing (FAILED_PRECONDITION at submit)',
      () => (fake.submitErrors = [GEMINI_ERRORS.billing]),
      TASK_FAILURE.billing,
    ],
    [
      'overload (503 UNAVAILABLE at submit)',
      () => (fake.submitErrors = [GEMINI_ERRORS.unavailable]),
      TASK_FAILURE.overload,
    ],
    [
      'auth (API_KEY_INVALID)',
      () => (fake.submitErrors = [GEMINI_ERRORS.badKey]),
      failureMessage({ kind: 'auth' }),
    ],
    [
      'params (INVALID_ARGUMENT from Veo)',
      () => (fake.submitErrors = [GEMINI_ERRORS.invalid]),
      'Parameter validation failed: Invalid value for aspectRatio.',
    ],
    [
      'upstream (an operation error with no meaning for us)',
      () => (fake.videoScripts = [{ runningPolls: 0, result: { error: { code: 2, message: 'Unknown.' } } }]),
      TASK_FAILURE.upstream,
    ],
  ])('%s: the exact client message and an exact refund', async (_name, script, message) => {
    script();
    const { before, task, taskId } = await run({});
    expect([task.status, task.error]).toEqual(['failed', message]);
    await expectRefunded(before, taskId);
  });

  it('params refused before any call: a duration Veo 3 cannot make, and seed', async () => {
    const calls = fake.createCalls().length;
    for (const [params, message] of [
      [{ duration: 5 }, 'duration must be 6 or 8'],
      [{ seed: 1 }, 'unexpected parameter: seed'],
    ] as const) {
      const { before, task, taskId } = await run(params);
      expect([task.status, task.error]).toEqual(['failed', message]);
      await expectRefunded(before, taskId);
    }
    expect(fake.createCalls().length).toBe(calls);
  });

  it('busy at submit (429 RESOURCE_EXHAUSTED): re-queued with no error, then completed', async () => {
    fake.submitErrors = [GEMINI_ERRORS.busy, GEMINI_ERRORS.busy];
    const calls = fake.createCalls().length;
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'veo-3-fast', prompt: 'a fox', duration: 6 });
    const taskId = created.body.task_id as string;
    const requeued = await waitFor(
      () => e2e.app.ctx.storage.tasks.byIdForWorker(taskId),
      (row) => fake.createCalls().length - calls >= 1 && row !== undefined,
    );
    expect(['pending', 'processing']).toContain(requeued!.status);
    expect(requeued!.error ?? null).toBeNull();
    const task = await e2e.waitForFinal(taskId);
    expect(task.status).toBe('completed');
    expect(fake.createCalls().length - calls).toBe(3);
    expect(await e2e.balance()).toEqual({ balance: before.balance - VEO_6S, held: 0 });
    await e2e.expectLedgerClean();
  });

  it('an expired video URI (403) is fetched fresh on the next poll: completed', async () => {
    fake.videoScripts = [{ runningPolls: 0, expiredDownloads: 1 }];
    const { before, task } = await run({ duration: 6 });
    expect(task.status).toBe('completed');
    expect((await e2e.download(task.result!.video_url)).bytes.equals(FAKE_MP4)).toBe(true);
    expect(await e2e.balance()).toEqual({ balance: before.balance - VEO_6S, held: 0 });
    await e2e.expectLedgerClean();
  });

  it('a video URI that stays expired: failed as upstream with an exact refund', async () => {
    fake.videoScripts = [{ runningPolls: 0, expiredDownloads: 100 }];
    const { before, task, taskId } = await run({});
    expect([task.status, task.error]).toEqual(['failed', TASK_FAILURE.upstream]);
    await expectRefunded(before, taskId);
  });
});

describe('gemini end to end: route fallback', () => {
  let a: FakeGemini;
  let b: FakeGemini;
  let e2e: ProviderE2E;

  beforeAll(async () => {
    a = await new FakeGemini('key-a').start();
    b = await new FakeGemini('key-b').start();
    e2e = await startProviderE2E({
      providers: {
        providers: { gemini_a: entry(a), gemini_b: entry(b) },
        routes: {
          'veo-3-fast': [
            { provider: 'gemini_a', model: VEO },
            { provider: 'gemini_b', model: VEO },
          ],
        },
      },
    });
  });
  afterAll(async () => {
    await e2e?.dispose();
    await a?.close();
    await b?.close();
  });
  beforeEach(() => reset(a, b));

  it.each([
    ['503 UNAVAILABLE', GEMINI_ERRORS.unavailable],
    ['500 INTERNAL', GEMINI_ERRORS.internal],
    ['429 RESOURCE_EXHAUSTED', GEMINI_ERRORS.busy],
  ])('the first route answers %s: the task completes on the second', async (_name, error) => {
    a.submitErrors = [error];
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'veo-3-fast', prompt: 'a fox', duration: 6 });
    const task = await e2e.waitForFinal(created.body.task_id);
    expect(task.status).toBe('completed');
    expect((await e2e.taskRow(created.body.task_id)).provider).toBe('gemini_b');
    expect(b.createCalls().at(-1)!.headers['x-goog-api-key']).toBe('key-b');
    expect(await e2e.balance()).toEqual({ balance: before.balance - VEO_6S, held: 0 });
    await e2e.expectLedgerClean();
  });

  it('both routes overloaded: failed as overload with an exact refund', async () => {
    a.submitErrors = [GEMINI_ERRORS.unavailable];
    b.submitErrors = [GEMINI_ERRORS.unavailable];
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'veo-3-fast', prompt: 'a fox', duration: 6 });
    const task = await e2e.waitForFinal(created.body.task_id);
    expect([task.status, task.error]).toEqual(['failed', TASK_FAILURE.overload]);
    expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
    await e2e.expectLedgerClean();
  });
});

describe('gemini end to end: deadlines (no cancel, no lookup in the Gemini API)', () => {
  let fake: FakeGemini;
  let e2e: ProviderE2E;

  beforeAll(async () => {
    fake = await new FakeGemini().start();
    e2e = await startProviderE2E({
      providers: {
        providers: { gemini: entry(fake) },
        routes: { 'veo-3-fast': { provider: 'gemini', model: VEO } },
      },
      config: { providerTimeoutMs: 1_500 },
    });
  });
  afterAll(async () => {
    await e2e?.dispose();
    await fake?.close();
  });
  beforeEach(() => reset(fake));

  it('an operation that never finishes: timeout and an exact refund; nothing to cancel upstream', async () => {
    fake.videoScripts = [{ never: true }];
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'veo-3-fast', prompt: 'a slow fox' });
    const task = await e2e.waitForFinal(created.body.task_id);
    expect([task.status, task.error]).toEqual(['failed', TASK_FAILURE.timeout]);
    expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
    expect(fake.server.calls(/\/operations\//).length).toBeGreaterThan(0);
    expect(fake.cancelCalls()).toHaveLength(0);
    await e2e.expectLedgerClean();
  });

  it('a create call dropped after the operation was made: exactly one operation, refunded at the deadline', async () => {
    fake.videoScripts = [{ dropCreate: true }];
    const calls = fake.createCalls().length;
    const operations = fake.operations.size;
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'veo-3-fast', prompt: 'a lost fox' });
    const task = await e2e.waitForFinal(created.body.task_id);
    expect(task.status).toBe('failed');
    expect(task.error).toBe(TASK_FAILURE.timeout);
    // Never submitted twice: one create call, one operation at the fake.
    expect(fake.createCalls().length - calls).toBe(1);
    expect(fake.operations.size - operations).toBe(1);
    expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
    await e2e.expectLedgerClean();
  });
});
