// The panel's lookups by a name from the URL (its page files and assets, the "done" messages of
// the feature pages) and the audit log's labels answer the names every object inherits
// (`__proto__`, `constructor`, `toString`…) as unknown: the 404 page or no message, never a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INHERITED_NAMES } from '../domain/own-entry.js';
import { actionLabel, describeDetails } from '../services/panel/panel-audit.js';
import { createTestApp, type TestApp } from '../testing/app.js';
import { signIn } from '../testing/panel.js';

describe('names every object inherits, in the panel', () => {
  let app: TestApp;
  let cookie: string;
  const serverErrors: string[] = [];

  beforeAll(async () => {
    app = await createTestApp();
    app.http.addHook('onResponse', async (request, reply) => {
      if (reply.statusCode >= 500) serverErrors.push(request.url);
    });
    cookie = await signIn(app, (await app.newKey()).messagingId);
  });
  afterAll(() => app.dispose());

  const get = (url: string) => app.http.inject({ method: 'GET', url, headers: { cookie } });

  // The pages' files are served with the shared assets now; /panel/pages/* is no route at all.
  it.each(INHERITED_NAMES)('GET /panel/pages/%s is the 404 page', async (name) => {
    const res = await get(`/panel/pages/${encodeURIComponent(name)}`);
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('Not found');
  });

  it.each(INHERITED_NAMES)('GET /panel/assets/%s is 404', async (name) => {
    expect((await get(`/panel/assets/${encodeURIComponent(name)}`)).statusCode).toBe(404);
    expect((await get('/panel/assets/pages.css')).statusCode).toBe(200);
  });

  it.each(INHERITED_NAMES)('?done=%s shows no message on the keys, money and tasks pages', async (name) => {
    for (const page of ['/panel/keys', '/panel/money', '/panel/tasks']) {
      const res = await get(`${page}?done=${encodeURIComponent(name)}`);
      expect(res.statusCode, page).toBe(200);
      expect(res.body).not.toContain('flash-ok');
    }
    expect((await get('/panel/keys?done=created')).body).toContain('Key created.');
  });

  it.each(INHERITED_NAMES)('an audit action or detail named %s is shown as written', (name) => {
    expect(actionLabel(name)).toBe(name);
    expect(describeDetails(JSON.stringify({ [name]: 'x' }), new Map())).toBe(`${name.replace(/_/g, ' ')}: x`);
  });

  it('none of it answered 5xx', () => {
    expect(serverErrors).toEqual([]);
  });
});
