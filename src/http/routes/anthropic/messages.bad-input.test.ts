// POST /v1/messages refusals: each bad input answers Anthropic's shape with its status before any
// hold (no usage row, the balance untouched) and before any upstream call. Also the guard's
// answers on this route (401, 503 maintenance), x-api-key, the body limit that admits Claude Code's
// large bodies, and GET /v1/models in Anthropic's shape when asked with anthropic-version.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cannotPoison } from '../../../domain/poison-spellings.js';
import { ADMIN_TOKEN, createTestApp, type TestApp, type TestKey } from '../../../testing/app.js';
import { balanceOf, settledUsage } from '../../../testing/chat.js';
import { FakeAnthropic } from '../../../testing/fakes/anthropic.js';
import { MESSAGES_BODY_LIMIT_BYTES } from './messages.js';

const UPSTREAM_KEY = 'sk-ant-api03-bad-input-upstream';
const CLAUDE = 'claude-sonnet-4-5';
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

let anthropic: FakeAnthropic;
let app: TestApp;
let key: TestKey;

beforeAll(async () => {
  anthropic = await new FakeAnthropic(UPSTREAM_KEY).start();
  const providersFile = join(mkdtempSync(join(tmpdir(), 'gengate-messages-bad-')), 'providers.json');
  writeFileSync(
    providersFile,
    JSON.stringify({
      providers: { claude: { type: 'anthropic', base_url: anthropic.origin, api_key: UPSTREAM_KEY } },
      routes: {
        [CLAUDE]: { provider: 'claude', model: 'claude-sonnet-4-5-20250929' },
        'claude-3-5-haiku': { provider: 'claude', model: 'claude-3-5-haiku-20241022' },
      },
    }),
  );
  app = await createTestApp({ config: { providersFile } });
  key = await app.newKey({ balanceRub: 100 });
});

afterAll(async () => {
  await app.dispose();
  await anthropic.close();
});

beforeEach(() => anthropic.reset());

const post = (payload: string | Record<string, unknown>, headers: Record<string, string> = {}) =>
  app.http.inject({
    method: 'POST',
    url: '/v1/messages?beta=true',
    headers: { 'x-api-key': key.secret, 'content-type': 'application/json', ...headers },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });

const valid = { model: CLAUDE, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };

async function expectRefused(
  res: Awaited<ReturnType<typeof post>>,
  status: number,
  type: string,
  message?: RegExp,
) {
  expect(res.statusCode).toBe(status);
  const body = res.json();
  expect(body).toEqual({ type: 'error', error: { type, message: expect.any(String) } });
  if (message) expect(body.error.message).toMatch(message);
  expect(anthropic.calls).toHaveLength(0);
  expect(await app.ctx.storage.usage.listForAccount(key.accountId, { keyId: key.keyId })).toEqual([]);
  expect(await balanceOf(app, key.keyId)).toEqual({ balance: 100_000_000, held: 0 });
}

