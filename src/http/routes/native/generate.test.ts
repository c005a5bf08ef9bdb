// POST /generate without a running worker: the order of checks, each refusal writing nothing, and
// the hold written together with the pending task.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestKey } from '../../../testing/app.js';
import {
  balanceOf,
  countRows,
  createTaskTestApp,
  expectLedgerClean,
  generate,
  type TaskTestApp,
} from '../../../testing/tasks.js';

const RUB = 1_000_000;
let app: TaskTestApp;
let key: TestKey;

beforeAll(async () => {
  app = await createTaskTestApp({ runner: false, config: { webhookAllowPrivate: false } });
  key = await app.newKey({ balanceRub: 1000 });
  const seedance = (await app.ctx.catalog.get('seedance-2'))!;
  await app.ctx.catalog.upsert({
    ...seedance,
    id: 'unpriced-video',
    priceMicro: null,
    updatedAt: Date.now(),
  });
});

afterAll(async () => {
  await expectLedgerClean(app);
  await app.dispose();
});

/** Sends a request that must be refused, and checks that it wrote no task and no ledger entry. */
async function refused(
  request: () => Promise<{ statusCode: number; json(): any }>,
  status: number,
  code: string,
) {
  const before = await countRows(app);
  const balance = await balanceOf(app, key);
  const res = await request();
  expect({ status: res.statusCode, code: res.json().error?.code }).toEqual({ status, code });
  expect(await countRows(app)).toEqual(before);
  expect(await balanceOf(app, key)).toEqual(balance);
  return res.json().error as { message: string; param: string | null; type: string };
}

const raw =
  (payload: string, contentType = 'application/json', headers: Record<string, string> = {}) =>
  () =>
    app.http.inject({
      method: 'POST',
      url: '/generate',
      headers: { ...key.auth, 'content-type': contentType, ...headers },
      payload,
    });

