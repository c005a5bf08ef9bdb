// POST /v1/videos, GET /v1/videos/{id} and GET /v1/videos/{id}/content on SQLite with the embedded
// runner: OpenAI's video object through a task's life, JSON and multipart bodies (what the SDK
// sends), the mapping, refusals that write nothing, Idempotency-Key, owner scoping and the bytes.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestKey } from '../../../testing/app.js';
import {
  balanceOf,
  createdRows,
  createTaskTestApp,
  expectLedgerClean,
  generate,
  type TaskTestApp,
} from '../../../testing/tasks.js';

const RUB = 1_000_000;

function post(app: TaskTestApp, key: TestKey, body: unknown, headers: Record<string, string> = {}) {
  return app.http.inject({
    method: 'POST',
    url: '/v1/videos',
    headers: { ...key.auth, 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A multipart body exactly as fetch (and so the openai SDK) encodes a FormData: a random boundary. */
async function multipart(
  fields: [string, string | Blob, string?][],
): Promise<{ payload: Buffer; type: string }> {
  const form = new FormData();
  for (const [name, value, filename] of fields) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, value, filename);
  }
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return {
    payload: Buffer.from(await request.arrayBuffer()),
    type: request.headers.get('content-type') as string,
  };
}

async function postForm(
  app: TaskTestApp,
  key: TestKey,
  fields: [string, string | Blob, string?][],
  headers: Record<string, string> = {},
) {
  const { payload, type } = await multipart(fields);
  return app.http.inject({
    method: 'POST',
    url: '/v1/videos',
    headers: { ...key.auth, 'content-type': type, ...headers },
    payload,
  });
}

const get = (app: TaskTestApp, key: TestKey, url: string, headers: Record<string, string> = {}) =>
  app.http.inject({ method: 'GET', url, headers: { ...key.auth, ...headers } });

async function finalVideo(app: TaskTestApp, key: TestKey, id: string) {
  for (let i = 0; i < 500; i++) {
    const video = (await get(app, key, `/v1/videos/${id}`)).json();
    if (video.status === 'completed' || video.status === 'failed') return video;
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
  throw new Error(`video ${id} did not finish`);
}

async function taskParams(app: TaskTestApp, id: string) {
  const task = await app.ctx.storage.tasks.byIdForWorker(id);
  return JSON.parse(task?.params ?? 'null');
}

describe('/v1/videos', () => {
  let app: TaskTestApp;
  beforeAll(async () => {
    app = await createTaskTestApp();
  });
  afterAll(async () => {
    await expectLedgerClean(app);
    await app.dispose();
  });

  it('creates a queued video (default sora-2), holds its price, then completes; the content is the MP4', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const res = await post(app, key, { prompt: 'waves on a beach [sim:delay=200]' });
    expect(res.statusCode, res.body).toBe(200);
    const created = res.json();
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      object: 'video',
      model: 'sora-2',
      status: 'queued',
      progress: 0,
      created_at: expect.any(Number),
      completed_at: null,
      expires_at: null,
      prompt: 'waves on a beach [sim:delay=200]',
      seconds: '4',
      size: '1280x720',
      remixed_from_video_id: null,
      error: null,
    });
    // sora-2 costs 10 RUB per second; 4 s are held at once.
    expect(await balanceOf(app, key)).toEqual({ balance: 60 * RUB, held: 40 * RUB });

    const early = await get(app, key, `/v1/videos/${created.id}/content`);
    expect(early.statusCode).toBe(409);
    expect(early.json().error.code).toBe('video_not_ready');
    expect(early.headers['x-should-retry']).toBeUndefined();

    const done = await finalVideo(app, key, created.id);
    expect(done).toMatchObject({
      id: created.id,
      status: 'completed',
      progress: 100,
      seconds: '4',
      size: '1280x720',
      error: null,
    });
    expect(done.completed_at).toBeGreaterThanOrEqual(done.created_at);
    expect(await balanceOf(app, key)).toEqual({ balance: 60 * RUB, held: 0 });

    const content = await get(app, key, `/v1/videos/${created.id}/content`);
    expect(content.statusCode).toBe(200);
    expect(content.headers['content-type']).toBe('video/mp4');
    expect(content.rawPayload.subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect(Number(content.headers['content-length'])).toBe(content.rawPayload.length);
    const task = await app.ctx.storage.tasks.byIdForWorker(created.id);
    const viaObjects = await app.http.inject({
      method: 'GET',
      url: new URL(JSON.parse(task?.result ?? '{}').video_url).pathname,
    });
    expect(content.rawPayload).toEqual(viaObjects.rawPayload);

    const partial = await get(app, key, `/v1/videos/${created.id}/content?variant=video`, {
      range: 'bytes=0-7',
    });
    expect([partial.statusCode, partial.rawPayload.length, partial.headers['content-range']]).toEqual([
      206,
      8,
      `bytes 0-7/${content.rawPayload.length}`,
    ]);
    const thumbnail = await get(app, key, `/v1/videos/${created.id}/content?variant=thumbnail`);
    expect([thumbnail.statusCode, thumbnail.json().error.code, thumbnail.json().error.param]).toEqual([
      404,
      'not_found',
      'variant',
    ]);
  });

  it('maps model, seconds (a string, as the SDK sends it), size in pixels and extra_body', async () => {
    const key = await app.newKey();
    const res = await post(app, key, {
      model: 'kling-2-1',
      prompt: 'a fox',
      seconds: '10',
      size: '720x1280',
      extra_body: { seed: 11, negative_prompt: 'blur' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ model: 'kling-2-1', seconds: '10', size: '720x1280' });
    expect(await taskParams(app, res.json().id)).toEqual({
      model_name: 'kling-2-1',
      prompt: 'a fox',
      duration: 10,
      aspect_ratio: '9:16',
      seed: 11,
      negative_prompt: 'blur',
    });
    // kling-2-1: 6 RUB per second × 10 s.
    expect(await balanceOf(app, key)).toMatchObject({ held: 60 * RUB });
  });

  it('input_reference.image_url is the first frame', async () => {
    const key = await app.newKey();
    const res = await post(app, key, {
      model: 'veo-3-fast',
      prompt: 'p',
      input_reference: { image_url: 'https://img.example.com/first.png' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await taskParams(app, res.json().id)).start_image_url).toBe('https://img.example.com/first.png');
  });

  it('multipart/form-data (how the openai SDK sends videos.create): text is typed by the model schema', async () => {
    const key = await app.newKey();
    const res = await postForm(app, key, [
      ['model', 'veo-3-fast'],
      ['prompt', 'rain'],
      ['seconds', '6'],
      ['size', '1280x720'],
      ['generate_audio', 'true'],
      ['extra_body[seed]', '42'],
    ]);
    expect(res.statusCode, res.body).toBe(200);
    expect(await taskParams(app, res.json().id)).toEqual({
      model_name: 'veo-3-fast',
      prompt: 'rain',
      duration: 6,
      aspect_ratio: '16:9',
      generate_audio: true,
      seed: 42,
    });
    // generate_audio selects the veo-3-fast:audio price: 36 RUB × 6 s.
    expect(await balanceOf(app, key)).toMatchObject({ held: 216 * RUB });
  });

  it('multipart with a file part is refused (uploads are not supported); nothing is written', async () => {
    const key = await app.newKey();
    const res = await postForm(app, key, [
      ['prompt', 'p'],
      ['input_reference', new Blob([new Uint8Array([0x89, 0x50])], { type: 'image/png' }), 'first.png'],
    ]);
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'invalid_parameter', param: 'input_reference' });
    expect(res.json().error.message).toContain('File uploads are not supported');
    expect(await createdRows(app, key)).toEqual({ tasks: 0, holds: 0, idempotency: 0 });
  });

  it('form field names cannot reach object prototypes; Object member names are ordinary fields', async () => {
    const key = await app.newKey();
    const polluting = await postForm(app, key, [
      ['prompt', 'p'],
      ['extra_body[__proto__][seed]', '1'],
    ]);
    expect([polluting.statusCode, polluting.json().error.code]).toEqual([400, 'invalid_json']);
    const member = await postForm(app, key, [
      ['prompt', 'p'],
      ['toString', '1'],
    ]);
    expect([member.statusCode, member.json().error.message]).toEqual([422, 'unexpected parameter: toString']);
    const json = await post(app, key, '{"prompt": "p", "__proto__": {"seed": 1}}');
    expect([json.statusCode, json.json().error.message]).toEqual([422, 'unexpected parameter: __proto__']);
    expect(({} as Record<string, unknown>).seed).toBeUndefined();
    expect(await createdRows(app, key)).toEqual({ tasks: 0, holds: 0, idempotency: 0 });
  });

  const refusals: {
    name: string;
    body: unknown;
    status: number;
    code: string;
    param: string | null;
    message?: string;
  }[] = [
    {
      name: 'a size whose ratio the model lacks',
      body: { model: 'sora-2', prompt: 'p', size: '1024x1792' },
      status: 422,
      code: 'invalid_parameter',
      param: 'size',
      message: 'invalid aspect_ratio: must be one of 16:9, 9:16 (size → aspect_ratio)',
    },
    {
      name: 'seconds the model does not offer',
      body: { model: 'sora-2', prompt: 'p', seconds: '5' },
      status: 422,
      code: 'invalid_parameter',
      param: 'seconds',
      message: 'invalid duration: must be one of 4, 8, 12 (seconds → duration)',
    },
    {
      name: 'seconds that are not a whole number',
      body: { model: 'sora-2', prompt: 'p', seconds: '4.5' },
      status: 422,
      code: 'invalid_parameter',
      param: 'seconds',
    },
    {
      name: 'an unknown field',
      body: { model: 'sora-2', prompt: 'p', fps: 60 },
      status: 422,
      code: 'invalid_parameter',
      param: 'fps',
      message: 'unexpected parameter: fps',
    },
    {
      name: 'a missing prompt',
      body: { model: 'sora-2' },
      status: 400,
      code: 'missing_parameter',
      param: 'prompt',
    },
    {
      name: 'an image model',
      body: { model: 'flux-1-1-pro', prompt: 'p' },
      status: 404,
      code: 'model_not_found',
      param: 'model',
    },
    {
      name: 'an unknown model',
      body: { model: 'sora-9', prompt: 'p' },
      status: 404,
      code: 'model_not_found',
      param: 'model',
    },
    {
      name: 'an inactive model',
      body: { model: 'kling-1-6', prompt: 'p' },
      status: 404,
      code: 'model_not_found',
      param: 'model',
    },
    { name: 'malformed JSON', body: '{"prompt"', status: 400, code: 'invalid_json', param: null },
  ];

  it.for(refusals)(
    '$name: $status $code, no task and no ledger entry',
    async ({ body, status, code, param, message }) => {
      const key = await app.newKey();
      const before = await balanceOf(app, key);
      const ledger = await app.ctx.storage.ledger.countForKey(key.keyId);
      const res = await post(app, key, body);
      expect(res.statusCode, res.body).toBe(status);
      expect(res.json().error).toMatchObject({ code, param, ...(message ? { message } : {}) });
      expect(await createdRows(app, key)).toEqual({ tasks: 0, holds: 0, idempotency: 0 });
      expect(await app.ctx.storage.ledger.countForKey(key.keyId)).toBe(ledger);
      expect(await balanceOf(app, key)).toEqual(before);
    },
  );

  it('a body that is neither JSON nor a form is 415', async () => {
    const key = await app.newKey();
    const res = await app.http.inject({
      method: 'POST',
      url: '/v1/videos',
      headers: { ...key.auth, 'content-type': 'text/plain' },
      payload: 'prompt=p',
    });
    expect([res.statusCode, res.json().error.code]).toEqual([415, 'unsupported_media_type']);
    expect(await createdRows(app, key)).toEqual({ tasks: 0, holds: 0, idempotency: 0 });
  });

  it('402 when the balance is below the hold: no task, no hold', async () => {
    const key = await app.newKey({ balanceRub: 30 });
    const res = await post(app, key, { model: 'sora-2', prompt: 'p', seconds: '4' });
    expect([res.statusCode, res.json().error.code]).toEqual([402, 'insufficient_balance']);
    expect(await createdRows(app, key)).toEqual({ tasks: 0, holds: 0, idempotency: 0 });
    expect(await balanceOf(app, key)).toEqual({ balance: 30 * RUB, held: 0 });
  });

  it('a failed video shows error {code, message}, its hold is back, and its content is a 409 not worth retrying', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const res = await post(app, key, { model: 'sora-2', prompt: 'no [sim:fail=reject]' });
    expect(res.statusCode).toBe(200);
    const done = await finalVideo(app, key, res.json().id);
    expect(done).toMatchObject({
      status: 'failed',
      progress: 0,
      error: {
        code: 'content_policy_violation',
        message: 'Provider rejected prompt: contains restricted content',
      },
    });
    expect(done.completed_at).toEqual(expect.any(Number));
    expect(await balanceOf(app, key)).toEqual({ balance: 100 * RUB, held: 0 });
    const content = await get(app, key, `/v1/videos/${done.id}/content`);
    expect([content.statusCode, content.json().error.code, content.headers['x-should-retry']]).toEqual([
      409,
      'video_not_ready',
      'false',
    ]);
  });

  it('Idempotency-Key: a retry replays the created object; no second task or hold (JSON and multipart)', async () => {
    const key = await app.newKey({ balanceRub: 1000 });
    const body = { model: 'sora-2', prompt: 'once', seconds: '8' };
    const first = await post(app, key, body, { 'idempotency-key': 'video-key-0001' });
    const again = await post(app, key, body, { 'idempotency-key': 'video-key-0001' });
    expect([first.statusCode, again.statusCode, again.headers['idempotent-replayed']]).toEqual([
      200,
      200,
      'true',
    ]);
    expect(again.json()).toEqual(first.json());
    expect(await createdRows(app, key)).toEqual({ tasks: 1, holds: 1, idempotency: 1 });
    const other = await post(app, key, { ...body, seconds: '4' }, { 'idempotency-key': 'video-key-0001' });
    expect([other.statusCode, other.json().error.code]).toEqual([422, 'idempotency_key_reused']);

    // Each multipart encoding has its own random boundary; the same fields are the same request.
    const fields: [string, string][] = [
      ['model', 'sora-2'],
      ['prompt', 'form once'],
    ];
    const formFirst = await postForm(app, key, fields, { 'idempotency-key': 'video-key-0002' });
    const formAgain = await postForm(app, key, fields, { 'idempotency-key': 'video-key-0002' });
    expect([formFirst.statusCode, formAgain.statusCode, formAgain.headers['idempotent-replayed']]).toEqual([
      200,
      200,
      'true',
    ]);
    expect(formAgain.json().id).toBe(formFirst.json().id);
    expect(await createdRows(app, key)).toEqual({ tasks: 2, holds: 2, idempotency: 2 });
  });

  it("another account's video, an image task and an unknown id are the same 404", async () => {
    const owner = await app.newKey();
    const stranger = await app.newKey();
    const video = (await post(app, owner, { prompt: 'mine' })).json();
    const image = (await generate(app, owner, { model_name: 'flux-1-1-pro', prompt: 'an image' })).json();
    expect((await get(app, owner, `/v1/videos/${video.id}`)).statusCode).toBe(200);
    const unknown = await get(app, stranger, `/v1/videos/${randomUUID()}`);
    expect(unknown.statusCode).toBe(404);
    for (const res of [
      await get(app, stranger, `/v1/videos/${video.id}`),
      await get(app, stranger, `/v1/videos/${video.id}/content`),
      await get(app, owner, `/v1/videos/${image.task_id}`),
      await get(app, owner, `/v1/videos/${image.task_id}/content`),
      await get(app, owner, '/v1/videos/not-a-uuid'),
    ]) {
      expect([res.statusCode, res.body]).toEqual([404, unknown.body]);
    }
  });
});
