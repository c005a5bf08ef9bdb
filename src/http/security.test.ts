// What stands between a key and an action, attacked from outside: spoofed client addresses, IPv6
// allowlists, models outside a key's list through every generating endpoint, rate limits on paid
// endpoints, and one account probing another's tasks. Every refusal is checked for what it did not
// write: no task, no ledger entry, no usage record.
import { randomUUID } from 'node:crypto';
import type { HTTPMethods } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestKey } from '../testing/app.js';
import { rowCount } from '../testing/tasks.js';
import { startTaskRunner } from '../workers/task-runner.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.dispose());

async function rowCounts() {
  return {
    tasks: await rowCount(app, 'tasks'),
    ledger: await rowCount(app, 'ledger_entries'),
    usage: await rowCount(app, 'usage_records'),
  };
}

/** Every endpoint under test must exist: a missing route fails instead of passing silently. */
function requireRoute(method: HTTPMethods, url: string) {
  expect(app.http.hasRoute({ method, url }), `${method} ${url} is registered`).toBe(true);
}

function post(url: string, key: TestKey, body: unknown, remoteAddress?: string) {
  return app.http.inject({
    method: 'POST',
    url,
    headers: key.auth,
    payload: body as Record<string, unknown>,
    remoteAddress,
  });
}

const GENERATING = [
  {
    url: '/generate',
    model: 'flux-1-1-pro',
    body: (model: string) => ({ params: { model_name: model, prompt: 'a red fox in snow' } }),
  },
  {
    url: '/v1/images/generations',
    model: 'flux-1-1-pro',
    body: (model: string) => ({ model, prompt: 'a red fox in snow' }),
  },
  {
    url: '/v1/videos',
    model: 'kling-2-1',
    body: (model: string) => ({ model, prompt: 'a red fox in snow', seconds: '5' }),
  },
  {
    url: '/v1/chat/completions',
    model: 'gpt-4o-mini',
    body: (model: string) => ({ model, messages: [{ role: 'user', content: 'Say hi' }] }),
  },
] as const;

describe('client address', () => {
  it('a spoofed X-Forwarded-For does not get a foreign caller past the allowlist (no TRUST_PROXY)', async () => {
    expect(app.config.trustProxy).toBe(false);
    const key = await app.newKey({ restrictions: { allowed_ip_cidrs: ['10.0.0.0/8', '2001:db8::/32'] } });
    for (const forwarded of ['10.0.0.1', '2001:db8::1', '10.0.0.1, 10.0.0.2', '::ffff:10.0.0.1']) {
      const res = await app.http.inject({
        method: 'GET',
        url: '/me/balance',
        headers: {
          ...key.auth,
          'x-forwarded-for': forwarded,
          'x-real-ip': '10.0.0.1',
          forwarded: 'for=10.0.0.1',
        },
        remoteAddress: '198.51.100.20',
      });
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('ip_not_allowed');
    }
  });

  it('IPv6 allowlists: a /64 admits its hosts and nobody else, IPv4 callers included', async () => {
    const key = await app.newKey({ restrictions: { allowed_ip_cidrs: ['2001:db8:aa:bb::/64'] } });
    const call = (remoteAddress: string) =>
      app.http.inject({ method: 'GET', url: '/me/balance', headers: key.auth, remoteAddress });
    expect((await call('2001:db8:aa:bb::1')).statusCode).toBe(200);
    expect((await call('2001:db8:aa:bb:ffff:ffff:ffff:ffff')).statusCode).toBe(200);
    expect((await call('2001:0db8:00aa:00bb:0000:0000:0000:0002')).statusCode).toBe(200);
    for (const outside of ['2001:db8:aa:bc::1', '2001:db8:aa::1', '::1', '127.0.0.1', '::ffff:127.0.0.1']) {
      const res = await call(outside);
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('ip_not_allowed');
    }
  });

  it('a caller outside the allowlist cannot create a task', async () => {
    requireRoute('POST', '/generate');
    const key = await app.newKey({ restrictions: { allowed_ip_cidrs: ['2001:db8::/32'] } });
    const before = await rowCounts();
    const res = await post('/generate', key, GENERATING[0].body('flux-1-1-pro'), '198.51.100.20');
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('ip_not_allowed');
    expect(await rowCounts()).toEqual(before);
  });
});

