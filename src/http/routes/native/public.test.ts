// GET /public/models and GET /v1/models: no auth, active + visible + priced public models only, the
// default catalog of DESIGN.md section 5, and OpenAI's list shape on /v1/models.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../../../testing/app.js';
import { createTaskTestApp, expectLedgerClean } from '../../../testing/tasks.js';

const VIDEO = ['seedance-2', 'kling-2-1', 'veo-3-fast', 'sora-2', 'seedance-1-pro'];
const IMAGE = ['flux-1-1-pro', 'gpt-image-1', 'seedream-4', 'nano-banana'];
const TEXT = [
  'gpt-4o',
  'gpt-4o-mini',
  'gpt-4.1',
  'gpt-4.1-mini',
  'gpt-4.1-nano',
  'gpt-5',
  'gpt-5-mini',
  'gpt-5-nano',
  'o3',
  'o4-mini',
  'claude-opus-4-1',
  'claude-opus-4',
  'claude-sonnet-4-5',
  'claude-sonnet-4',
  'claude-3-7-sonnet',
  'claude-haiku-4-5',
  'claude-3-5-haiku',
];

interface Entry {
  id: string;
  name: string;
  provider: string;
  kind: string;
  unit: string;
  priceRub: number | null;
  priceOutputRub?: number | null;
}

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.dispose());

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const publicModels = async () =>
  (await app.http.inject({ method: 'GET', url: '/public/models' })).json() as Entry[];
const openAiModels = async () =>
  (await app.http.inject({ method: 'GET', url: '/v1/models' })).json() as {
    object: string;
    data: { id: string }[];
  };

