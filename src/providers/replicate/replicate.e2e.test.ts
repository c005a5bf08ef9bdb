// The whole path through gengate with a Replicate provider: POST /generate → the replicate adapter →
// the Replicate fake → our object storage → the ledger → the client's webhook, with Replicate's
// signed `completed` webhooks reaching POST /hooks/replicate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureMessage } from '../../domain/tasks/failures.js';
import { TASK_FAILURE } from '../../domain/tasks/states.js';
import { FAKE_MP4, FAKE_PNG, type FakeReply } from '../../testing/fakes/fake-server.js';
import { type FakeJob, FakeReplicate, type ReplicateScript } from '../../testing/fakes/replicate.js';
import {
  clientHooksFor,
  ledgerKinds,
  type ProviderE2E,
  startProviderE2E,
  waitFor,
} from '../../testing/provider-e2e.js';

const SECRET = `whsec_${Buffer.from('gengate-e2e-replicate-signing-key').toString('base64')}`;
const VEO = 'google/veo-3-fast';
const FLUX = 'black-forest-labs/flux-1.1-pro';
/** veo-3-fast: 22 RUB per second × 6 s; flux-1-1-pro: 4.5 RUB a shot (micro-rubles). */
const VEO_6S_PRICE = 132_000_000;
const FLUX_PRICE = 4_500_000;

function providersFile(fakes: Record<string, FakeReplicate>, routes: Record<string, unknown>) {
  return {
    providers: Object.fromEntries(
      Object.entries(fakes).map(([name, fake]) => [
        name,
        { type: 'replicate', base_url: fake.baseUrl, api_key: fake.apiKey, webhook_secret: SECRET },
      ]),
    ),
    routes,
  };
}

function problem(
  status: number,
  title: string,
  detail: string,
  extra: Record<string, unknown> = {},
): FakeReply {
  return { status, json: { title, detail, status, ...extra } };
}

/** The prediction created for a task (our task id travels in its webhook URL). */
function jobOf(fake: FakeReplicate, taskId: string): FakeJob | undefined {
  return [...fake.jobs.values()].find((job) => job.webhook?.includes(`task=${taskId}&`));
}