describe('allowed_models through every generating endpoint', () => {
  it.for(GENERATING)(
    '$url: a model outside the list is 403 model_not_allowed and writes nothing',
    async ({ url, model, body }) => {
      requireRoute('POST', url);
      const key = await app.newKey({ restrictions: { allowed_models: ['seedream-4'] } });
      const before = await rowCounts();
      const res = await post(url, key, body(model));
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({
        error: {
          message: expect.stringContaining(model),
          type: 'permission_error',
          code: 'model_not_allowed',
          param: expect.any(String),
        },
      });
      expect(await rowCounts()).toEqual(before);
    },
  );

  it.for(GENERATING)(
    '$url: the same request passes once the model is on the list',
    async ({ url, model, body }) => {
      requireRoute('POST', url);
      const key = await app.newKey({ restrictions: { allowed_models: ['seedream-4', model] } });
      // The synchronous image endpoint answers only once its task is final, so run the engine for it;
      // the other tests count rows and need no settlement landing in the background.
      const runner = startTaskRunner(app.ctx, () => {});
      try {
        const res = await post(url, key, body(model));
        expect(res.statusCode, res.body).toBeLessThan(300);
      } finally {
        await runner.stop();
      }
    },
  );

  it('the listing endpoints stay public and list every model', async () => {
    for (const url of ['/public/models', '/v1/models']) {
      const res = await app.http.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('flux-1-1-pro');
      expect(res.body).toContain('gpt-4o-mini');
    }
  });
});

describe('rate limit on a paid endpoint', () => {
  it('the request over the limit is 429 and creates no task and no hold', async () => {
    requireRoute('POST', '/generate');
    const key = await app.newKey({ restrictions: { rate_limit_per_min: 2 } });
    for (let i = 0; i < 2; i++)
      expect((await post('/generate', key, GENERATING[0].body('flux-1-1-pro'))).statusCode).toBe(202);
    const before = await rowCounts();
    const res = await post('/generate', key, GENERATING[0].body('flux-1-1-pro'));
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBeDefined();
    expect(await rowCounts()).toEqual(before);
  });

  it('polling counts against the limit', async () => {
    requireRoute('GET', '/tasks/:id');
    const key = await app.newKey({ restrictions: { rate_limit_per_min: 2 } });
    const poll = () => app.http.inject({ method: 'GET', url: `/tasks/${randomUUID()}`, headers: key.auth });
    expect((await poll()).statusCode).toBe(404);
    expect((await poll()).statusCode).toBe(404);
    expect((await poll()).statusCode).toBe(429);
  });
});

describe('tenancy', () => {
  it('a key of another account gets 404 for a task, exactly as for an unknown id', async () => {
    requireRoute('POST', '/generate');
    requireRoute('GET', '/tasks/:id');
    const owner = await app.newKey();
    const stranger = await app.newKey();
    const created = await post('/generate', owner, GENERATING[0].body('flux-1-1-pro'));
    expect(created.statusCode).toBe(202);
    const taskId: string = created.json().task_id;

    expect(
      (await app.http.inject({ method: 'GET', url: `/tasks/${taskId}`, headers: owner.auth })).statusCode,
    ).toBe(200);
    const foreign = await app.http.inject({ method: 'GET', url: `/tasks/${taskId}`, headers: stranger.auth });
    const unknownId = randomUUID();
    const unknown = await app.http.inject({
      method: 'GET',
      url: `/tasks/${unknownId}`,
      headers: stranger.auth,
    });
    expect(foreign.statusCode).toBe(404);
    expect(unknown.statusCode).toBe(404);
    expect(foreign.body.replaceAll(taskId, '<id>')).toBe(unknown.body.replaceAll(unknownId, '<id>'));
  });

  it("another account's video is 404 on /v1/videos/{id} and its content", async () => {
    requireRoute('POST', '/v1/videos');
    requireRoute('GET', '/v1/videos/:id');
    const owner = await app.newKey();
    const stranger = await app.newKey();
    const created = await post('/v1/videos', owner, GENERATING[2].body('kling-2-1'));
    expect(created.statusCode).toBeLessThan(300);
    const videoId: string = created.json().id;
    expect(
      (await app.http.inject({ method: 'GET', url: `/v1/videos/${videoId}`, headers: owner.auth }))
        .statusCode,
    ).toBe(200);
    for (const url of [`/v1/videos/${videoId}`, `/v1/videos/${videoId}/content`]) {
      if (!app.http.hasRoute({ method: 'GET', url: url.replace(videoId, ':id') })) continue;
      const res = await app.http.inject({ method: 'GET', url, headers: stranger.auth });
      expect(res.statusCode).toBe(404);
      expect(res.body).not.toContain(owner.secret);
    }
  });

  it('a key never reads another account through /me', async () => {
    const first = await app.newKey({ balanceRub: 10 });
    const second = await app.newKey({ balanceRub: 20 });
    const me = async (key: TestKey) =>
      (await app.http.inject({ method: 'GET', url: '/me/balance', headers: key.auth })).json();
    expect(await me(first)).toEqual({ key_balance: 10 });
    expect(await me(second)).toEqual({ key_balance: 20 });
    const keys = (await app.http.inject({ method: 'GET', url: '/me/keys', headers: second.auth })).body;
    expect(keys).not.toContain(`"messaging_id":${first.messagingId}`);
  });

  it('an API key is not an admin token', async () => {
    const key = await app.newKey();
    const res = await app.http.inject({
      method: 'GET',
      url: `/admin/accounts/${key.messagingId}`,
      headers: key.auth,
    });
    expect(res.statusCode).toBe(401);
  });
});