describe('POST /generate refusals write nothing', () => {
  it('401 without a key', async () => {
    await refused(
      () =>
        app.http.inject({
          method: 'POST',
          url: '/generate',
          payload: { params: { model_name: 'seedance-2' } },
        }),
      401,
      'invalid_api_key',
    );
  });

  it('400 for malformed JSON, an empty body and a body that is not an object', async () => {
    await refused(raw('{"params": {'), 400, 'invalid_json');
    await refused(raw(''), 400, 'invalid_json');
    await refused(raw('[1,2]'), 400, 'invalid_json');
    await refused(
      () => app.http.inject({ method: 'POST', url: '/generate', headers: key.auth }),
      400,
      'invalid_json',
    );
  });

  it('415 for a body that is not JSON', async () => {
    await refused(raw('params=1', 'text/plain'), 415, 'unsupported_media_type');
  });

  it('422 for an unknown top-level field', async () => {
    const error = await refused(
      raw(JSON.stringify({ params: { model_name: 'seedance-2' }, model_name: 'x' })),
      422,
      'unknown_field',
    );
    expect(error.param).toBe('model_name');
  });

  it('422 for a flat body, with a hint to wrap the parameters in params', async () => {
    const hint = 'Put the generation parameters inside "params"';
    const flat = await refused(
      raw(JSON.stringify({ model_name: 'seedance-2', prompt: 'a lighthouse at dawn' })),
      422,
      'unknown_field',
    );
    expect(flat).toMatchObject({ type: 'invalid_request_error', param: 'model_name' });
    expect(flat.message).toBe(
      'Unknown field: model_name. Put the generation parameters inside "params": {"params": {"model_name": …}}',
    );
    // Whichever flat parameter comes first is named, and the hint shows where it goes.
    const prompt = await refused(
      raw(JSON.stringify({ prompt: 'a lighthouse at dawn', model_name: 'seedance-2' })),
      422,
      'unknown_field',
    );
    expect(prompt.param).toBe('prompt');
    expect(prompt.message).toBe(
      'Unknown field: prompt. Put the generation parameters inside "params": {"params": {"model_name": …, "prompt": …}}',
    );
    // model_name beside params is hinted too; another stray field beside params is not.
    const beside = await refused(
      raw(JSON.stringify({ params: { model_name: 'seedance-2' }, model_name: 'x' })),
      422,
      'unknown_field',
    );
    expect(beside.message).toContain(hint);
    const stray = await refused(
      raw(JSON.stringify({ params: { model_name: 'seedance-2' }, webhook: 'https://example.com' })),
      422,
      'unknown_field',
    );
    expect(stray.message).toBe('Unknown field: webhook');
  });

  it('422 when model_name is missing', async () => {
    await refused(() => generate(app, key, {}), 422, 'model_name_required');
    await refused(raw('{}'), 422, 'model_name_required');
    await refused(raw('{"params": "seedance-2"}'), 422, 'invalid_parameter');
  });

  it('404 for an unknown, inactive or internal model', async () => {
    await refused(() => generate(app, key, { model_name: 'no-such-model' }), 404, 'model_not_found');
    await refused(() => generate(app, key, { model_name: 'kling-1-6', prompt: 'x' }), 404, 'model_not_found');
    await refused(() => generate(app, key, { model_name: 'seedance-2:1080p' }), 404, 'model_not_found');
    await refused(
      () => generate(app, key, { model_name: 'veo-3-fast:audio', prompt: 'x' }),
      404,
      'model_not_found',
    );
  });

  it('403 for a model outside allowed_models', async () => {
    const restricted = await app.newKey({ balanceRub: 100, restrictions: { allowed_models: ['kling-2-1'] } });
    const before = await countRows(app);
    const res = await generate(app, restricted, { model_name: 'seedance-2' });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('model_not_allowed');
    expect(await countRows(app)).toEqual(before);
  });

  it('422 for a text model, pointing to the chat endpoint', async () => {
    const error = await refused(
      () => generate(app, key, { model_name: 'gpt-4o', prompt: 'x' }),
      422,
      'model_kind_not_supported',
    );
    expect(error.message).toContain('/v1/chat/completions');
  });

  it('422 for a model with no price', async () => {
    await refused(() => generate(app, key, { model_name: 'unpriced-video' }), 422, 'model_has_no_price');
  });

  it('400 for a missing required model parameter', async () => {
    const error = await refused(
      () => generate(app, key, { model_name: 'kling-2-1' }),
      400,
      'missing_parameter',
    );
    expect(error).toMatchObject({ message: 'prompt is required', param: 'prompt' });
  });

  it('422 for type, range, enum and unknown-parameter failures', async () => {
    expect(
      (
        await refused(
          () => generate(app, key, { model_name: 'seedance-2', duration: 20 }),
          422,
          'invalid_parameter',
        )
      ).message,
    ).toBe('duration must be between 5 and 15');
    expect(
      (
        await refused(
          () => generate(app, key, { model_name: 'seedance-2', aspect_ratio: '2:1' }),
          422,
          'invalid_parameter',
        )
      ).message,
    ).toBe('invalid aspect_ratio: must be one of 16:9, 4:3, 1:1, 3:4, 9:16, 21:9');
    expect(
      (
        await refused(
          () => generate(app, key, { model_name: 'seedance-2', duration: '5' }),
          422,
          'invalid_parameter',
        )
      ).message,
    ).toBe('duration must be an integer. Send the number without quotes: 5, not "5"');
    expect(
      (
        await refused(
          () => generate(app, key, { model_name: 'seedance-2', foo: 1 }),
          422,
          'invalid_parameter',
        )
      ).message,
    ).toBe('unexpected parameter: foo');
    expect(
      (
        await refused(
          () => generate(app, key, { model_name: 'veo-3-fast', prompt: 'x', duration: 9 }),
          422,
          'invalid_parameter',
        )
      ).message,
    ).toBe('duration must be between 5 and 8');
  });

  it('422 for a webhook_url that is not a public http(s) target', async () => {
    await refused(
      () => generate(app, key, { model_name: 'seedance-2', webhook_url: 'http://127.0.0.1:9/hook' }),
      422,
      'webhook_url_not_allowed',
    );
    await refused(
      () => generate(app, key, { model_name: 'seedance-2', webhook_url: 'ftp://example.com/hook' }),
      422,
      'webhook_url_not_allowed',
    );
  });

  it('402 when the balance is below the cost', async () => {
    const poor = await app.newKey({ balanceRub: 44.99 });
    const before = await countRows(app);
    const res = await generate(app, poor, { model_name: 'seedance-2' });
    expect(res.statusCode).toBe(402);
    expect(res.json().error.code).toBe('insufficient_balance');
    expect(await countRows(app)).toEqual(before);
    expect(await balanceOf(app, poor)).toEqual({ balance: 44_990_000, held: 0 });
  });
});

