// CORS (CORS_ORIGINS): off by default; for a listed origin the API's preflights answer 204 before
// the guard (no key, maintenance, no rate limit) and its answers, errors included, carry the origin;
// an unlisted origin and the paths outside the client API get no CORS headers at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestApp, type TestApp, type TestKey } from '../testing/app.js';

const ALLOWED = 'https://app.example.com';
const REQUESTED_HEADERS = 'authorization, content-type, idempotency-key';

function preflight(app: TestApp, url: string, origin: string, method = 'POST') {
  return app.http.inject({
    method: 'OPTIONS',
    url,
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': REQUESTED_HEADERS,
    },
  });
}

const corsHeaders = (headers: Record<string, unknown>) =>
  Object.keys(headers).filter((name) => name.startsWith('access-control-'));

describe('CORS off (the default)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.dispose());

  it('answers no preflight and adds no CORS header', async () => {
    const res = await preflight(app, '/v1/chat/completions', ALLOWED);
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('not_found');
    expect(corsHeaders(res.headers)).toEqual([]);
    const list = await app.http.inject({ method: 'GET', url: '/v1/models', headers: { origin: ALLOWED } });
    expect(list.statusCode).toBe(200);
    expect(corsHeaders(list.headers)).toEqual([]);
  });
});

describe('CORS_ORIGINS with a list of origins', () => {
  let app: TestApp;
  let key: TestKey;
  beforeAll(async () => {
    app = await createTestApp({ env: { CORS_ORIGINS: `${ALLOWED},http://localhost:5173` } });
    key = await app.newKey({ restrictions: { rate_limit_per_min: 1 } });
  });
  afterAll(() => app.dispose());

  it.each([
    ['/v1/chat/completions', 'POST'],
    ['/v1/responses', 'POST'],
    ['/v1/models/gpt-4o', 'GET'],
    ['/v1/videos/00000000-0000-4000-8000-000000000000', 'DELETE'],
    ['/generate', 'POST'],
    ['/tasks/00000000-0000-4000-8000-000000000000', 'GET'],
    ['/me/balance', 'GET'],
  ])('a preflight of %s %s from a listed origin is 204 with the CORS headers', async (url, method) => {
    const res = await preflight(app, url, ALLOWED, method);
    expect(res.statusCode).toBe(204);
    expect(res.headers).toMatchObject({
      'access-control-allow-origin': ALLOWED,
      'access-control-allow-headers': REQUESTED_HEADERS,
      'access-control-max-age': '86400',
    });
    expect(String(res.headers['access-control-allow-methods']).split(', ')).toContain(method);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(String(res.headers.vary)).toMatch(/Origin/);
  });

  it('reflects each listed origin, never another', async () => {
    const local = await preflight(app, '/v1/chat/completions', 'http://localhost:5173');
    expect(local.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    for (const origin of ['https://evil.example.com', 'https://app.example.com.evil.net', 'null']) {
      const res = await preflight(app, '/v1/chat/completions', origin);
      expect(res.statusCode, origin).toBe(404);
      expect(corsHeaders(res.headers), origin).toEqual([]);
      const get = await app.http.inject({ method: 'GET', url: '/v1/models', headers: { origin } });
      expect(corsHeaders(get.headers), origin).toEqual([]);
    }
  });

  it('covers only the client API: admin, panel, provider callbacks and metrics stay closed', async () => {
    for (const url of ['/admin/accounts', '/panel/login', '/hooks/simulator', '/metrics', '/healthz']) {
      const res = await preflight(app, url, ALLOWED);
      expect(res.statusCode, url).toBe(404);
      expect(corsHeaders(res.headers), url).toEqual([]);
    }
    const admin = await app.http.inject({
      method: 'GET',
      url: '/admin/models',
      headers: { origin: ALLOWED, authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(admin.statusCode).toBe(200);
    expect(corsHeaders(admin.headers)).toEqual([]);
  });

  it('answers and errors carry the origin and expose the headers clients read', async () => {
    const ok = await app.http.inject({
      method: 'GET',
      url: '/me/balance',
      headers: { origin: ALLOWED, ...key.auth },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(ALLOWED);
    const exposed = String(ok.headers['access-control-expose-headers']).split(', ');
    expect(exposed).toEqual(
      expect.arrayContaining([
        'Retry-After',
        'X-Should-Retry',
        'RateLimit-Remaining',
        'X-Request-Id',
        'X-Api-Version',
      ]),
    );

    // The key allows one request a minute: the second is a 429 the browser script can read.
    const limited = await app.http.inject({
      method: 'GET',
      url: '/me/balance',
      headers: { origin: ALLOWED, ...key.auth },
    });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(limited.headers['retry-after']).toBeDefined();

    const unauthorized = await app.http.inject({
      method: 'GET',
      url: '/me/balance',
      headers: { origin: ALLOWED, authorization: 'Bearer sk_live_wrong' },
    });
    expect(unauthorized.statusCode).toBe(401);
    expect(unauthorized.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(unauthorized.json().error.code).toBe('invalid_api_key');
  });

  it('preflights pass before the guard: no key, not rate limited, and in maintenance', async () => {
    // The key above is out of requests for this minute; preflights carry no key and are not counted.
    for (let i = 0; i < 3; i++)
      expect((await preflight(app, '/me/balance', ALLOWED, 'GET')).statusCode).toBe(204);
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    await app.http.inject({
      method: 'PUT',
      url: '/admin/maintenance',
      headers: admin,
      payload: { enabled: true },
    });
    try {
      expect((await preflight(app, '/v1/chat/completions', ALLOWED)).statusCode).toBe(204);
      const closed = await app.http.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { origin: ALLOWED, ...key.auth, 'content-type': 'application/json' },
        payload: {},
      });
      expect(closed.statusCode).toBe(503);
      expect(closed.headers['access-control-allow-origin']).toBe(ALLOWED);
    } finally {
      await app.http.inject({
        method: 'PUT',
        url: '/admin/maintenance',
        headers: admin,
        payload: { enabled: false },
      });
    }
  });
});

describe('CORS_ORIGINS=*', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ env: { CORS_ORIGINS: '*' } });
  });
  afterAll(() => app.dispose());

  it('allows any origin on the API, still not on the admin API', async () => {
    const res = await preflight(app, '/v1/videos', 'https://anything.example.org');
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://anything.example.org');
    const admin = await preflight(app, '/admin/accounts', 'https://anything.example.org');
    expect(corsHeaders(admin.headers)).toEqual([]);
  });
});