describe('the OpenAI generation endpoints (/v1/images/generations, /v1/videos)', () => {
  it('a key restricted to other models gets 403 for an explicit and for a default model; nothing is written', async () => {
    const key = await app.newKey({ restrictions: { allowed_models: ['seedream-4'] } });
    const before = await rowCounts();
    for (const [url, body, model] of [
      ['/v1/images/generations', { model: 'flux-1-1-pro', prompt: 'p' }, 'flux-1-1-pro'],
      ['/v1/images/generations', { prompt: 'p' }, 'gpt-image-1'],
      ['/v1/videos', { model: 'kling-2-1', prompt: 'p' }, 'kling-2-1'],
      ['/v1/videos', { prompt: 'p' }, 'sora-2'],
    ] as const) {
      const res = await post(url, key, body);
      expect(res.statusCode, `${url} ${model}`).toBe(403);
      expect(res.json().error).toMatchObject({
        code: 'model_not_allowed',
        param: 'model',
        message: expect.stringContaining(model),
      });
    }
    expect(await rowCounts()).toEqual(before);
  });

  it('an allowed model cannot smuggle a disallowed model_name through extra_body, the top level or a form', async () => {
    const key = await app.newKey({ restrictions: { allowed_models: ['seedream-4', 'sora-2'] } });
    const before = await rowCounts();
    const attempts = [
      post('/v1/images/generations', key, {
        model: 'seedream-4',
        prompt: 'p',
        extra_body: { model_name: 'flux-1-1-pro' },
      }),
      post('/v1/images/generations', key, { model: 'seedream-4', prompt: 'p', model_name: 'flux-1-1-pro' }),
      post('/v1/videos', key, { model: 'sora-2', prompt: 'p', extra_body: { model_name: 'kling-2-1' } }),
      (async () => {
        const form = new FormData();
        form.append('model', 'sora-2');
        form.append('prompt', 'p');
        form.append('extra_body[model_name]', 'kling-2-1');
        const request = new Request('http://localhost/', { method: 'POST', body: form });
        return app.http.inject({
          method: 'POST',
          url: '/v1/videos',
          headers: { ...key.auth, 'content-type': request.headers.get('content-type') as string },
          payload: Buffer.from(await request.arrayBuffer()),
        });
      })(),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.statusCode).toBe(422);
      expect(res.json().error.code).toBe('invalid_parameter');
      expect(res.json().error.message).toContain('name the model with "model"');
    }
    expect(await rowCounts()).toEqual(before);
  });

  it('internal billing variants are unknown models on both endpoints', async () => {
    const key = await app.newKey();
    const before = await rowCounts();
    for (const [url, model] of [
      ['/v1/videos', 'seedance-2:1080p'],
      ['/v1/videos', 'veo-3-fast:audio'],
      ['/v1/images/generations', 'seedance-2:1080p'],
    ] as const) {
      const res = await post(url, key, { model, prompt: 'p' });
      expect([res.statusCode, res.json().error.code]).toEqual([404, 'model_not_found']);
    }
    expect(await rowCounts()).toEqual(before);
  });

  it("another account's video is the same 404 as an unknown id, on the object and on its content", async () => {
    const owner = await app.newKey();
    const stranger = await app.newKey();
    const created = await post('/v1/videos', owner, { model: 'kling-2-1', prompt: 'p', seconds: '5' });
    expect(created.statusCode).toBe(200);
    const id: string = created.json().id;
    const unknownId = randomUUID();
    for (const suffix of ['', '/content']) {
      const foreign = await app.http.inject({
        method: 'GET',
        url: `/v1/videos/${id}${suffix}`,
        headers: stranger.auth,
      });
      const unknown = await app.http.inject({
        method: 'GET',
        url: `/v1/videos/${unknownId}${suffix}`,
        headers: stranger.auth,
      });
      expect([foreign.statusCode, unknown.statusCode]).toEqual([404, 404]);
      expect(foreign.body).toBe(unknown.body);
      expect(foreign.body).not.toContain(id);
    }
  });

  it("the same Idempotency-Key under another account's key never replays the other account's video", async () => {
    const owner = await app.newKey();
    const stranger = await app.newKey();
    const body = { model: 'kling-2-1', prompt: 'p', seconds: '5' };
    const headers = { 'idempotency-key': 'shared-idem-key-1' };
    const mine = await app.http.inject({
      method: 'POST',
      url: '/v1/videos',
      headers: { ...owner.auth, ...headers },
      payload: body,
    });
    const theirs = await app.http.inject({
      method: 'POST',
      url: '/v1/videos',
      headers: { ...stranger.auth, ...headers },
      payload: body,
    });
    expect([mine.statusCode, theirs.statusCode]).toEqual([200, 200]);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.json().id).not.toBe(mine.json().id);
    const stolen = await app.http.inject({
      method: 'GET',
      url: `/v1/videos/${mine.json().id}`,
      headers: stranger.auth,
    });
    expect(stolen.statusCode).toBe(404);
  });
});