describe('replicate end to end', () => {
  let fake: FakeReplicate;
  let e2e: ProviderE2E;

  beforeAll(async () => {
    fake = await new FakeReplicate().start();
    fake.webhookSecret = SECRET;
    e2e = await startProviderE2E({
      providers: providersFile(
        { replicate: fake },
        {
          'veo-3-fast': { provider: 'replicate', model: VEO },
          'flux-1-1-pro': { provider: 'replicate', model: FLUX },
          'sora-2': { provider: 'replicate', model: 'openai/sora-2' },
        },
      ),
      // veo-3-fast costs 132 RUB a task here: room for every scenario of this file.
      balanceRub: 100_000,
    });
  });
  afterAll(async () => {
    await e2e?.dispose();
    await fake?.close();
  });

  async function runVeo(
    script: ReplicateScript = {},
    createErrors: FakeReply[] = [],
    params: Record<string, unknown> = {},
  ) {
    fake.next(script);
    fake.createErrors.splice(0, fake.createErrors.length, ...createErrors);
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'veo-3-fast', prompt: 'a fox', duration: 6, ...params });
    // 202: accepted for asynchronous generation (200 in older builds of the route).
    expect([200, 202]).toContain(created.status);
    const task = await e2e.waitForFinal(created.body.task_id);
    fake.scripts.length = 0;
    return { before, task, taskId: created.body.task_id as string };
  }

  it('starting → processing → succeeded: our copy of the video, the price captured, one client webhook', async () => {
    const { before, task, taskId } = await runVeo(
      { statuses: ['starting', 'processing', 'succeeded'], stepMs: 150 },
      [],
      { aspect_ratio: '9:16', start_image_url: 'https://img.example/a.png' },
    );
    expect(task.status).toBe('completed');
    const videoUrl: string = task.result!.video_url;
    expect(videoUrl.startsWith(`${e2e.origin}/objects/`)).toBe(true);
    const file = await e2e.download(videoUrl);
    expect(file.status).toBe(200);
    expect(file.bytes.equals(FAKE_MP4)).toBe(true);
    const row = await e2e.taskRow(taskId);
    expect(Number(row.hold_amount)).toBe(VEO_6S_PRICE);
    expect(Number(row.cost)).toBe(VEO_6S_PRICE);
    expect(await e2e.balance()).toEqual({ balance: before.balance - VEO_6S_PRICE, held: 0 });
    // Replicate saw our key, the official model endpoint, the mapped input and our callback URL.
    const create = fake.creates().at(-1)!;
    expect(create.path).toBe('/v1/models/google/veo-3-fast/predictions');
    expect(create.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(create.json).toMatchObject({
      input: { prompt: 'a fox', duration: 6, aspect_ratio: '9:16', image: 'https://img.example/a.png' },
      webhook_events_filter: ['completed'],
    });
    expect(create.json.webhook).toMatch(new RegExp(`^${e2e.origin}/hooks/replicate\\?task=${taskId}&token=`));
    expect(row.provider_job_id).toBe(jobOf(fake, taskId)!.id);
    const hooks = await waitFor(
      () => clientHooksFor(e2e, taskId),
      (h) => h.length >= 1,
    );
    expect(hooks.map((h) => JSON.parse(h.body).status)).toEqual(['completed']);
    await e2e.expectLedgerClean();
  });

  it('an image (flux-1-1-pro) finished within Prefer: wait is completed from the create answer', async () => {
    fake.next({ statuses: ['starting', 'succeeded'], stepMs: 50 });
    const before = await e2e.balance();
    const created = await e2e.generate({
      model_name: 'flux-1-1-pro',
      prompt: 'a red apple',
      aspect_ratio: '3:4',
    });
    const taskId = created.body.task_id;
    const task = await e2e.waitForFinal(taskId);
    expect(task.status).toBe('completed');
    expect((await e2e.download(task.result!.image_url)).bytes.equals(FAKE_PNG)).toBe(true);
    const create = fake.creates().at(-1)!;
    expect(create.headers.prefer).toBe('wait=30');
    expect(create.json.input).toEqual({ prompt: 'a red apple', aspect_ratio: '3:4' });
    const job = jobOf(fake, taskId)!;
    expect((await e2e.taskRow(taskId)).provider_job_id).toBe(job.id);
    // No poll was needed: the create answer carried the file.
    expect(fake.server.calls(new RegExp(`^/v1/predictions/${job.id}$`), 'GET')).toHaveLength(0);
    expect(await e2e.balance()).toEqual({ balance: before.balance - FLUX_PRICE, held: 0 });
    await e2e.expectLedgerClean();
  });

  const failures: Array<[string, ReplicateScript, FakeReply[], string]> = [
    [
      'rejected (prediction failed: NSFW content detected)',
      {
        statuses: ['starting', 'failed'],
        error: 'NSFW content detected. Try running it again, or try a different prompt.',
      },
      [],
      TASK_FAILURE.rejected,
    ],
    [
      'billing (402 Insufficient credit)',
      {},
      [
        problem(
          402,
          'Insufficient credit',
          'You have insufficient credit to run this model. Go to https://replicate.com/account/billing#billing to purchase credit.',
        ),
      ],
      TASK_FAILURE.billing,
    ],
    [
      'overload (500 at create, no other route)',
      {},
      [problem(500, 'Internal server error', 'Something went wrong')],
      TASK_FAILURE.overload,
    ],
    [
      'params (422 on input.aspect_ratio)',
      {},
      [
        problem(
          422,
          'Input validation failed',
          '- input.aspect_ratio: aspect_ratio must be one of the following: "16:9"\n',
          {
            invalid_fields: [
              {
                type: 'enum',
                field: 'input.aspect_ratio',
                description: 'aspect_ratio must be one of the following: "16:9"',
              },
            ],
          },
        ),
      ],
      failureMessage({ kind: 'params', message: 'invalid aspect_ratio' }),
    ],
    [
      'auth (401 Unauthenticated)',
      {},
      [problem(401, 'Unauthenticated', 'You did not pass a valid authentication token')],
      TASK_FAILURE.upstream,
    ],
    [
      'upstream (prediction failed with an unexplained error)',
      { statuses: ['processing', 'failed'], error: 'CUDA error: out of memory' },
      [],
      TASK_FAILURE.upstream,
    ],
    [
      'upstream (prediction canceled upstream)',
      { statuses: ['starting', 'canceled'] },
      [],
      TASK_FAILURE.upstream,
    ],
  ];
  for (const [name, script, createErrors, message] of failures) {
    it(`fails as ${name} with the exact message and an exact refund`, async () => {
      const { before, task } = await runVeo({ stepMs: 40, ...script }, createErrors);
      expect(task.status).toBe('failed');
      expect(task.error).toBe(message);
      expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
      await e2e.expectLedgerClean();
    });
  }

  it('refuses what the model cannot take (a seed for Sora) before any call to Replicate', async () => {
    const calls = fake.creates().length;
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'sora-2', prompt: 'a fox', duration: 4, seed: 5 });
    const task = await e2e.waitForFinal(created.body.task_id);
    expect([task.status, task.error]).toEqual(['failed', 'unexpected parameter: seed']);
    expect(fake.creates().length).toBe(calls);
    expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
    await e2e.expectLedgerClean();
  });

  it('busy at submit (429 throttled): re-queued without an error, then completes', async () => {
    fake.next({ stepMs: 30 });
    const throttled = problem(
      429,
      'Request was throttled',
      'Request was throttled. Expected available in 1 seconds.',
    );
    if (typeof throttled === 'object') throttled.headers = { 'retry-after': '1' };
    fake.createErrors.push(throttled);
    const created = await e2e.generate({ model_name: 'veo-3-fast', prompt: 'a fox', duration: 6 });
    const taskId = created.body.task_id;
    const requeued = await waitFor(
      () => e2e.taskRow(taskId),
      (row) => Number(row.requeues) >= 1 || row.status === 'completed',
    );
    expect(requeued.error ?? null).toBeNull();
    expect(['pending', 'processing', 'completed']).toContain(requeued.status);
    const task = await e2e.waitForFinal(taskId);
    expect(task.status).toBe('completed');
    expect(task.error ?? null).toBeNull();
    await e2e.expectLedgerClean();
  });

  it('a result URL that answers 403 (expired) every time: failed as upstream, exact refund', async () => {
    const { before, task } = await runVeo({
      statuses: ['starting', 'succeeded'],
      stepMs: 30,
      expired: 'always',
    });
    expect([task.status, task.error]).toEqual(['failed', TASK_FAILURE.upstream]);
    expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
    await e2e.expectLedgerClean();
  });

  it('a result URL that answers 403 once: the runner polls again for a fresh URL and completes', async () => {
    const { task } = await runVeo({ statuses: ['starting', 'succeeded'], stepMs: 30, expired: 'once' });
    expect(task.status).toBe('completed');
    expect((await e2e.download(task.result!.video_url)).bytes.equals(FAKE_MP4)).toBe(true);
    await e2e.expectLedgerClean();
  });

  it('the create answer is lost after Replicate made the prediction: its signed webhook names it, one prediction, completed', async () => {
    const calls = fake.creates().length;
    const jobs = fake.jobs.size;
    const before = await e2e.balance();
    const { task, taskId } = await runVeo({
      drop: true,
      statuses: ['starting', 'processing', 'succeeded'],
      stepMs: 150,
    });
    expect(task.status).toBe('completed');
    expect(fake.creates().length - calls).toBe(1);
    expect(fake.jobs.size - jobs).toBe(1);
    const job = jobOf(fake, taskId)!;
    expect((await e2e.taskRow(taskId)).provider_job_id).toBe(job.id);
    expect(fake.deliveries.filter((d) => d.url === job.webhook).map((d) => d.status)).toEqual([200]);
    expect(await e2e.balance()).toEqual({ balance: before.balance - VEO_6S_PRICE, held: 0 });
    await e2e.expectLedgerClean();
  });

  it('the create answer is lost and no webhook comes: reconcile finds the prediction by the task in its webhook URL', async () => {
    fake.listShowsWebhook = true;
    try {
      const calls = fake.creates().length;
      const { task, taskId } = await runVeo({
        drop: true,
        statuses: ['starting', 'succeeded'],
        stepMs: 50,
        webhookDeliveries: 0,
      });
      expect(task.status).toBe('completed');
      expect(fake.creates().length - calls).toBe(1);
      expect((await e2e.taskRow(taskId)).provider_job_id).toBe(jobOf(fake, taskId)!.id);
      expect(fake.server.calls(/^\/v1\/predictions$/, 'GET').length).toBeGreaterThanOrEqual(1);
      await e2e.expectLedgerClean();
    } finally {
      fake.listShowsWebhook = false;
    }
  });

  it('a duplicate Replicate webhook: one completion, one capture, one client webhook', async () => {
    const before = await e2e.balance();
    const { task, taskId } = await runVeo({
      statuses: ['starting', 'processing', 'succeeded'],
      stepMs: 60,
      webhookDeliveries: 2,
    });
    expect(task.status).toBe('completed');
    const job = jobOf(fake, taskId)!;
    await waitFor(
      () => fake.deliveries.filter((d) => d.url === job.webhook).length,
      (n) => n >= 2,
    );
    // The same signed delivery twice more after completion.
    await fake.deliver(job, 2);
    expect(fake.deliveries.filter((d) => d.url === job.webhook).map((d) => d.status)).toEqual([
      200, 200, 200, 200,
    ]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await e2e.taskRow(taskId)).status).toBe('completed');
    expect((await ledgerKinds(e2e, taskId)).filter((k) => k === 'capture')).toHaveLength(1);
    expect(await e2e.balance()).toEqual({ balance: before.balance - VEO_6S_PRICE, held: 0 });
    await waitFor(
      () => clientHooksFor(e2e, taskId).length,
      (n) => n >= 1,
    );
    expect(clientHooksFor(e2e, taskId)).toHaveLength(1);
    await e2e.expectLedgerClean();
  });

  it('a webhook with a forged signature is refused (401) and changes nothing', async () => {
    const { task, taskId } = await runVeo({ statuses: ['starting', 'succeeded'], stepMs: 30 });
    expect(task.status).toBe('completed');
    const job = jobOf(fake, taskId)!;
    const res = await fetch(job.webhook!, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'msg_forged',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}`,
      },
      body: JSON.stringify(fake.view(job, true)),
    });
    expect(res.status).toBe(401);
    expect((await ledgerKinds(e2e, taskId)).filter((k) => k === 'capture')).toHaveLength(1);
    await e2e.expectLedgerClean();
  });
});

describe('replicate end to end: route fallback', () => {
  let first: FakeReplicate;
  let second: FakeReplicate;
  let e2e: ProviderE2E;

  beforeAll(async () => {
    first = await new FakeReplicate().start();
    second = await new FakeReplicate('r8_second_key').start();
    second.webhookSecret = SECRET;
    e2e = await startProviderE2E({
      providers: providersFile(
        { rep_a: first, rep_b: second },
        {
          'veo-3-fast': [
            { provider: 'rep_a', model: VEO },
            { provider: 'rep_b', model: VEO },
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

  it('the first route answers 503 at create: the task completes on the second', async () => {
    first.createErrors.push({
      status: 503,
      body: 'upstream connect error or disconnect/reset before headers',
    });
    second.next({ statuses: ['starting', 'succeeded'], stepMs: 40 });
    const created = await e2e.generate({ model_name: 'veo-3-fast', prompt: 'a fox', duration: 6 });
    const task = await e2e.waitForFinal(created.body.task_id);
    expect(task.status).toBe('completed');
    expect((await e2e.taskRow(created.body.task_id)).provider).toBe('rep_b');
    expect(first.creates()).toHaveLength(1);
    expect(first.jobs.size).toBe(0);
    expect(second.jobs.size).toBe(1);
    expect(second.creates()[0].headers.authorization).toBe('Bearer r8_second_key');
    // The callback URL handed to the second provider names that provider.
    expect(second.creates()[0].json.webhook).toContain('/hooks/rep_b?');
    await e2e.expectLedgerClean();
  });
});

describe('replicate end to end: deadlines', () => {
  let fake: FakeReplicate;
  let e2e: ProviderE2E;

  beforeAll(async () => {
    fake = await new FakeReplicate().start();
    fake.webhookSecret = SECRET;
    e2e = await startProviderE2E({
      providers: providersFile({ replicate: fake }, { 'veo-3-fast': { provider: 'replicate', model: VEO } }),
      config: { providerTimeoutMs: 1_500 },
    });
  });
  afterAll(async () => {
    await e2e?.dispose();
    await fake?.close();
  });

  it('a prediction that keeps processing: timeout, exact refund, and the cancel sent to Replicate', async () => {
    fake.next({ statuses: ['starting', 'processing'], stepMs: 50 });
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'veo-3-fast', prompt: 'a fox', duration: 6 });
    const taskId = created.body.task_id;
    const task = await e2e.waitForFinal(taskId);
    expect([task.status, task.error]).toEqual(['failed', TASK_FAILURE.timeout]);
    expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
    const job = jobOf(fake, taskId)!;
    await waitFor(
      () => fake.cancels().length,
      (n) => n >= 1,
    );
    expect(fake.cancels().map((c) => c.path)).toEqual([`/v1/predictions/${job.id}/cancel`]);
    expect(fake.statusOf(job)).toBe('canceled');
    await e2e.expectLedgerClean();
  });

  it('a lost create answer, no webhook, and a list without webhooks: failed at the deadline with an exact refund, one create', async () => {
    const calls = fake.creates().length;
    const jobs = fake.jobs.size;
    fake.next({ drop: true, statuses: ['starting', 'processing'], webhookDeliveries: 0 });
    const before = await e2e.balance();
    const created = await e2e.generate({ model_name: 'veo-3-fast', prompt: 'a fox', duration: 6 });
    const task = await e2e.waitForFinal(created.body.task_id);
    expect([task.status, task.error]).toEqual(['failed', TASK_FAILURE.timeout]);
    expect(fake.creates().length - calls).toBe(1);
    expect(fake.jobs.size - jobs).toBe(1);
    expect(await e2e.balance()).toEqual({ balance: before.balance, held: 0 });
    await e2e.expectLedgerClean();
  });
});