describe('GET /public/models', () => {
  it('answers without authentication with every default public model and nothing else', async () => {
    const res = await app.http.inject({ method: 'GET', url: '/public/models' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const models = res.json() as Entry[];
    expect(models.map((m) => m.id).sort()).toEqual([...VIDEO, ...IMAGE, ...TEXT].sort());
  });

  it('never lists an internal variant or an inactive model', async () => {
    const ids = (await publicModels()).map((m) => m.id);
    expect(ids.some((id) => id.includes(':'))).toBe(false);
    expect(ids).not.toContain('kling-1-6');
    // They do exist in the catalog: the admin list shows them.
    const all = (await app.http.inject({ method: 'GET', url: '/admin/models', headers: admin })).json() as {
      id: string;
    }[];
    expect(all.map((m) => m.id)).toEqual(
      expect.arrayContaining(['seedance-2:1080p', 'veo-3-fast:audio', 'kling-1-6']),
    );
  });

  it('gives every entry the spec fields, with positive ruble prices', async () => {
    for (const m of await publicModels()) {
      expect(typeof m.name).toBe('string');
      expect(typeof m.provider).toBe('string');
      expect(['video', 'image', 'text']).toContain(m.kind);
      expect(typeof m.priceRub).toBe('number');
      expect(m.priceRub).toBeGreaterThan(0);
    }
  });

  it('bills video per shot or per second, images per shot, and text per million tokens in and out', async () => {
    const byId = new Map((await publicModels()).map((m) => [m.id, m]));
    expect(byId.get('seedance-2')).toMatchObject({ kind: 'video', unit: 'shot' });
    for (const id of ['kling-2-1', 'veo-3-fast', 'sora-2'])
      expect(byId.get(id)).toMatchObject({ kind: 'video', unit: 'sec' });
    expect(byId.get('seedance-1-pro')?.kind).toBe('video');
    for (const id of IMAGE) expect(byId.get(id)).toMatchObject({ kind: 'image', unit: 'shot' });
    const text = [...byId.values()].filter((m) => m.kind === 'text');
    expect(text).toHaveLength(17);
    for (const m of text) {
      expect(m.unit).toBe('mtok');
      expect(typeof m.priceOutputRub).toBe('number');
      expect(m.priceOutputRub).toBeGreaterThan(0);
    }
    // Non-text entries carry only the spec's fields.
    expect(Object.keys(byId.get('seedance-2')!).sort()).toEqual([
      'id',
      'kind',
      'name',
      'priceRub',
      'provider',
      'unit',
    ]);
  });
});

describe('GET /v1/models', () => {
  it("answers without authentication in OpenAI's list shape, listing the same models", async () => {
    const res = await app.http.inject({ method: 'GET', url: '/v1/models' });
    expect(res.statusCode).toBe(200);
    const body = res.json() as { object: string; data: Record<string, unknown>[] };
    expect(body.object).toBe('list');
    expect(body.data.map((m) => m.id)).toEqual((await publicModels()).map((m) => m.id));
    for (const m of body.data) {
      expect(Object.keys(m).sort()).toEqual(['created', 'id', 'object', 'owned_by']);
      expect(m.object).toBe('model');
      expect(Number.isInteger(m.created)).toBe(true);
      expect(m.created as number).toBeGreaterThan(1_600_000_000);
      expect(typeof m.owned_by).toBe('string');
    }
  });

  it('is read by the official openai package', async () => {
    const { default: OpenAI } = await import('openai');
    await app.http.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.http.server.address() as { port: number };
    const client = new OpenAI({ apiKey: 'unused', baseURL: `http://127.0.0.1:${port}/v1` });
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids.sort()).toEqual([...VIDEO, ...IMAGE, ...TEXT].sort());
  });
});

describe('catalog changes reach both lists', () => {
  const put = (id: string, body: Record<string, unknown>) =>
    app.http.inject({
      method: 'PUT',
      url: `/admin/models/${encodeURIComponent(id)}`,
      headers: admin,
      payload: body,
    });
  const base = {
    name: 'Test Video',
    provider: 'Acme',
    kind: 'video',
    unit: 'sec',
    priceRub: 2.5,
    active: true,
    visible: true,
  };

  it('lists a new model, hides it when inactive or invisible, and never lists it without a price', async () => {
    expect((await put('acme-video', base)).statusCode).toBe(200);
    expect((await publicModels()).find((m) => m.id === 'acme-video')).toEqual({
      id: 'acme-video',
      name: 'Test Video',
      provider: 'Acme',
      kind: 'video',
      unit: 'sec',
      priceRub: 2.5,
    });
    expect((await openAiModels()).data.map((m) => m.id)).toContain('acme-video');

    for (const change of [{ active: false }, { visible: false }, { priceRub: null }]) {
      expect((await put('acme-video', { ...base, ...change })).statusCode).toBe(200);
      expect((await publicModels()).map((m) => m.id)).not.toContain('acme-video');
      expect((await openAiModels()).data.map((m) => m.id)).not.toContain('acme-video');
    }
    expect((await put('acme-video', base)).statusCode).toBe(200);
    expect((await publicModels()).map((m) => m.id)).toContain('acme-video');
  });

  it('never lists an id with a colon, even active and visible', async () => {
    expect((await put('acme-video:4k', base)).statusCode).toBe(200);
    expect((await publicModels()).map((m) => m.id)).not.toContain('acme-video:4k');
    expect((await openAiModels()).data.map((m) => m.id)).not.toContain('acme-video:4k');
  });

  it('hides a text model that has no output price', async () => {
    const text = {
      name: 'Acme LM',
      provider: 'Acme',
      kind: 'text',
      unit: 'mtok',
      priceRub: 10,
      priceOutputRub: 20,
    };
    expect((await put('acme-lm', text)).statusCode).toBe(200);
    expect((await publicModels()).find((m) => m.id === 'acme-lm')).toMatchObject({
      priceRub: 10,
      priceOutputRub: 20,
    });
    expect((await put('acme-lm', { ...text, priceOutputRub: null })).statusCode).toBe(200);
    expect((await publicModels()).map((m) => m.id)).not.toContain('acme-lm');
  });
});

describe('GET /public/models/{id}', () => {
  const detail = (id: string) =>
    app.http.inject({ method: 'GET', url: `/public/models/${encodeURIComponent(id)}` });

  it('answers without authentication: the list entry plus params_schema, example and example_endpoint', async () => {
    for (const entry of await publicModels()) {
      const res = await detail(entry.id);
      expect(res.statusCode).toBe(200);
      const body = res.json() as Record<string, any>;
      expect(body).toMatchObject(entry as unknown as Record<string, unknown>);
      expect(Object.keys(body).sort()).toEqual(
        [...Object.keys(entry), 'params_schema', 'example', 'example_endpoint'].sort(),
      );
      if (entry.kind === 'text') {
        expect(body.params_schema).toBeNull();
        expect(body.example_endpoint).toBe('/v1/chat/completions');
        expect(body.example).toEqual({
          model: entry.id,
          messages: [{ role: 'user', content: expect.any(String) }],
        });
      } else {
        expect(body.example_endpoint).toBe('/generate');
        if ([...VIDEO, ...IMAGE].includes(entry.id)) {
          expect(body.params_schema).toMatchObject({
            type: 'object',
            required: expect.arrayContaining(['model_name']),
          });
          expect(body.example.params).toMatchObject({ model_name: entry.id, prompt: 'a lighthouse at dawn' });
        } else {
          // Added by the tests above without a schema: anything goes, and the example is the bare minimum.
          expect(body.params_schema).toBeNull();
          expect(body.example).toEqual({ params: { model_name: entry.id } });
        }
      }
    }
  });

  it('gives the whole schema and a minimal example for seedance-2', async () => {
    const body = (await detail('seedance-2')).json() as Record<string, any>;
    expect(body.params_schema.properties.duration).toEqual({
      type: 'integer',
      minimum: 5,
      maximum: 15,
      default: 5,
    });
    expect(body.params_schema.additionalProperties).toBe(false);
    expect(body.example).toEqual({ params: { model_name: 'seedance-2', prompt: 'a lighthouse at dawn' } });
  });

  it('answers 404 model_not_found in the error shape for unknown, internal, inactive, hidden and unpriced ids', async () => {
    const put = (id: string, body: Record<string, unknown>) =>
      app.http.inject({
        method: 'PUT',
        url: `/admin/models/${encodeURIComponent(id)}`,
        headers: admin,
        payload: body,
      });
    const base = { name: 'Hidden', provider: 'Acme', kind: 'image', unit: 'shot', priceRub: 1 };
    expect((await put('acme-hidden', { ...base, visible: false })).statusCode).toBe(200);
    expect((await put('acme-off', { ...base, active: false })).statusCode).toBe(200);
    expect((await put('acme-free', { ...base, priceRub: null })).statusCode).toBe(200);
    for (const id of [
      'no-such-model',
      'seedance-2:1080p',
      'veo-3-fast:audio',
      'kling-1-6',
      'acme-hidden',
      'acme-off',
      'acme-free',
      '__proto__',
      'SEEDANCE-2',
    ]) {
      const res = await detail(id);
      expect(res.statusCode, id).toBe(404);
      expect(res.json()).toEqual({
        error: {
          message: `Model not found: ${id}`,
          type: 'not_found_error',
          code: 'model_not_found',
          param: null,
        },
      });
    }
  });
});

describe("POST /generate accepts every public media model's example as is", () => {
  it('answers 202 for each, with a funded key', async () => {
    const tasks = await createTaskTestApp({ runner: false });
    try {
      const key = await tasks.newKey({ balanceRub: 100_000 });
      const models = (await tasks.http.inject({ method: 'GET', url: '/public/models' })).json() as Entry[];
      const media = models.filter((m) => m.kind !== 'text');
      expect(media.length).toBeGreaterThanOrEqual(9);
      for (const { id } of media) {
        const { example, example_endpoint } = (
          await tasks.http.inject({ method: 'GET', url: `/public/models/${id}` })
        ).json() as { example: unknown; example_endpoint: string };
        const res = await tasks.http.inject({
          method: 'POST',
          url: example_endpoint,
          headers: key.auth,
          payload: example as Record<string, unknown>,
        });
        expect({ id, status: res.statusCode, body: res.json() }).toEqual({
          id,
          status: 202,
          body: { task_id: expect.any(String) },
        });
      }
      await expectLedgerClean(tasks);
    } finally {
      await tasks.dispose();
    }
  });
});

describe('GET /healthz', () => {
  it('answers ok without authentication', async () => {
    const res = await app.http.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });
});
