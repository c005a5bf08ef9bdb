// X-Request-Id in and out and X-Api-Version on every response: success, errors from the guard, 404s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app.js';
import { API_VERSION } from './api-version.js';
import { loggableUrl } from './plugins/request-context.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => app?.dispose());

describe('X-Request-Id and X-Api-Version', () => {
  it("takes the client's X-Request-Id and answers with it", async () => {
    const id = 'client-trace_01:abc.DEF';
    const res = await app.http.inject({ url: '/public/models', headers: { 'x-request-id': id } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-request-id']).toBe(id);
    expect(res.headers['x-api-version']).toBe(API_VERSION);
  });

  it('generates its own id when none is given, different per request', async () => {
    const a = await app.http.inject({ url: '/public/models' });
    const b = await app.http.inject({ url: '/public/models' });
    expect(a.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
    expect(b.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });

  it.each([
    ['too long', 'a'.repeat(129)],
    ['spaces', 'has space'],
    ['a newline-free injection attempt', 'id"},{"level":60'],
    ['non-ASCII', 'идентификатор'],
    ['empty', ''],
  ])('replaces an invalid client id (%s) with its own', async (_, id) => {
    const res = await app.http.inject({ url: '/public/models', headers: { 'x-request-id': id } });
    expect(res.headers['x-request-id']).not.toBe(id);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
  });

  it('accepts an id of exactly 128 characters', async () => {
    const id = 'x'.repeat(128);
    const res = await app.http.inject({ url: '/public/models', headers: { 'x-request-id': id } });
    expect(res.headers['x-request-id']).toBe(id);
  });

  it('sets both headers on errors: 401 from the guard, 404, 400 from a body', async () => {
    const unauthorized = await app.http.inject({ url: '/me/balance', headers: { 'x-request-id': 'r-401' } });
    expect(unauthorized.statusCode).toBe(401);
    expect(unauthorized.json().error.code).toBeDefined();
    expect(unauthorized.headers['x-request-id']).toBe('r-401');
    expect(unauthorized.headers['x-api-version']).toBe(API_VERSION);

    const missing = await app.http.inject({ url: '/no/such/route', headers: { 'x-request-id': 'r-404' } });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['x-request-id']).toBe('r-404');
    expect(missing.headers['x-api-version']).toBe(API_VERSION);

    const key = await app.newKey();
    const bad = await app.http.inject({
      method: 'POST',
      url: '/generate',
      headers: { ...key.auth, 'content-type': 'application/json', 'x-request-id': 'r-400' },
      payload: '{not json',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['x-request-id']).toBe('r-400');
    expect(bad.headers['x-api-version']).toBe(API_VERSION);
  });

  it('sets both headers on a streamed (SSE) answer too', async () => {
    const key = await app.newKey();
    const res = await app.http.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { ...key.auth, 'x-request-id': 'r-stream' },
      payload: { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/event-stream/);
    expect(res.headers['x-request-id']).toBe('r-stream');
    expect(res.headers['x-api-version']).toBe(API_VERSION);
  });

  it('GET /version answers the API version and the build', async () => {
    const res = await app.http.inject({ url: '/version' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ api_version: API_VERSION, build: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect(API_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('loggableUrl', () => {
  it('redacts the values of secret-looking query parameters and keeps the rest', () => {
    expect(loggableUrl('/panel/login?token=abc123')).toBe('/panel/login?token=[redacted]');
    expect(loggableUrl('/panel/telegram?id=42&hash=ab12')).toBe('/panel/telegram?id=42&hash=[redacted]');
    expect(loggableUrl('/hooks/fal?task=t_1&token=s3cr3t')).toBe('/hooks/fal?task=t_1&token=[redacted]');
    expect(loggableUrl('/x?api_key=k&sig=s&limit=5&flag')).toBe(
      '/x?api_key=[redacted]&sig=[redacted]&limit=5&flag',
    );
    expect(loggableUrl('/tasks/t_1')).toBe('/tasks/t_1');
  });
});
