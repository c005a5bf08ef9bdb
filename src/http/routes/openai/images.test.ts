// POST /v1/images/generations with the embedded runner and the simulator: the OpenAI
// answer shapes, the field mapping, every refusal writing nothing, failed tasks refunded and mapped
// to a fitting status, the 504 with its task_id, and Idempotency-Key replays (also after a 504)
// that never create a second task or charge.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SyncImageService } from '../../../services/openai/sync-image.js';
import type { TestKey } from '../../../testing/app.js';
import { ENGINES } from '../../../testing/db.js';
import {
  balanceOf,
  createdRows,
  createTaskTestApp,
  expectLedgerClean,
  ledgerOf,
  type TaskTestApp,
} from '../../../testing/tasks.js';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const FLUX_PRICE = 4_500_000; // flux-1-1-pro: 4.5 RUB per shot, in micro-rubles

function post(app: TaskTestApp, key: TestKey, body: unknown, headers: Record<string, string> = {}) {
  return app.http.inject({
    method: 'POST',
    url: '/v1/images/generations',
    headers: { ...key.auth, 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function objectBytes(app: TaskTestApp, url: string): Promise<Buffer> {
  const res = await app.http.inject({ method: 'GET', url: new URL(url).pathname });
  expect(res.statusCode).toBe(200);
  return res.rawPayload;
}

async function tasksOf(app: TaskTestApp, key: TestKey) {
  return app.ctx.storage.db
    .selectFrom('tasks')
    .selectAll()
    .where('key_id', '=', key.keyId)
    .orderBy('created_at')
    .execute();
}

describe('POST /v1/images/generations', () => {
  let app: TaskTestApp;
  beforeAll(async () => {
    app = await createTaskTestApp({ config: { syncImageWaitMs: 10_000 } });
  });
  afterAll(async () => {
    await expectLedgerClean(app);
    await app.dispose();
  });

  it('answers {created, data: [{url}]} once the image exists; the URL serves the PNG; the price is captured', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = await balanceOf(app, key);
    const res = await post(app, key, { model: 'flux-1-1-pro', prompt: 'a red fox in snow' });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['created', 'data']);
    expect(body.created).toBe(Math.floor(body.created));
    expect(Math.abs(body.created - Date.now() / 1000)).toBeLessThan(60);
    expect(body.data).toHaveLength(1);
    expect(Object.keys(body.data[0])).toEqual(['url']);
    expect((await objectBytes(app, body.data[0].url)).subarray(0, 8)).toEqual(PNG);
    expect(await balanceOf(app, key)).toEqual({ balance: before.balance - FLUX_PRICE, held: 0 });
    expect(await ledgerOf(app, key)).toEqual([
      ['topup', 100_000_000],
      ['hold', FLUX_PRICE],
      ['capture', FLUX_PRICE],
      ['release', 0],
    ]);
    const [task] = await tasksOf(app, key);
    expect([task.status, task.model_id]).toEqual(['completed', 'flux-1-1-pro']);
  });

  it('response_format b64_json carries the bytes of the stored image', async () => {
    const key = await app.newKey();
    const res = await post(app, key, {
      model: 'seedream-4',
      prompt: 'a lighthouse',
      response_format: 'b64_json',
    });
    expect(res.statusCode, res.body).toBe(200);
    const [datum] = res.json().data;
    expect(Object.keys(datum)).toEqual(['b64_json']);
    const bytes = Buffer.from(datum.b64_json, 'base64');
    expect(bytes.subarray(0, 8)).toEqual(PNG);
    const [task] = await tasksOf(app, key);
    expect(bytes).toEqual(await objectBytes(app, JSON.parse(task.result as string).image_url));
  });

  it('maps size to aspect_ratio (pixels reduced by the gcd) and extra_body to native params', async () => {
    const key = await app.newKey();
    const res = await post(app, key, {
      model: 'flux-1-1-pro',
      prompt: 'a tall tower',
      size: '1024x1536',
      extra_body: { seed: 42, webhook_url: 'http://127.0.0.1:9/hook' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const [task] = await tasksOf(app, key);
    expect(JSON.parse(task.params)).toEqual({
      model_name: 'flux-1-1-pro',
      prompt: 'a tall tower',
      aspect_ratio: '2:3',
      seed: 42,
      webhook_url: 'http://127.0.0.1:9/hook',
    });
    const result = JSON.parse(task.result as string);
    expect(result.width).toBeLessThan(result.height);
  });

  it('native params at the top level work too (how the SDK sends extra params)', async () => {
    const key = await app.newKey();
    const res = await post(app, key, { model: 'nano-banana', prompt: 'p', seed: 9, user: 'end-user-1' });
    expect(res.statusCode, res.body).toBe(200);
    const [task] = await tasksOf(app, key);
    expect(JSON.parse(task.params)).toEqual({
      model_name: 'nano-banana',
      prompt: 'p',
      seed: 9,
      aspect_ratio: '1:1',
    });
  });

  it('without model the default is gpt-image-1, and its own quality option passes', async () => {
    const key = await app.newKey();
    const res = await post(app, key, { prompt: 'p', quality: 'low', size: '1536x1024' });
    expect(res.statusCode, res.body).toBe(200);
    const [task] = await tasksOf(app, key);
    expect(JSON.parse(task.params)).toEqual({
      model_name: 'gpt-image-1',
      prompt: 'p',
      quality: 'low',
      aspect_ratio: '3:2',
    });
  });

  const refusals: {
    name: string;
    body: unknown;
    status: number;
    code: string;
    param: string | null;
    message?: unknown;
  }[] = [
    {
      name: 'an unsupported ratio',
      body: { model: 'flux-1-1-pro', prompt: 'p', size: '1024x1792' },
      status: 422,
      code: 'invalid_parameter',
      param: 'size',
      message:
        'invalid aspect_ratio: must be one of 1:1, 16:9, 9:16, 4:3, 3:4, 3:2, 2:3, 21:9 (size → aspect_ratio)',
    },
    {
      name: 'n other than 1',
      body: { model: 'flux-1-1-pro', prompt: 'p', n: 2 },
      status: 422,
      code: 'invalid_parameter',
      param: 'n',
      message: 'n must be 1: this gateway generates one image per request',
    },
    {
      name: 'a field that is neither OpenAI nor native',
      body: { model: 'flux-1-1-pro', prompt: 'p', colour: 'red' },
      status: 422,
      code: 'invalid_parameter',
      param: 'colour',
      message: 'unexpected parameter: colour',
    },
    {
      name: 'an invalid native param in extra_body',
      body: { model: 'flux-1-1-pro', prompt: 'p', extra_body: { seed: -1 } },
      status: 422,
      code: 'invalid_parameter',
      param: 'extra_body.seed',
    },
    {
      name: 'a missing prompt',
      body: { model: 'flux-1-1-pro' },
      status: 400,
      code: 'missing_parameter',
      param: 'prompt',
    },
    {
      name: 'a video model',
      body: { model: 'kling-2-1', prompt: 'p' },
      status: 404,
      code: 'model_not_found',
      param: 'model',
    },
    {
      name: 'a text model',
      body: { model: 'gpt-4o-mini', prompt: 'p' },
      status: 404,
      code: 'model_not_found',
      param: 'model',
    },
    {
      name: 'an internal variant',
      body: { model: 'seedance-2:1080p', prompt: 'p' },
      status: 404,
      code: 'model_not_found',
      param: 'model',
    },
    { name: 'malformed JSON', body: '{"model": ', status: 400, code: 'invalid_json', param: null },
    {
      name: 'stream: true',
      body: { model: 'flux-1-1-pro', prompt: 'p', stream: true },
      status: 422,
      code: 'invalid_parameter',
      param: 'stream',
    },
  ];

  it.for(refusals)(
    '$name: $status $code, no task and no ledger entry',
    async ({ body, status, code, param, message }) => {
      const key = await app.newKey();
      const rows = await createdRows(app, key);
      const ledger = await ledgerOf(app, key);
      const res = await post(app, key, body);
      expect(res.statusCode, res.body).toBe(status);
      expect(res.json().error).toMatchObject({ code, param, ...(message ? { message } : {}) });
      expect(await createdRows(app, key)).toEqual(rows);
      expect(await ledgerOf(app, key)).toEqual(ledger);
    },
  );

  it('402 when the balance is below the price: no task, no hold', async () => {
    const key = await app.newKey({ balanceRub: 1 });
    const res = await post(app, key, { model: 'flux-1-1-pro', prompt: 'p' });
    expect(res.statusCode).toBe(402);
    expect(res.json().error.code).toBe('insufficient_balance');
    expect(await createdRows(app, key)).toEqual({ tasks: 0, holds: 0, idempotency: 0 });
    expect(await ledgerOf(app, key)).toEqual([['topup', 1_000_000]]);
  });

  it.for([
    {
      directive: 'reject',
      status: 400,
      code: 'content_policy_violation',
      message: 'Provider rejected prompt: contains restricted content',
    },
    {
      directive: 'params',
      status: 400,
      code: 'upstream_rejected_request',
      message: 'Parameter validation failed: invalid aspect_ratio for this provider',
    },
    { directive: 'billing', status: 502, code: 'upstream_error', message: 'Provider billing error' },
    {
      directive: 'overload',
      status: 503,
      code: 'upstream_overloaded',
      message: 'Service temporarily unavailable (code E-294, high load)',
    },
  ])(
    'a task failed with [sim:fail=$directive] answers $status $code with its task_id; the hold is back',
    async ({ directive, status, code, message }) => {
      const key = await app.newKey({ balanceRub: 50 });
      const before = await balanceOf(app, key);
      const res = await post(app, key, { model: 'flux-1-1-pro', prompt: `p [sim:fail=${directive}]` });
      expect(res.statusCode).toBe(status);
      const [task] = await tasksOf(app, key);
      expect(res.json()).toEqual({
        error: { message, type: expect.any(String), code, param: null, task_id: task.id },
      });
      if (directive === 'overload') expect(res.headers['retry-after']).toBe('10');
      expect(task.status).toBe('failed');
      expect(await balanceOf(app, key)).toEqual(before);
      expect(await ledgerOf(app, key)).toEqual([
        ['topup', 50_000_000],
        ['hold', FLUX_PRICE],
        ['capture', 0],
        ['release', FLUX_PRICE],
      ]);
    },
  );

  it('Idempotency-Key: a retry replays the final answer with the same URL; no second task or charge', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const body = { model: 'flux-1-1-pro', prompt: 'once only' };
    const first = await post(app, key, body, { 'idempotency-key': 'image-key-0001' });
    expect(first.statusCode).toBe(200);
    const rows = await createdRows(app, key);
    const balance = await balanceOf(app, key);
    expect(rows).toEqual({ tasks: 1, holds: 1, idempotency: 1 });
    const again = await post(app, key, body, { 'idempotency-key': 'image-key-0001' });
    expect([again.statusCode, again.headers['idempotent-replayed']]).toEqual([200, 'true']);
    expect(again.json()).toEqual(first.json());
    expect(await createdRows(app, key)).toEqual(rows);
    expect(await balanceOf(app, key)).toEqual(balance);

    const other = await post(
      app,
      key,
      { ...body, prompt: 'another' },
      { 'idempotency-key': 'image-key-0001' },
    );
    expect([other.statusCode, other.json().error.code]).toEqual([422, 'idempotency_key_reused']);
    expect(await createdRows(app, key)).toEqual(rows);
  });

  it('Idempotency-Key: a refused prompt (4xx) is stored and replayed; a 5xx is not, so a retry tries again', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const rejected = { model: 'flux-1-1-pro', prompt: 'no [sim:fail=reject]' };
    const first = await post(app, key, rejected, { 'idempotency-key': 'image-key-0002' });
    expect(first.statusCode).toBe(400);
    const again = await post(app, key, rejected, { 'idempotency-key': 'image-key-0002' });
    expect([again.statusCode, again.headers['idempotent-replayed']]).toEqual([400, 'true']);
    expect(again.json()).toEqual(first.json());
    expect((await createdRows(app, key)).tasks).toBe(1);

    const overloaded = { model: 'flux-1-1-pro', prompt: 'busy [sim:fail=overload]' };
    const a = await post(app, key, overloaded, { 'idempotency-key': 'image-key-0003' });
    const b = await post(app, key, overloaded, { 'idempotency-key': 'image-key-0003' });
    expect([a.statusCode, b.statusCode, b.headers['idempotent-replayed']]).toEqual([503, 503, undefined]);
    expect(a.json().error.task_id).not.toBe(b.json().error.task_id);
    expect((await createdRows(app, key)).tasks).toBe(3);
    expect(await balanceOf(app, key)).toEqual({ balance: 100_000_000, held: 0 });
  });

  it('a concurrent duplicate waits, then gets 409 idempotency_in_progress; once done it replays the URL', async () => {
    const service = app.ctx.syncImages;
    app.ctx.syncImages = new SyncImageService(
      { ...app.ctx },
      { waitMs: app.config.syncImageWaitMs, inProgressWaitMs: 150, pollMs: 20 },
    );
    try {
      const key = await app.newKey();
      const body = { model: 'flux-1-1-pro', prompt: 'slow [sim:delay=900]' };
      const original = post(app, key, body, { 'idempotency-key': 'image-key-0004' });
      for (let i = 0; i < 100 && (await createdRows(app, key)).tasks === 0; i++)
        await new Promise((r) => setTimeout(r, 10));
      const duplicate = await post(app, key, body, { 'idempotency-key': 'image-key-0004' });
      expect(duplicate.statusCode).toBe(409);
      expect(duplicate.json().error.code).toBe('idempotency_in_progress');
      expect(duplicate.headers['retry-after']).toBe('1');
      const done = await original;
      expect(done.statusCode).toBe(200);
      const replay = await post(app, key, body, { 'idempotency-key': 'image-key-0004' });
      expect([replay.statusCode, replay.headers['idempotent-replayed']]).toEqual([200, 'true']);
      expect(replay.json()).toEqual(done.json());
      expect(await createdRows(app, key)).toEqual({ tasks: 1, holds: 1, idempotency: 1 });
    } finally {
      app.ctx.syncImages = service;
    }
  });
});

// The claim, its completion and the take-over after a 504 are storage contracts: both engines.
describe.each(ENGINES)('POST /v1/images/generations past SYNC_IMAGE_WAIT_MS on %s', (engine) => {
  let app: TaskTestApp;
  beforeAll(async () => {
    app = await createTaskTestApp({ engine, config: { syncImageWaitMs: 150 } });
  });
  afterAll(async () => {
    await expectLedgerClean(app);
    await app.dispose();
  });

  it('504 upstream_timeout with the task_id to poll; the task still completes and is charged once', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const res = await post(app, key, { model: 'flux-1-1-pro', prompt: 'slow [sim:delay=500]' });
    expect(res.statusCode).toBe(504);
    const [task] = await tasksOf(app, key);
    expect(res.json()).toEqual({
      error: {
        message: `The image is not ready after 0.2 s. It is still being generated: poll GET /tasks/${task.id}`,
        type: 'api_error',
        code: 'upstream_timeout',
        param: null,
        task_id: task.id,
      },
    });
    // Without an Idempotency-Key an automatic retry would start a second, separately charged task.
    expect(res.headers['x-should-retry']).toBe('false');
    const final = await app.ctx.tasks.waitForFinal(key.accountId, task.id, 5_000);
    expect(final.status).toBe('completed');
    expect(await balanceOf(app, key)).toEqual({ balance: 100_000_000 - FLUX_PRICE, held: 0 });
    expect(await createdRows(app, key)).toEqual({ tasks: 1, holds: 1, idempotency: 0 });
  });

  it('with an Idempotency-Key, retries after a 504 wait for the SAME task and then replay its URL', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const body = { model: 'flux-1-1-pro', prompt: 'slow [sim:delay=700]' };
    const headers = { 'idempotency-key': 'image-retry-0001' };
    const first = await post(app, key, body, headers);
    expect(first.statusCode).toBe(504);
    expect(first.headers['x-should-retry']).toBeUndefined();
    const taskId = first.json().error.task_id;
    expect(first.json().error.message).toContain('or repeat this request with the same Idempotency-Key');

    const answers = [first];
    let last = first;
    for (let i = 0; i < 40 && last.statusCode === 504; i++) {
      last = await post(app, key, body, headers);
      answers.push(last);
    }
    expect(answers.length).toBeGreaterThan(2); // at least one retry also timed out
    for (const timedOut of answers.slice(0, -1)) {
      expect([timedOut.statusCode, timedOut.json().error.task_id]).toEqual([504, taskId]);
    }
    expect([last.statusCode, last.headers['idempotent-replayed']]).toEqual([200, 'true']);
    const url: string = last.json().data[0].url;
    const [task] = await tasksOf(app, key);
    expect([task.id, JSON.parse(task.result as string).image_url]).toEqual([taskId, url]);

    const replay = await post(app, key, body, headers);
    expect([replay.statusCode, replay.json()]).toEqual([200, last.json()]);
    expect(await createdRows(app, key)).toEqual({ tasks: 1, holds: 1, idempotency: 1 });
    expect(await balanceOf(app, key)).toEqual({ balance: 100_000_000 - FLUX_PRICE, held: 0 });
  });

  it('a retry that comes after the task finished gets the final answer at once', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const body = { model: 'flux-1-1-pro', prompt: 'slow [sim:delay=300]', response_format: 'b64_json' };
    const headers = { 'idempotency-key': 'image-retry-0002' };
    const first = await post(app, key, body, headers);
    expect(first.statusCode).toBe(504);
    await app.ctx.tasks.waitForFinal(key.accountId, first.json().error.task_id, 5_000);
    const retry = await post(app, key, body, headers);
    expect(retry.statusCode).toBe(200);
    expect(Buffer.from(retry.json().data[0].b64_json, 'base64').subarray(0, 8)).toEqual(PNG);
    expect(await createdRows(app, key)).toEqual({ tasks: 1, holds: 1, idempotency: 1 });
  });
});

describe.each(ENGINES)('simultaneous image requests with one Idempotency-Key on %s', (engine) => {
  let app: TaskTestApp;
  beforeAll(async () => {
    app = await createTaskTestApp({ engine });
  });
  afterAll(async () => {
    await expectLedgerClean(app);
    await app.dispose();
  });

  it('exactly one task and one charge; every 200 is the same image; the rest are 409', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const body = { model: 'flux-1-1-pro', prompt: 'race [sim:delay=100]' };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => post(app, key, body, { 'idempotency-key': 'image-race-key-1' })),
    );
    const ok = answers.filter((res) => res.statusCode === 200);
    expect(ok.length).toBeGreaterThan(0);
    expect(new Set(ok.map((res) => res.body)).size).toBe(1);
    expect(answers.filter((res) => res.statusCode !== 200).every((res) => res.statusCode === 409)).toBe(true);
    expect(await createdRows(app, key)).toEqual({ tasks: 1, holds: 1, idempotency: 1 });
    expect(await balanceOf(app, key)).toEqual({ balance: 100_000_000 - FLUX_PRICE, held: 0 });
  });
});
