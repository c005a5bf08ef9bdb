// Maintenance mode: every API endpoint answers 503 with Retry-After, before authentication, while
// the admin API, /healthz, /metrics, /openapi.json and /docs keep working.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestApp, type TestApp, type TestKey } from '../testing/app.js';

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
let app: TestApp;
let key: TestKey;
beforeAll(async () => {
  app = await createTestApp();
  key = await app.newKey({ balanceRub: 100 });
});
afterAll(() => app.dispose());

const setMaintenance = async (enabled: boolean) => {
  const res = await app.http.inject({
    method: 'PUT',
    url: '/admin/maintenance',
    headers: admin,
    payload: { enabled },
  });
  expect(res.json()).toEqual({ enabled });
};

type Request = { method: 'GET' | 'POST'; url: string; payload?: object };
const API: Request[] = [
  { method: 'GET', url: '/public/models' },
  { method: 'GET', url: '/v1/models' },
  { method: 'GET', url: '/me/balance' },
  { method: 'GET', url: '/me/keys' },
  { method: 'POST', url: '/generate', payload: { params: { model_name: 'seedance-2', prompt: 'x' } } },
  { method: 'GET', url: '/tasks/00000000-0000-4000-8000-000000000000' },
  {
    method: 'POST',
    url: '/v1/chat/completions',
    payload: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] },
  },
  { method: 'POST', url: '/v1/images/generations', payload: { model: 'flux-1-1-pro', prompt: 'x' } },
  { method: 'POST', url: '/v1/videos', payload: { model: 'sora-2', prompt: 'x' } },
  { method: 'GET', url: '/no/such/endpoint' },
];

describe('maintenance mode', () => {
  it('answers 503 with Retry-After on every API endpoint, with a valid, an invalid or no key', async () => {
    await setMaintenance(true);
    try {
      for (const request of API) {
        for (const headers of [key.auth, { authorization: 'Bearer sk_live_not_a_real_key_at_all' }, {}]) {
          const res = await app.http.inject({ ...request, headers });
          expect(res.statusCode, `${request.method} ${request.url}`).toBe(503);
          expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
          expect(res.json()).toEqual({
            error: {
              message: expect.any(String),
              type: 'service_unavailable',
              code: 'maintenance',
              param: null,
            },
          });
        }
      }
      // Nothing ran behind the 503s.
      expect(await app.ctx.storage.db.selectFrom('tasks').select('id').execute()).toEqual([]);
      expect(await app.ctx.storage.ledger.countForKey(key.keyId)).toBe(1);
    } finally {
      await setMaintenance(false);
    }
  });

  it('keeps the admin API, /healthz, /metrics, /openapi.json and /docs working', async () => {
    await setMaintenance(true);
    try {
      expect(
        (await app.http.inject({ method: 'GET', url: '/admin/models', headers: admin })).statusCode,
      ).toBe(200);
      const topup = await app.http.inject({
        method: 'POST',
        url: `/admin/keys/${key.keyId}/topup`,
        headers: admin,
        payload: { amount_rub: 1 },
      });
      expect(topup.json()).toEqual({ balance: 101 });
      expect((await app.http.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      expect((await app.http.inject({ method: 'GET', url: '/openapi.json' })).statusCode).toBe(200);
      const docs = await app.http.inject({ method: 'GET', url: '/docs' });
      expect([200, 302]).toContain(docs.statusCode);
      const metrics = await app.http.inject({ method: 'GET', url: '/metrics' });
      expect(metrics.statusCode).not.toBe(503);
    } finally {
      await setMaintenance(false);
    }
  });

  it('lets everything through again once turned off', async () => {
    await setMaintenance(true);
    await setMaintenance(false);
    expect((await app.http.inject({ method: 'GET', url: '/public/models' })).statusCode).toBe(200);
    expect((await app.http.inject({ method: 'GET', url: '/me/balance', headers: key.auth })).statusCode).toBe(
      200,
    );
  });
});

describe('API documentation', () => {
  it('serves the OpenAPI document at /openapi.json', async () => {
    const res = await app.http.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json() as { openapi: string; info: { title: string }; paths: Record<string, unknown> };
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.title).toBe('gengate');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/public/models', '/v1/models', '/me/keys', '/me/balance']),
    );
    // Probes are documented, with no security (docs/openapi.md).
    expect((doc.paths['/healthz'] as { get: { security: unknown } }).get.security).toEqual([]);
  });

  it('serves a docs page at /docs', async () => {
    const res = await app.http.inject({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body.toLowerCase()).toContain('swagger');
    const redirect = await app.http.inject({ method: 'GET', url: '/docs' });
    expect([200, 302]).toContain(redirect.statusCode);
  });
});
