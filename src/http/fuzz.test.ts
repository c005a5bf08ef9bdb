// Fuzzing the public routes: no input, raw bytes or JSON-ish values, with a funded key, an empty key,
// a wrong key or none, answers 5xx; every refusal is in the one error shape; and money moves only for
// a request that was accepted (a refusal leaves the key's balance, held amount and tasks unchanged).
// Runs are bounded so that the whole file stays well under 20 s.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOnLoopback, type TestKey } from '../testing/app.js';
import { type RawAnswer, rawRequest } from '../testing/raw-http.js';
import { balanceOf, createTaskTestApp, expectLedgerClean, type TaskTestApp } from '../testing/tasks.js';

let app: TaskTestApp;
let funded: TestKey;
let empty: TestKey;
let port: number;

beforeAll(async () => {
  app = await createTaskTestApp();
  funded = await app.newKey({ balanceRub: 1000 });
  empty = await app.newKey({ balanceRub: 0 });
  port = Number(new URL(await listenOnLoopback(app)).port);
});
afterAll(() => app.dispose());

const POST_ROUTES = [
  '/generate',
  '/v1/chat/completions',
  '/v1/responses',
  '/v1/images/generations',
  '/v1/videos',
] as const;

type Who = 'funded' | 'empty' | 'wrong' | 'none';
const WHO: Who[] = ['funded', 'empty', 'wrong', 'none'];

function authFor(who: Who): Record<string, string> {
  if (who === 'funded') return funded.auth;
  if (who === 'empty') return empty.auth;
  if (who === 'wrong') return { authorization: 'Bearer sk-not-a-real-key-0000000000000000' };
  return {};
}

// Values shaped like our requests, so that fuzzing reaches past "unknown field" into validation.
const KEYS = [
  'params',
  'model_name',
  'model',
  'prompt',
  'messages',
  'input',
  'role',
  'content',
  'type',
  'text',
  'image_url',
  'url',
  'n',
  'size',
  'seconds',
  'duration',
  'aspect_ratio',
  'resolution',
  'seed',
  'stream',
  'max_tokens',
  'max_output_tokens',
  'tools',
  'response_format',
  'webhook_url',
  '__proto__',
  'constructor',
];
const WORDS = [
  'flux-1-1-pro',
  'gpt-image-1',
  'seedance-2',
  'sora-2',
  'gpt-4o-mini',
  'no-such-model',
  'user',
  'system',
  'assistant',
  'text',
  'image_url',
  'input_text',
  '1024x1024',
  '16:9',
  '720p',
  'http://127.0.0.1/x.png',
  '',
];
const leaf = fc.oneof(
  fc.constantFrom(...WORDS),
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const { value: jsonish } = fc.letrec<{ value: unknown; array: unknown[]; object: Record<string, unknown> }>(
  (tie) => ({
    value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('array'), tie('object')),
    array: fc.array(tie('value'), { maxLength: 4 }),
    object: fc.dictionary(fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 8 })), tie('value'), {
      maxKeys: 5,
    }),
  }),
);
/** Requests close to valid ones for each route, with fuzzed values and extra fields. */
const model = fc.oneof(fc.constantFrom(...WORDS.slice(0, 6)), leaf);
const extra = fc.dictionary(fc.constantFrom(...KEYS), jsonish, { maxKeys: 2 });
const message = fc.record(
  {
    role: fc.oneof(fc.constantFrom('user', 'system', 'assistant', 'tool', 'developer'), leaf),
    content: fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.array(
        fc.record(
          {
            type: fc.constantFrom('text', 'image_url', 'input_text', 'bogus'),
            text: leaf,
            image_url: jsonish,
          },
          { requiredKeys: ['type'] },
        ),
        { maxLength: 3 },
      ),
      jsonish,
    ),
  },
  { requiredKeys: [] },
);
const nearlyValid: Record<(typeof POST_ROUTES)[number], fc.Arbitrary<unknown>> = {
  '/generate': fc
    .tuple(
      fc.record(
        {
          model_name: model,
          prompt: fc.oneof(fc.string({ maxLength: 40 }), leaf),
          duration: leaf,
          aspect_ratio: leaf,
        },
        { requiredKeys: ['model_name'] },
      ),
      extra,
    )
    .map(([params, more]) => ({ params: { ...params, ...more } })),
  '/v1/chat/completions': fc
    .tuple(
      fc.record(
        {
          model,
          messages: fc.oneof(fc.array(message, { maxLength: 3 }), jsonish),
          stream: leaf,
          max_tokens: leaf,
        },
        { requiredKeys: ['model'] },
      ),
      extra,
    )
    .map(([request, more]) => ({ ...request, ...more })),
  '/v1/responses': fc
    .tuple(
      fc.record(
        {
          model,
          input: fc.oneof(fc.string({ maxLength: 40 }), fc.array(message, { maxLength: 3 }), jsonish),
        },
        { requiredKeys: ['model'] },
      ),
      extra,
    )
    .map(([request, more]) => ({ ...request, ...more })),
  '/v1/images/generations': fc
    .tuple(
      fc.record(
        { model, prompt: fc.oneof(fc.string({ maxLength: 40 }), leaf), n: leaf, size: leaf },
        { requiredKeys: ['prompt'] },
      ),
      extra,
    )
    .map(([request, more]) => ({ ...request, ...more })),
  '/v1/videos': fc
    .tuple(
      fc.record(
        { model, prompt: fc.oneof(fc.string({ maxLength: 40 }), leaf), seconds: leaf, size: leaf },
        { requiredKeys: ['prompt'] },
      ),
      extra,
    )
    .map(([request, more]) => ({ ...request, ...more })),
};