describe('bad input: Anthropic-shaped refusals before any hold', () => {
  it('malformed JSON is a 400', async () => {
    await expectRefused(await post('{"model": "claude-sonnet-4-5", '), 400, 'invalid_request_error', /JSON/);
  });

  it('a __proto__ key (spelled out or escaped) or a constructor.prototype is a 400', async () => {
    const messages = '"messages": [{"role": "user", "content": "hi"}]';
    for (const poison of [
      '"__proto__": {"admin": true}',
      '"\\u005f_proto__": {"admin": true}',
      '"metadata": {"constructor": {"prototype": {"admin": true}}}',
      '"metadata": {"c\\u006fnstructor": {"pr\\u006ftotype": {"admin": true}}}',
    ]) {
      const text = `{"model": "${CLAUDE}", "max_tokens": 10, ${messages}, ${poison}}`;
      expect(cannotPoison(text)).toBe(false);
      await expectRefused(await post(text), 400, 'invalid_request_error');
    }
  });

  it('a body that is not an object is a 400', async () => {
    await expectRefused(await post('[1, 2]'), 400, 'invalid_request_error');
  });

  it('missing messages, missing max_tokens, a bad max_tokens', async () => {
    await expectRefused(
      await post({ model: CLAUDE, max_tokens: 10 }),
      400,
      'invalid_request_error',
      /messages: Field required/,
    );
    await expectRefused(
      await post({ model: CLAUDE, messages: valid.messages }),
      400,
      'invalid_request_error',
      /max_tokens: Field required/,
    );
    await expectRefused(await post({ ...valid, max_tokens: 0 }), 400, 'invalid_request_error', /max_tokens/);
    await expectRefused(await post({ ...valid, messages: [] }), 400, 'invalid_request_error', /messages/);
  });

  it('a wrong role order: a first assistant turn, a system role inside messages, tool blocks in the wrong turn', async () => {
    await expectRefused(
      await post({ ...valid, messages: [{ role: 'assistant', content: 'hello' }] }),
      400,
      'invalid_request_error',
      /first message must use the "user" role/,
    );
    await expectRefused(
      await post({
        ...valid,
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'hi' },
        ],
      }),
      400,
      'invalid_request_error',
      /top-level system/,
    );
    await expectRefused(
      await post({
        ...valid,
        messages: [{ role: 'user', content: [{ type: 'tool_use', id: 't', name: 'x', input: {} }] }],
      }),
      400,
      'invalid_request_error',
      /only allowed in assistant messages/,
    );
  });

  it('an unknown model and an internal ":" id are 404 not_found_error', async () => {
    await expectRefused(await post({ ...valid, model: 'claude-9000' }), 404, 'not_found_error');
    await expectRefused(await post({ ...valid, model: 'seedance-2:1080p' }), 404, 'not_found_error');
    await expectRefused(await post({ ...valid, model: 'seedance-2' }), 404, 'not_found_error');
  });

  it('an image on a model without vision is a 400', async () => {
    await expectRefused(
      await post({
        ...valid,
        model: 'claude-3-5-haiku',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
              { type: 'text', text: 'What is this?' },
            ],
          },
        ],
      }),
      400,
      'invalid_request_error',
      /does not accept image input/,
    );
  });

  it('a body over the limit is a 413 request_too_large; a Claude Code-sized body is admitted', async () => {
    const huge = 'x'.repeat(MESSAGES_BODY_LIMIT_BYTES + 1024);
    await expectRefused(
      await post({ ...valid, messages: [{ role: 'user', content: huge }] }),
      413,
      'request_too_large',
    );
    // 2 MB of prompt: well above the 1 MB default body limit of the other routes. Its hold (2M
    // tokens at the cache-write price) needs a larger balance than the shared key's.
    const rich = await app.newKey({ balanceRub: 2000 });
    anthropic.script({
      content: [{ type: 'text', text: 'ok' }],
      usage: { input_tokens: 500_000, output_tokens: 1 },
    });
    const big = 'y'.repeat(2 * 1024 * 1024);
    const res = await post(
      { ...valid, messages: [{ role: 'user', content: big }] },
      { 'x-api-key': rich.secret },
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().model).toBe(CLAUDE);
    expect(anthropic.calls).toHaveLength(1);
    const [row] = await settledUsage(app, rich.accountId, rich.keyId);
    // (500,000 × 270 + 1 × 1,350) RUB per 1M tokens = 135.00135 RUB → 135,001,350 micro-rubles.
    expect(row).toMatchObject({
      status: 'completed',
      input_tokens: 500_000,
      output_tokens: 1,
      cost: 135_001_350,
    });
  });
});

describe('the guard on /v1/messages, in Anthropic shape', () => {
  it('no key or a wrong key is 401 authentication_error; Bearer works like x-api-key', async () => {
    const none = await app.http.inject({ method: 'POST', url: '/v1/messages', payload: valid });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: expect.any(String) },
    });
    const wrong = await post(valid, { 'x-api-key': 'sk_live_wrong' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error.type).toBe('authentication_error');
    const counted = await app.http.inject({
      method: 'POST',
      url: '/v1/messages/count_tokens',
      headers: { authorization: `Bearer ${key.secret}` },
      payload: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hello there' }] },
    });
    expect(counted.statusCode).toBe(200);
    expect(counted.json()).toEqual({ input_tokens: expect.any(Number) });
  });

  it('maintenance mode is a 503 api_error with Retry-After', async () => {
    await app.ctx.maintenance.set(true);
    try {
      const res = await post(valid);
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('60');
      expect(res.json()).toEqual({
        type: 'error',
        error: { type: 'api_error', message: expect.any(String) },
      });
    } finally {
      await app.ctx.maintenance.set(false);
    }
  });
});

