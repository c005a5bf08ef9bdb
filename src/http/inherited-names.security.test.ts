// The API's lookups by a name a client chooses (model ids in paths and bodies, object names,
// provider names of callbacks, the simulator's directives) answer the names every object inherits
// (`__proto__`, `constructor`, `toString`…) like any other unknown name: a 4xx in the error shape
// (or the simulator's generic failure), never a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INHERITED_NAMES } from '../domain/own-entry.js';
import { createTestApp, type TestApp, type TestKey } from '../testing/app.js';

describe('names every object inherits, in the API', () => {
  let app: TestApp;
  let key: TestKey;

  beforeAll(async () => {
    app = await createTestApp();
    key = await app.newKey({ balanceRub: 100 });
  });
  afterAll(() => app.dispose());

  const errorCode = (body: string) => (JSON.parse(body) as { error?: { code?: string } }).error?.code;

  it.each(INHERITED_NAMES)('%s as a model id in a path is 404 model_not_found', async (name) => {
    for (const url of [
      `/v1/models/${encodeURIComponent(name)}`,
      `/public/models/${encodeURIComponent(name)}`,
    ]) {
      const res = await app.http.inject({ method: 'GET', url, headers: key.auth });
      expect(res.statusCode, url).toBe(404);
      expect(errorCode(res.body), url).toBeDefined();
    }
  });

  it.each(INHERITED_NAMES)('%s as a model in a body is refused as an unknown model', async (name) => {
    const chat = await app.http.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: key.auth,
      payload: { model: name, messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(chat.statusCode).toBe(404);
    const task = await app.http.inject({
      method: 'POST',
      url: '/generate',
      headers: key.auth,
      payload: { params: { model_name: name, prompt: 'a cat' } },
    });
    expect(task.statusCode).toBe(404);
  });

  it.each(INHERITED_NAMES)('%s as an object name or a callback provider is 404', async (name) => {
    const object = await app.http.inject({ method: 'GET', url: `/objects/${encodeURIComponent(name)}` });
    expect(object.statusCode).toBe(404);
    const hook = await app.http.inject({
      method: 'POST',
      url: `/hooks/${encodeURIComponent(name)}`,
      payload: {},
    });
    expect(hook.statusCode).toBe(404);
  });

  it.each(INHERITED_NAMES)('[sim:fail=%s] is the simulator’s generic upstream failure', async (name) => {
    const res = await app.http.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: key.auth,
      payload: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: `hi [sim:fail=${name}]` }] },
    });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).not.toBe(500);
    expect(errorCode(res.body)).toBe('upstream_error');
  });
});