describe('POST /generate order of checks', () => {
  it('Idempotency-Key length comes before the body', async () => {
    await refused(
      raw('{oops', 'application/json', { 'idempotency-key': 'short' }),
      400,
      'idempotency_key_invalid',
    );
  });
  it('unknown model (404) before allowed_models (403)', async () => {
    const restricted = await app.newKey({ balanceRub: 100, restrictions: { allowed_models: ['kling-2-1'] } });
    expect((await generate(app, restricted, { model_name: 'nope' })).statusCode).toBe(404);
  });
  it('allowed_models (403) before no price (422)', async () => {
    const restricted = await app.newKey({ balanceRub: 100, restrictions: { allowed_models: ['kling-2-1'] } });
    expect((await generate(app, restricted, { model_name: 'unpriced-video', duration: 99 })).statusCode).toBe(
      403,
    );
  });
  it('no price (422 model_has_no_price) before params', async () => {
    await refused(
      () => generate(app, key, { model_name: 'unpriced-video', duration: 99 }),
      422,
      'model_has_no_price',
    );
  });
  it('params (400/422) before balance (402)', async () => {
    const poor = await app.newKey({ balanceRub: 1 });
    expect((await generate(app, poor, { model_name: 'kling-2-1' })).statusCode).toBe(400);
    expect((await generate(app, poor, { model_name: 'seedance-2', duration: 99 })).statusCode).toBe(422);
  });
});

describe('POST /generate accepted', () => {
  async function accepted(k: TestKey, params: Record<string, unknown>) {
    const before = await balanceOf(app, k);
    const res = await generate(app, k, params);
    expect(res.statusCode).toBe(202);
    const { task_id } = res.json();
    expect(task_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const task = (await app.ctx.storage.tasks.getForOwner(k.accountId, task_id))!;
    const entries = await app.ctx.storage.ledger.entriesForTask(task_id);
    expect(entries.map((e) => [e.kind, Number(e.amount)])).toEqual([['hold', Number(task.hold_amount)]]);
    const after = await balanceOf(app, k);
    expect(after.balance).toBe(before.balance - Number(task.hold_amount));
    expect(after.held).toBe(before.held + Number(task.hold_amount));
    return task;
  }

  it('202 with a UUID; the task is pending and its hold is the price', async () => {
    const task = await accepted(key, { model_name: 'seedance-2', prompt: 'a lighthouse', duration: 15 });
    expect(task).toMatchObject({
      status: 'pending',
      hold_amount: 45 * RUB,
      model_id: 'seedance-2',
      billing_model_id: 'seedance-2',
      provider: 'simulator',
    });
    expect(JSON.parse(task.params)).toEqual({
      model_name: 'seedance-2',
      prompt: 'a lighthouse',
      duration: 15,
    });
  });

  it('holds price × duration for per-second models', async () => {
    expect(
      Number((await accepted(key, { model_name: 'kling-2-1', prompt: 'x', duration: 10 })).hold_amount),
    ).toBe(60 * RUB);
    // The schema default (duration 5) prices a request that gives none.
    expect(Number((await accepted(key, { model_name: 'kling-2-1', prompt: 'x' })).hold_amount)).toBe(
      30 * RUB,
    );
  });

  it('prices veo-3-fast with audio from its internal variant', async () => {
    const task = await accepted(key, {
      model_name: 'veo-3-fast',
      prompt: 'x',
      duration: 8,
      generate_audio: true,
    });
    expect(task.billing_model_id).toBe('veo-3-fast:audio');
    expect(Number(task.hold_amount)).toBe(288 * RUB);
  });

  it('holds the worst case of a token-billed video', async () => {
    const task = await accepted(key, {
      model_name: 'seedance-1-pro',
      prompt: 'x',
      duration: 5,
      resolution: '1080p',
    });
    expect(Number(task.hold_amount)).toBe(53_460_000);
    expect(JSON.parse(task.pricing!)).toMatchObject({ unit: 'mtok', max_tokens: 243_000 });
  });

  it('applies the account coefficient', async () => {
    const vip = await app.newKey({ balanceRub: 100, coefficient: 1.5 });
    expect(Number((await accepted(vip, { model_name: 'seedance-2' })).hold_amount)).toBe(67_500_000);
    const cheap = await app.newKey({ balanceRub: 100, coefficient: 0.8 });
    expect(Number((await accepted(cheap, { model_name: 'seedance-2' })).hold_amount)).toBe(36 * RUB);
  });

  it('a public webhook_url is stored with the task', async () => {
    const task = await accepted(key, { model_name: 'seedance-2', webhook_url: 'http://93.184.215.14/hook' });
    expect(task.webhook_url).toBe('http://93.184.215.14/hook');
  });

  it('spends the balance down to exactly zero, then 402', async () => {
    const exact = await app.newKey({ balanceRub: 90 });
    await accepted(exact, { model_name: 'seedance-2' });
    await accepted(exact, { model_name: 'seedance-2' });
    expect((await generate(app, exact, { model_name: 'seedance-2' })).statusCode).toBe(402);
    expect(await balanceOf(app, exact)).toEqual({ balance: 0, held: 90 * RUB });
  });
});
