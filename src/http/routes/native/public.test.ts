// GET /public/models and GET /v1/models: no auth, active + visible + priced public models only, the
// default catalog of DESIGN.md section 5, and OpenAI's list shape on /v1/models.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../../../testing/app.js';

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

describe('GET /healthz', () => {
  it('answers ok without authentication', async () => {
    const res = await app.http.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });
});