describe('GET /v1/models', () => {
  it("answers Anthropic's list shape when the request carries anthropic-version", async () => {
    const res = await app.http.inject({
      method: 'GET',
      url: '/v1/models?limit=3',
      headers: { 'anthropic-version': '2023-06-01', 'x-api-key': key.secret },
    });
    expect(res.statusCode).toBe(200);
    const page = res.json();
    expect(page.data).toHaveLength(3);
    for (const model of page.data)
      expect(model).toEqual({
        type: 'model',
        id: expect.any(String),
        display_name: expect.any(String),
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
    expect(page).toMatchObject({ has_more: true, first_id: page.data[0].id, last_id: page.data[2].id });
    const next = await app.http.inject({
      method: 'GET',
      url: `/v1/models?limit=1000&after_id=${page.last_id}`,
      headers: { 'anthropic-version': '2023-06-01' },
    });
    const rest = next.json();
    expect(rest.has_more).toBe(false);
    const all = [...page.data, ...rest.data].map((m: { id: string }) => m.id);
    expect(all).toContain(CLAUDE);
    expect(all).toContain('gpt-4o');
    expect(all).not.toContain('seedance-2');
  });

  it("answers OpenAI's shape otherwise", async () => {
    const res = await app.http.inject({ method: 'GET', url: '/v1/models' });
    expect(res.json()).toMatchObject({ object: 'list' });
    expect(res.json().data[0]).toEqual({
      id: expect.any(String),
      object: 'model',
      created: expect.any(Number),
      owned_by: expect.any(String),
    });
  });

  it('an invalid limit is an Anthropic-shaped 400 when asked with anthropic-version', async () => {
    const res = await app.http.inject({
      method: 'GET',
      url: '/v1/models?limit=0',
      headers: { 'anthropic-version': '2023-06-01' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.type).toBe('invalid_request_error');
  });
});

describe('the catalog shows the cache and server-tool prices of Claude models', () => {
  it('/public/models and the admin models API', async () => {
    const models = (await app.http.inject({ method: 'GET', url: '/public/models' })).json();
    expect(models.find((m: { id: string }) => m.id === CLAUDE)).toMatchObject({
      priceRub: 270,
      priceOutputRub: 1350,
      priceCacheWriteRub: 337.5,
      priceCacheReadRub: 27,
      priceWebSearchRub: 900,
      priceWebFetchRub: 0,
    });
    expect(models.find((m: { id: string }) => m.id === 'gpt-4o')).not.toHaveProperty('priceCacheWriteRub');

    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const put = await app.http.inject({
      method: 'PUT',
      url: '/admin/models/claude-custom',
      headers: admin,
      payload: {
        name: 'Claude custom',
        provider: 'Anthropic',
        kind: 'text',
        unit: 'mtok',
        priceRub: 100,
        priceOutputRub: 500,
        priceWebSearchRub: 800,
      },
    });
    expect(put.statusCode).toBe(200);
    // As set: null means the default applies (1.25× and 0.1× the input price).
    expect(put.json()).toMatchObject({
      priceCacheWriteRub: null,
      priceCacheReadRub: null,
      priceWebSearchRub: 800,
    });
    const listed = (await app.http.inject({ method: 'GET', url: '/public/models' })).json();
    expect(listed.find((m: { id: string }) => m.id === 'claude-custom')).toMatchObject({
      priceCacheWriteRub: 125,
      priceCacheReadRub: 10,
      priceWebSearchRub: 800,
      priceWebFetchRub: null,
    });
  });
});