/** Valid requests (with fuzzed text): a funded key pays for them, an empty one gets 402. */
const text = fc.string({ minLength: 1, maxLength: 40 });
const valid: Record<(typeof POST_ROUTES)[number], fc.Arbitrary<unknown>> = {
  '/generate': fc.record({
    params: fc.record({ model_name: fc.constantFrom('flux-1-1-pro', 'seedance-2'), prompt: text }),
  }),
  '/v1/chat/completions': fc.record({
    model: fc.constant('gpt-4o-mini'),
    messages: fc.tuple(fc.record({ role: fc.constant('user'), content: text })),
    stream: fc.boolean(),
  }),
  '/v1/responses': fc.record({ model: fc.constant('gpt-4o-mini'), input: text }),
  '/v1/images/generations': fc.record({ model: fc.constant('flux-1-1-pro'), prompt: text }),
  '/v1/videos': fc.record({ model: fc.constant('sora-2'), prompt: text }),
};

/** A route and a body for it: mostly near-valid requests, also valid ones, any JSON and any text. */
const routeAndBody = fc
  .constantFrom(...POST_ROUTES)
  .chain((url) =>
    fc.tuple(
      fc.constant(url),
      fc.oneof(
        { weight: 4, arbitrary: nearlyValid[url].map((v) => JSON.stringify(v)) },
        { weight: 1, arbitrary: valid[url].map((v) => JSON.stringify(v)) },
        { weight: 1, arbitrary: jsonish.map((v) => JSON.stringify(v) ?? 'null') },
        { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
        { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
      ),
    ),
  );
const caller = fc.oneof(
  { weight: 4, arbitrary: fc.constant<Who>('funded') },
  { weight: 2, arbitrary: fc.constant<Who>('empty') },
  { weight: 1, arbitrary: fc.constantFrom<Who>('wrong', 'none') },
);
const idempotencyKeys = fc.oneof(
  { weight: 4, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: fc.uuid() },
  { weight: 1, arbitrary: fc.stringMatching(/^[!-~]{0,40}$/) },
);

/** Numbers that must not move when a request is refused. */
async function moneyOf(key: TestKey) {
  const tasks = await app.ctx.storage.db
    .selectFrom('tasks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('key_id', '=', key.keyId)
    .executeTakeFirstOrThrow();
  return { ...(await balanceOf(app, key)), tasks: Number(tasks.n) };
}

/** After an accepted request, lets the runner finish the key's tasks, so the next snapshot is still. */
async function settle(key: TestKey): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const open = await app.ctx.storage.db
      .selectFrom('tasks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('key_id', '=', key.keyId)
      .where('status', 'in', ['pending', 'processing'])
      .executeTakeFirstOrThrow();
    if (Number(open.n) === 0) return;
    if (Date.now() > deadline) throw new Error('tasks did not finish');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function expectErrorShape(status: number, text: string) {
  const parsed = JSON.parse(text) as { error: Record<string, unknown> };
  expect(parsed.error).toEqual({
    message: expect.any(String),
    type: expect.any(String),
    code: expect.any(String),
    param: parsed.error.param === null ? null : expect.any(String),
    ...(parsed.error.hint !== undefined ? { hint: parsed.error.hint } : {}),
  });
  expect(status).toBeGreaterThanOrEqual(400);
}

describe('fuzz: JSON-ish bodies to the public POST routes', () => {
  it('never 5xx; a refusal moves no money and creates no task', async () => {
    await fc.assert(
      fc.asyncProperty(routeAndBody, caller, idempotencyKeys, async ([url, payload], who, idempotencyKey) => {
        const key = who === 'funded' ? funded : who === 'empty' ? empty : undefined;
        const before = key ? await moneyOf(key) : undefined;
        const res = await app.http.inject({
          method: 'POST',
          url,
          headers: {
            ...authFor(who),
            'content-type': 'application/json',
            ...(idempotencyKey !== undefined ? { 'idempotency-key': idempotencyKey } : {}),
          },
          payload,
        });
        expect(res.statusCode, `${url} ${payload} → ${res.body.slice(0, 300)}`).toBeLessThan(500);
        if (res.statusCode >= 400) {
          expectErrorShape(res.statusCode, res.body);
          if (key) expect(await moneyOf(key)).toEqual(before);
        } else if (key) {
          // Accepted: only a funded key can pay, and what it paid is settled by the runner.
          expect(who).toBe('funded');
          await settle(key);
        }
      }),
      { numRuns: 300 },
    );
    const { balance, held } = await balanceOf(app, empty);
    expect({ balance, held }).toEqual({ balance: 0, held: 0 });
    expect((await balanceOf(app, funded)).held).toBe(0);
    await expectLedgerClean(app);
  }, 30_000);
});

describe('fuzz: ids in the public GET routes', () => {
  it('never 5xx, and every refusal is in the error shape', async () => {
    const routes = [
      (id: string) => `/tasks/${id}`,
      (id: string) => `/public/models/${id}`,
      (id: string) => `/v1/models/${id}`,
      (id: string) => `/v1/videos/${id}`,
      (id: string) => `/v1/videos/${id}/content`,
      (id: string) => `/public/models?model=${id}`,
      (id: string) => `/tasks?limit=${id}&after=${id}`,
      (id: string) => `/tasks?status=${id}&model=${id}`,
      (id: string) => `/me/usage?from=${id}&to=${id}`,
      (id: string) => `/v1/videos?after=${id}&limit=${id}`,
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.constantFrom(...WHO),
        fc.oneof(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.uuid(), fc.constantFrom('..', '%', '0')),
        async (route, who, id) => {
          const res = await app.http.inject({
            method: 'GET',
            url: route(encodeURIComponent(id)),
            headers: authFor(who),
          });
          expect(res.statusCode, `${route(id)} → ${res.body.slice(0, 300)}`).toBeLessThan(500);
          if (res.statusCode >= 400) expectErrorShape(res.statusCode, res.body);
        },
      ),
      { numRuns: 200 },
    );
  }, 20_000);
});

describe('fuzz: raw bytes over a socket', () => {
  function check(answer: RawAnswer) {
    if (Number.isNaN(answer.status)) return; // no answer (e.g. a truncated request): nothing to check
    expect(answer.status, answer.raw.slice(0, 300)).toBeLessThan(500);
    if (answer.status >= 400) {
      const text = answer.headers['transfer-encoding'] === 'chunked' ? dechunk(answer.body) : answer.body;
      expectErrorShape(answer.status, text);
    }
  }

  it('arbitrary bytes answer 4xx in the error shape or nothing', async () => {
    const before = await moneyOf(funded);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ minLength: 1, maxLength: 600 }),
          fc
            .tuple(
              fc.constantFrom(...POST_ROUTES, '/tasks/x', '/public/models'),
              fc.uint8Array({ maxLength: 400 }),
            )
            .map(([path, tail]) =>
              Buffer.concat([Buffer.from(`POST ${path} HTTP/1.1\r\nHost: x\r\n`), Buffer.from(tail)]),
            ),
        ),
        async (bytes) => check(await rawRequest(port, Buffer.from(bytes), 1000, true)),
      ),
      { numRuns: 80 },
    );
    expect(await moneyOf(funded)).toEqual(before);
  }, 30_000);

  it('a well-framed request with random body bytes answers 4xx and moves no money', async () => {
    const before = await moneyOf(funded);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...POST_ROUTES),
        fc.uint8Array({ maxLength: 400 }),
        fc.constantFrom('application/json', 'text/plain', 'multipart/form-data; boundary=x', ''),
        async (path, bytes, contentType) => {
          const head = [
            `POST ${path} HTTP/1.1`,
            'Host: x',
            `Authorization: ${funded.auth.authorization}`,
            ...(contentType ? [`Content-Type: ${contentType}`] : []),
            `Content-Length: ${bytes.length}`,
            'Connection: close',
          ].join('\r\n');
          const answer = await rawRequest(
            port,
            Buffer.concat([Buffer.from(`${head}\r\n\r\n`), Buffer.from(bytes)]),
            2000,
          );
          expect(answer.status).toBeGreaterThanOrEqual(400);
          check(answer);
        },
      ),
      { numRuns: 80 },
    );
    expect(await moneyOf(funded)).toEqual(before);
  }, 30_000);
});

function dechunk(text: string): string {
  let out = '';
  let rest = text;
  for (;;) {
    const at = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.slice(0, at), 16);
    if (!size) return out;
    out += rest.slice(at + 2, at + 2 + size);
    rest = rest.slice(at + 2 + size + 2);
  }
}
