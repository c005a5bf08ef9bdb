// The official `openai` package, unmodified, against a listening gengate (baseURL = {PUBLIC_URL}/v1):
// images.generate (url and b64_json), videos.create → retrieve until completed → downloadContent,
// typed errors for a model outside allowed_models, and the SDK's own retry of a 504 with an
// Idempotency-Key ending in the one task's image.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestKey } from '../../../testing/app.js';
import {
  createdRows,
  createTaskTestApp,
  expectLedgerClean,
  freePort,
  type TaskTestApp,
} from '../../../testing/tasks.js';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

async function listening(
  config: { syncImageWaitMs?: number } = {},
): Promise<{ app: TaskTestApp; base: string }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const app = await createTaskTestApp({ config: { port, publicUrl: base, ...config } });
  await app.http.listen({ host: '127.0.0.1', port });
  return { app, base };
}

const client = (base: string, key: TestKey, maxRetries = 0) =>
  new OpenAI({ apiKey: key.secret, baseURL: `${base}/v1`, maxRetries });

describe('the openai SDK against /v1/images and /v1/videos', () => {
  let app: TaskTestApp;
  let base: string;
  beforeAll(async () => {
    ({ app, base } = await listening());
  });
  afterAll(async () => {
    await expectLedgerClean(app);
    await app.dispose();
  });

  it('images.generate returns a URL that downloads a PNG', async () => {
    const key = await app.newKey();
    const image = await client(base, key).images.generate({
      model: 'flux-1-1-pro',
      prompt: 'a red fox',
      size: '1024x1024',
    });
    expect(image.data).toHaveLength(1);
    const url = image.data?.[0].url as string;
    expect(url.startsWith(`${base}/objects/`)).toBe(true);
    const download = await fetch(url);
    expect([download.status, download.headers.get('content-type')]).toEqual([200, 'image/png']);
    expect(Buffer.from(await download.arrayBuffer()).subarray(0, 8)).toEqual(PNG);
  });

  it('images.generate with response_format b64_json, and native params the SDK sends at the top level', async () => {
    const key = await app.newKey();
    const image = await client(base, key).images.generate({
      model: 'seedream-4',
      prompt: 'a lighthouse',
      response_format: 'b64_json',
      // @ts-expect-error a native parameter of the model, not in OpenAI's types
      seed: 1234,
    });
    expect(Buffer.from(image.data?.[0].b64_json as string, 'base64').subarray(0, 8)).toEqual(PNG);
    const [task] = await app.ctx.storage.db
      .selectFrom('tasks')
      .select('params')
      .where('key_id', '=', key.keyId)
      .execute();
    expect(JSON.parse(task.params).seed).toBe(1234);
  });

  it('videos.create, retrieve until completed, downloadContent is an MP4', async () => {
    const key = await app.newKey();
    const openai = client(base, key);
    const created = await openai.videos.create({
      model: 'sora-2',
      prompt: 'waves',
      seconds: '8',
      size: '720x1280',
    });
    expect(created).toMatchObject({
      object: 'video',
      model: 'sora-2',
      status: 'queued',
      seconds: '8',
      size: '720x1280',
    });
    let video = created;
    for (let i = 0; i < 300 && video.status !== 'completed' && video.status !== 'failed'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      video = await openai.videos.retrieve(created.id);
    }
    expect(video).toMatchObject({ id: created.id, status: 'completed', progress: 100, error: null });
    const content = await openai.videos.downloadContent(created.id);
    expect(content.headers.get('content-type')).toBe('video/mp4');
    const bytes = Buffer.from(await content.arrayBuffer());
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
  });

  it('a model outside allowed_models is PermissionDeniedError on both endpoints, and nothing is written', async () => {
    const key = await app.newKey({ restrictions: { allowed_models: ['seedream-4'] } });
    const openai = client(base, key);
    await expect(openai.images.generate({ model: 'flux-1-1-pro', prompt: 'p' })).rejects.toBeInstanceOf(
      OpenAI.PermissionDeniedError,
    );
    const error = await openai.videos.create({ model: 'sora-2', prompt: 'p' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((error as InstanceType<typeof OpenAI.PermissionDeniedError>).code).toBe('model_not_allowed');
    expect(await createdRows(app, key)).toEqual({ tasks: 0, holds: 0, idempotency: 0 });
  });

  it('an unknown video is NotFoundError', async () => {
    const key = await app.newKey();
    await expect(
      client(base, key).videos.retrieve('00000000-0000-4000-8000-000000000000'),
    ).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });
});

describe('the SDK retrying a 504', () => {
  let app: TaskTestApp;
  let base: string;
  beforeAll(async () => {
    ({ app, base } = await listening({ syncImageWaitMs: 250 }));
  });
  afterAll(async () => {
    await expectLedgerClean(app);
    await app.dispose();
  });

  it('with an Idempotency-Key its retries wait for the same task and end with its image', async () => {
    const key = await app.newKey();
    const image = await client(base, key, 3).images.generate(
      { model: 'flux-1-1-pro', prompt: 'slow [sim:delay=600]' },
      { headers: { 'Idempotency-Key': 'sdk-retry-key-1' } },
    );
    expect(image.data?.[0].url).toContain('/objects/');
    expect(await createdRows(app, key)).toEqual({ tasks: 1, holds: 1, idempotency: 1 });
  });

  it('without one the 504 says not to retry, so the SDK starts no second task', async () => {
    const key = await app.newKey();
    const error = await client(base, key, 3)
      .images.generate({ model: 'flux-1-1-pro', prompt: 'slow [sim:delay=600]' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(504);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe('upstream_timeout');
    expect((await createdRows(app, key)).tasks).toBe(1);
    // The task finishes anyway; the ledger check after the suite needs it settled.
    const [task] = await app.ctx.storage.db
      .selectFrom('tasks')
      .select('id')
      .where('key_id', '=', key.keyId)
      .execute();
    expect((await app.ctx.tasks.waitForFinal(key.accountId, task.id, 5_000)).status).toBe('completed');
  });
});
