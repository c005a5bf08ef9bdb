// The official `openai` package, unmodified, against a listening gengate: models.retrieve,
// videos.list with the SDK's own cursor pagination, and videos.delete.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOnLoopback, type TestKey } from '../../../testing/app.js';
import { createTaskTestApp, expectLedgerClean, type TaskTestApp } from '../../../testing/tasks.js';

describe('the openai SDK: models.retrieve, videos.list, videos.delete', () => {
  let app: TaskTestApp;
  let base: string;
  beforeAll(async () => {
    app = await createTaskTestApp();
    base = await listenOnLoopback(app);
  });
  afterAll(async () => {
    await expectLedgerClean(app);
    await app.dispose();
  });

  const client = (key: TestKey) => new OpenAI({ apiKey: key.secret, baseURL: `${base}/v1`, maxRetries: 0 });

  async function completed(openai: OpenAI, id: string) {
    let video = await openai.videos.retrieve(id);
    for (let i = 0; i < 300 && (video.status === 'queued' || video.status === 'in_progress'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      video = await openai.videos.retrieve(id);
    }
    return video;
  }

  it('models.retrieve answers an allowed model and NotFoundError for one the key may not use', async () => {
    const openai = client(await app.newKey({ restrictions: { allowed_models: ['gpt-4o', 'sora-2'] } }));
    const model = await openai.models.retrieve('gpt-4o');
    expect(model).toMatchObject({ id: 'gpt-4o', object: 'model', owned_by: 'OpenAI' });
    expect(typeof model.created).toBe('number');
    const error = await openai.models.retrieve('gpt-4o-mini').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
  });

  it('videos.list pages through the caller’s videos newest first; videos.delete removes one', async () => {
    const key = await app.newKey();
    const openai = client(key);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await openai.videos.create({ model: 'sora-2', prompt: `clip ${i}` })).id);
      // Creation order is by millisecond (ties go by id): keep the five apart.
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    // Another account's video never shows.
    await client(await app.newKey()).videos.create({ model: 'sora-2', prompt: 'not yours' });

    const page = await openai.videos.list({ limit: 2 });
    expect(page.data.map((v) => v.id)).toEqual([ids[4], ids[3]]);
    expect(page.has_more).toBe(true);
    expect(page.hasNextPage()).toBe(true);

    // The SDK follows `after` = last_id until has_more is false.
    const all: OpenAI.Videos.Video[] = [];
    for await (const video of openai.videos.list({ limit: 2 })) all.push(video);
    expect(all.map((v) => v.id)).toEqual([...ids].reverse());
    for (const video of all) expect(video.size).toMatch(/^\d+x\d+$/);
    const ascending = [];
    for await (const video of openai.videos.list({ limit: 3, order: 'asc' })) ascending.push(video.id);
    expect(ascending).toEqual(ids);

    for (const id of ids) expect((await completed(openai, id)).status).toBe('completed');
    const deleted = await openai.videos.delete(ids[2]);
    expect(deleted).toEqual({ id: ids[2], object: 'video.deleted', deleted: true });
    await expect(openai.videos.retrieve(ids[2])).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(openai.videos.downloadContent(ids[2])).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(openai.videos.delete(ids[2])).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const left = [];
    for await (const video of openai.videos.list()) left.push(video.id);
    expect(left).toEqual([ids[4], ids[3], ids[1], ids[0]]);
  });

  it('videos.delete of a video still being generated is ConflictError', async () => {
    const openai = client(await app.newKey());
    const video = await openai.videos.create({ model: 'sora-2', prompt: 'slow [sim:delay=300]' });
    const error = await openai.videos.delete(video.id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.ConflictError);
    expect((error as InstanceType<typeof OpenAI.ConflictError>).code).toBe('video_not_ready');
    expect((await completed(openai, video.id)).status).toBe('completed');
  });
});
