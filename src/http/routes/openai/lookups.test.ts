// The lookups of the OpenAI surface, through inject on SQLite with the embedded runner:
// GET /v1/models/{id} (only what the key may use), GET /v1/videos (the owner's cursor list),
// DELETE /v1/videos/{id} (media gone, charge kept) and the video object's `size`, never null.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestKey } from '../../../testing/app.js';
import {
  balanceOf,
  createTaskTestApp,
  expectLedgerClean,
  generate,
  getTask,
  type TaskTestApp,
} from '../../../testing/tasks.js';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('OpenAI lookups', () => {
  let app: TaskTestApp;
  beforeAll(async () => {
    app = await createTaskTestApp();
  });
  afterAll(async () => {
    await expectLedgerClean(app);
    await app.dispose();
  });

  const call = (key: TestKey | undefined, method: 'GET' | 'DELETE' | 'POST', url: string, payload?: object) =>
    app.http.inject({
      method,
      url,
      headers: { ...(key?.auth ?? {}), ...(payload ? { 'content-type': 'application/json' } : {}) },
      ...(payload ? { payload } : {}),
    });

  async function createVideo(key: TestKey, body: Record<string, unknown> = {}) {
    const res = await call(key, 'POST', '/v1/videos', { model: 'sora-2', prompt: 'waves', ...body });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { id: string; size: string };
  }

  async function finalVideo(key: TestKey, id: string) {
    for (let i = 0; i < 500; i++) {
      const video = (await call(key, 'GET', `/v1/videos/${id}`)).json();
      if (video.status === 'completed' || video.status === 'failed') return video;
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    throw new Error(`video ${id} did not finish`);
  }

  describe('GET /v1/models/{id}', () => {
    it('answers the model object of a public model the key may use', async () => {
      const key = await app.newKey();
      const res = await call(key, 'GET', '/v1/models/gpt-4o');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        id: 'gpt-4o',
        object: 'model',
        created: expect.any(Number),
        owned_by: 'OpenAI',
      });
      const listed = (await call(undefined, 'GET', '/v1/models')).json().data;
      expect(listed).toContainEqual(res.json());
    });

    it('is the same 404 for unknown, internal, inactive and not allowed models', async () => {
      const key = await app.newKey({ restrictions: { allowed_models: ['sora-2', 'kling-1-6'] } });
      expect((await call(key, 'GET', '/v1/models/sora-2')).statusCode).toBe(200);
      const model = await app.ctx.catalog.get('kling-1-6');
      await app.ctx.catalog.upsert({ ...model!, active: false });
      try {
        for (const id of ['no-such-model', 'seedance-2:1080p', 'kling-1-6', 'gpt-4o']) {
          const res = await call(key, 'GET', `/v1/models/${id}`);
          expect(res.statusCode, id).toBe(404);
          expect(res.json().error, id).toEqual({
            message: `The model ${id} does not exist or is not available to this key`,
            type: 'not_found_error',
            code: 'model_not_found',
            param: 'model',
          });
        }
      } finally {
        await app.ctx.catalog.upsert(model!);
      }
    });

    it('needs a key', async () => {
      const res = await call(undefined, 'GET', '/v1/models/gpt-4o');
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('invalid_api_key');
    });
  });

  describe('the video object’s size', () => {
    it('is WxH even when the request gave none and the model has no default aspect ratio', async () => {
      const key = await app.newKey();
      // seedance-2 has no default aspect_ratio: the 16:9 default at 720p.
      const plain = await createVideo(key, { model: 'seedance-2' });
      expect(plain.size).toBe('1280x720');
      const tall = await createVideo(key, { model: 'seedance-2', size: '720x1280' });
      expect(tall.size).toBe('720x1280');
      const hd = await createVideo(key, { model: 'seedance-1-pro', extra_body: { resolution: '1080p' } });
      expect(hd.size).toBe('1920x1080');
      for (const { id } of [plain, tall, hd]) expect(typeof (await finalVideo(key, id)).size).toBe('string');
    });

    it('is the stored video’s own width and height once the result records them', async () => {
      const key = await app.newKey();
      const { id } = await createVideo(key, { model: 'seedance-2' });
      await finalVideo(key, id);
      const row = await app.ctx.storage.tasks.byIdForWorker(id);
      const result = JSON.parse(row!.result!);
      await app.ctx.storage.db
        .updateTable('tasks')
        .set({ result: JSON.stringify({ ...result, width: 320, height: 176 }) })
        .where('id', '=', id)
        .execute();
      expect((await call(key, 'GET', `/v1/videos/${id}`)).json().size).toBe('320x176');
    });
  });

  describe('GET /v1/videos', () => {
    it('lists the caller’s videos from every endpoint, newest first, in pages', async () => {
      const key = await app.newKey();
      const other = await app.newKey();
      // Creation order is by millisecond (ties go by id): the pauses keep the three apart.
      const pause = () => new Promise((resolve) => setTimeout(resolve, 3));
      const a = (await createVideo(key)).id;
      await pause();
      const b = (await generate(app, key, { model_name: 'kling-2-1', prompt: 'native' })).json().task_id;
      await generate(app, key, { model_name: 'flux-1-1-pro', prompt: 'an image is not a video' });
      await pause();
      const c = (await createVideo(key)).id;
      await createVideo(other);

      const all = (await call(key, 'GET', '/v1/videos')).json();
      expect(all).toMatchObject({ object: 'list', first_id: c, last_id: a, has_more: false });
      expect(all.data.map((v: { id: string }) => v.id)).toEqual([c, b, a]);
      expect(all.data[1]).toMatchObject({ object: 'video', model: 'kling-2-1', size: '1280x720' });

      const first = (await call(key, 'GET', '/v1/videos?limit=2')).json();
      expect(first).toMatchObject({ first_id: c, last_id: b, has_more: true });
      const second = (await call(key, 'GET', `/v1/videos?limit=2&after=${b}`)).json();
      expect(second).toMatchObject({ first_id: a, last_id: a, has_more: false });
      expect(second.data).toHaveLength(1);

      const asc = (await call(key, 'GET', '/v1/videos?order=asc&limit=1')).json();
      expect(asc).toMatchObject({ first_id: a, has_more: true });
      const ascNext = (await call(key, 'GET', `/v1/videos?order=asc&after=${a}`)).json();
      expect(ascNext.data.map((v: { id: string }) => v.id)).toEqual([b, c]);

      const empty = (await call(await app.newKey(), 'GET', '/v1/videos')).json();
      expect(empty).toEqual({ object: 'list', data: [], first_id: null, last_id: null, has_more: false });
      for (const id of [a, b, c]) await finalVideo(key, id);
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['order=newest', 'order'],
      [`after=${UNKNOWN}`, 'after'],
      ['after=not-an-id', 'after'],
    ])('%s is a 422 naming %s', async (query, param) => {
      const key = await app.newKey();
      const res = await call(key, 'GET', `/v1/videos?${query}`);
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'invalid_parameter', param });
    });

    it('another account’s video is no cursor', async () => {
      const key = await app.newKey();
      const theirs = await createVideo(await app.newKey());
      const res = await call(key, 'GET', `/v1/videos?after=${theirs.id}`);
      expect(res.json().error).toMatchObject({ code: 'invalid_parameter', param: 'after' });
    });
  });

  describe('DELETE /v1/videos/{id}', () => {
    it('drops the media of a completed video, keeps the charge and the task, and the video is gone', async () => {
      const key = await app.newKey({ balanceRub: 100 });
      const { id } = await createVideo(key);
      await finalVideo(key, id);
      const url = (await getTask(app, key, id)).result?.video_url as string;
      expect((await app.http.inject({ method: 'GET', url: new URL(url).pathname })).statusCode).toBe(200);
      const charged = await balanceOf(app, key);

      const res = await call(key, 'DELETE', `/v1/videos/${id}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ id, object: 'video.deleted', deleted: true });

      expect((await app.http.inject({ method: 'GET', url: new URL(url).pathname })).statusCode).toBe(404);
      for (const path of [`/v1/videos/${id}`, `/v1/videos/${id}/content`]) {
        const gone = await call(key, 'GET', path);
        expect(gone.statusCode, path).toBe(404);
        expect(gone.json().error.code).toBe('not_found');
      }
      expect((await call(key, 'GET', '/v1/videos')).json().data).toEqual([]);
      expect((await call(key, 'DELETE', `/v1/videos/${id}`)).statusCode).toBe(404);
      // The billing record stays: the task natively as it finished, plus deleted_at; the balance.
      expect(await getTask(app, key, id)).toMatchObject({ status: 'completed', result: { video_url: url } });
      const row = await app.ctx.storage.tasks.byIdForWorker(id);
      expect(JSON.parse(row!.result!)).toEqual({
        video_url: url,
        duration: 4,
        deleted_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
      expect(await balanceOf(app, key)).toEqual(charged);
    });

    it('deletes a failed video; refuses a running one with 409', async () => {
      const key = await app.newKey();
      const failed = await createVideo(key, { prompt: 'no [sim:fail=reject]' });
      expect((await finalVideo(key, failed.id)).status).toBe('failed');
      expect((await call(key, 'DELETE', `/v1/videos/${failed.id}`)).json()).toEqual({
        id: failed.id,
        object: 'video.deleted',
        deleted: true,
      });
      expect((await call(key, 'GET', `/v1/videos/${failed.id}`)).statusCode).toBe(404);

      const slow = await createVideo(key, { prompt: 'slow [sim:delay=400]' });
      const refused = await call(key, 'DELETE', `/v1/videos/${slow.id}`);
      expect(refused.statusCode).toBe(409);
      expect(refused.json().error).toMatchObject({ code: 'video_not_ready', type: 'conflict_error' });
      expect((await finalVideo(key, slow.id)).status).toBe('completed');
    });

    it('is a 404 for another account’s video, an image task and an unknown id, and changes nothing', async () => {
      const key = await app.newKey();
      const owner = await app.newKey();
      const theirs = await createVideo(owner);
      await finalVideo(owner, theirs.id);
      const image = (await generate(app, key, { model_name: 'flux-1-1-pro', prompt: 'p' })).json().task_id;
      for (const id of [theirs.id, image, UNKNOWN, 'nope']) {
        const res = await call(key, 'DELETE', `/v1/videos/${id}`);
        expect(res.statusCode, id).toBe(404);
        expect(res.json().error.code).toBe('not_found');
      }
      expect((await call(owner, 'GET', `/v1/videos/${theirs.id}/content`)).statusCode).toBe(200);
      await app.ctx.tasks.waitForFinal(key.accountId, image, 5_000);
    });
  });
});
