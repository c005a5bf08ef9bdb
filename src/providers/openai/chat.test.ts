// The OpenAI-type adapter against a fake upstream on loopback, through the whole gateway: what goes
// upstream (only `model` rewritten, the gateway's credentials, usage forced on streams), what comes
// back (pass-through, first chunk before the upstream has finished), and the billing of each outcome.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CUT_STREAM_DRAIN_MS } from '../../services/chat/chat-call.js';
import { checkLedger } from '../../storage/ledger/ledger-check.js';
import { createTestApp, listenOnLoopback, type TestApp, type TestKey } from '../../testing/app.js';
import { balanceOf, countedUsageOf, expectedChatCost, settledUsage } from '../../testing/chat.js';
import {
  chunk,
  done,
  event,
  type FakeOpenAi,
  json,
  sseHead,
  startFakeOpenAi,
  usageChunk,
} from '../../testing/fake-openai.js';
import { expectServerTiming } from '../../testing/server-timing.js';

const UPSTREAM_MODEL = 'gpt-4o-2024-08-06';
const UPSTREAM_KEY = 'sk-upstream-secret-for-tests';
/** o200k: "user" + "count forever" (1 + 2 tokens) + 3 per message + 3 for the reply. */
const promptTokensOfCountForever = 9;

let fake: FakeOpenAi;
let closedPort: number;
let app: TestApp;
let baseURL: string;

beforeAll(async () => {
  fake = await startFakeOpenAi();
  const dead = await startFakeOpenAi();
  closedPort = Number(new URL(dead.origin).port);
  await dead.close();
  const dir = mkdtempSync(join(tmpdir(), 'gengate-providers-'));
  const providersFile = join(dir, 'providers.json');
  writeFileSync(
    providersFile,
    JSON.stringify({
      providers: {
        openai: { type: 'openai', base_url: fake.baseUrl, api_key: UPSTREAM_KEY },
        claude: { type: 'anthropic', base_url: fake.origin, api_key: 'sk-ant-test', compat: true },
        gone: { type: 'openai', base_url: `http://127.0.0.1:${closedPort}/v1`, api_key: 'x' },
        media: { type: 'fal', base_url: 'http://127.0.0.1:9/', api_key: 'x' },
      },
      routes: {
        'gpt-4o': { provider: 'openai', model: UPSTREAM_MODEL },
        'gpt-4.1': { provider: 'openai', model: 'gpt-4.1-2025-04-14' },
        'claude-sonnet-4': { provider: 'claude', model: 'claude-sonnet-4-20250514' },
        'gpt-5': { provider: 'gone', model: 'gpt-5' },
        'gpt-5-mini': { provider: 'media', model: 'x' },
      },
    }),
  );
  app = await createTestApp({ config: { providersFile } });
  baseURL = `${await listenOnLoopback(app)}/v1`;
});

afterAll(async () => {
  expect(await checkLedger(app.ctx.storage.db)).toEqual([]);
  await app.dispose();
  await fake.close();
});

beforeEach(() => {
  fake.requests.length = 0;
});

const client = (key: TestKey) => new OpenAI({ apiKey: key.secret, baseURL, maxRetries: 0 });

function completionBody(model: string, content: string, usage: { prompt: number; completion: number }) {
  return {
    id: 'chatcmpl-upstream-1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    system_fingerprint: 'fp_upstream',
    service_tier: 'default',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: {
      prompt_tokens: usage.prompt,
      completion_tokens: usage.completion,
      total_tokens: usage.prompt + usage.completion,
    },
  };
}

describe('OpenAI-type upstream adapter', () => {
  it('passes the (allow-listed) body through with only the model rewritten, and bills the upstream usage exactly', async () => {
    fake.handle = (_request, res) =>
      json(res, 200, completionBody(UPSTREAM_MODEL, 'Bonjour', { prompt: 13, completion: 56 }));
    const key = await app.newKey({ balanceRub: 100 });
    const before = await balanceOf(app, key.keyId);
    const sent = {
      model: 'gpt-4o',
      messages: [{ role: 'user' as const, content: 'Say hello in French' }],
      max_tokens: 300,
      temperature: 0.2,
      seed: 7,
      logit_bias: { '50256': -100 },
    };
    const completion = await client(key).chat.completions.create(sent as never);

    expect(fake.requests).toHaveLength(1);
    const upstream = fake.requests[0];
    expect(upstream.method).toBe('POST');
    expect(upstream.path).toBe('/v1/chat/completions');
    expect(upstream.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(upstream.body).toEqual({ ...sent, model: UPSTREAM_MODEL });

    expect(completion.model).toBe('gpt-4o');
    expect(completion.id).toBe('chatcmpl-upstream-1');
    expect(completion.choices[0].message.content).toBe('Bonjour');
    expect(completion).toMatchObject({ system_fingerprint: 'fp_upstream', service_tier: 'default' });
    const cost = await expectedChatCost(app, 'gpt-4o', 13, 56);
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: before.balance - cost, held: 0 });
    expect((await settledUsage(app, key.accountId, key.keyId))[0]).toMatchObject({
      input_tokens: 13,
      output_tokens: 56,
      cost,
    });
  });

  it('holds and bills every choice of n: 16 choices of 1,000 tokens are charged in full', async () => {
    // An upstream that honours n: one choice per n, each max_tokens long, usage over all of them.
    fake.handle = (request, res) => {
      const n = Number(request.body.n ?? 1);
      const max = Number(request.body.max_tokens);
      const body = completionBody(UPSTREAM_MODEL, 'x', { prompt: 20, completion: n * max });
      body.choices = Array.from({ length: n }, (_, index) => ({ ...body.choices[0], index }));
      json(res, 200, body);
    };
    const key = await app.newKey({ balanceRub: 100 });
    const before = await balanceOf(app, key.keyId);
    const completion = await client(key).chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'write sixteen essays' }],
      n: 16,
      max_tokens: 1000,
    });
    expect(completion.choices).toHaveLength(16);
    expect(fake.requests[0].body).toMatchObject({ n: 16, max_tokens: 1000 });
    const cost = await expectedChatCost(app, 'gpt-4o', 20, 16_000);
    expect(cost).toBe(14_404_500); // 20 × 225 + 16,000 × 900 RUB per 1M tokens
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: before.balance - cost, held: 0 });
    expect((await settledUsage(app, key.accountId, key.keyId))[0]).toMatchObject({
      output_tokens: 16_000,
      cost,
    });
  });

  it('says in Server-Timing how long the upstream took and how long gengate did, streamed or not', async () => {
    fake.handle = async (request, res) => {
      await new Promise((resolve) => setTimeout(resolve, 60));
      if (!request.body.stream)
        return json(res, 200, completionBody(UPSTREAM_MODEL, 'Hi.', { prompt: 5, completion: 2 }));
      sseHead(res);
      event(res, chunk(UPSTREAM_MODEL, { role: 'assistant', content: 'Hi.' }, 'stop'));
      event(res, usageChunk(UPSTREAM_MODEL, 5, 2));
      done(res);
    };
    const key = await app.newKey({ balanceRub: 100 });
    const request = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'hi' }] };
    const whole = await client(key).chat.completions.create(request).withResponse();
    const streamed = await client(key)
      .chat.completions.create({ ...request, stream: true })
      .withResponse();
    for await (const _chunk of streamed.data) {
      // read to the end
    }
    // The upstream's 60 ms are its share; gengate's own is what is left.
    for (const response of [whole.response, streamed.response]) expectServerTiming(response.headers, 59);
    await settledUsage(app, key.accountId, key.keyId);
  });

  it('refuses an unknown or unpriced field before any upstream call, moving no money', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const base = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
    for (const [extra, status, code] of [
      [{ frobnicate: true }, 422, 'unknown_field'],
      [{ best_of: 4 }, 400, 'unsupported_parameter'],
      [
        { modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'wav' } },
        400,
        'unsupported_parameter',
      ],
      [{ service_tier: 'priority' }, 400, 'unsupported_parameter'],
    ] as const) {
      const refused = await client(key)
        .chat.completions.create({ ...base, ...extra } as never)
        .catch((e: unknown) => e);
      expect(refused).toMatchObject({ status, code });
    }
    expect(fake.requests).toHaveLength(0);
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: 100_000_000, held: 0 });
  });

  it('never captures more than the hold, even when the upstream reports more usage than the request allowed', async () => {
    // 100 completion tokens against max_tokens 5: an upstream that ignored the cap.
    fake.handle = (_request, res) =>
      json(res, 200, completionBody(UPSTREAM_MODEL, 'long', { prompt: 3, completion: 100 }));
    const key = await app.newKey({ balanceRub: 100 });
    await client(key).chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 5,
    });
    const [hold] = (await app.ctx.storage.ledger.entriesForKey(key.keyId)).filter(
      (entry) => entry.kind === 'hold',
    );
    const [row] = await settledUsage(app, key.accountId, key.keyId);
    expect(hold.amount).toBeLessThan(await expectedChatCost(app, 'gpt-4o', 3, 100));
    expect(row).toMatchObject({
      status: 'completed',
      input_tokens: 3,
      output_tokens: 100,
      cost: hold.amount,
    });
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: 100_000_000 - hold.amount, held: 0 });
  });

  it('relays the first streamed chunk before the upstream has finished, forcing usage upstream but hiding it', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let upstreamFinished = false;
    fake.handle = async (_request, res) => {
      sseHead(res);
      event(res, chunk(UPSTREAM_MODEL, { role: 'assistant', content: '' }));
      event(res, chunk(UPSTREAM_MODEL, { content: 'First' }));
      await released; // the rest waits until the client has seen the first chunk
      for (const word of [' second', ' third']) event(res, chunk(UPSTREAM_MODEL, { content: word }));
      event(res, chunk(UPSTREAM_MODEL, {}, 'stop'));
      event(res, usageChunk(UPSTREAM_MODEL, 77, 3));
      upstreamFinished = true;
      done(res);
    };
    const key = await app.newKey({ balanceRub: 100 });
    const before = await balanceOf(app, key.keyId);
    const stream = await client(key).chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'three words' }],
      stream: true,
    });
    const texts: string[] = [];
    const chunks = [];
    for await (const received of stream) {
      chunks.push(received);
      const text = received.choices[0]?.delta.content;
      if (text) {
        if (texts.length === 0) {
          expect(upstreamFinished).toBe(false);
          release();
        }
        texts.push(text);
      }
    }
    expect(texts.join('')).toBe('First second third');
    expect(upstreamFinished).toBe(true);
    expect(chunks.every((c) => c.model === 'gpt-4o')).toBe(true);
    expect(chunks.some((c) => c.usage !== undefined || c.choices.length === 0)).toBe(false);
    expect(fake.requests[0].body).toMatchObject({
      model: UPSTREAM_MODEL,
      stream: true,
      stream_options: { include_usage: true },
    });

    const cost = await expectedChatCost(app, 'gpt-4o', 77, 3);
    expect((await settledUsage(app, key.accountId, key.keyId))[0]).toMatchObject({
      status: 'completed',
      input_tokens: 77,
      output_tokens: 3,
      cost,
    });
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: before.balance - cost, held: 0 });
  });

  it('maps an upstream 500 to 502 and releases the whole hold, streaming or not', async () => {
    fake.handle = (_request, res) =>
      json(res, 500, {
        error: { message: 'The server had an error while processing your request.', type: 'server_error' },
      });
    const key = await app.newKey({ balanceRub: 100 });
    const before = await balanceOf(app, key.keyId);
    for (const stream of [false, true]) {
      const error = await client(key)
        .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], stream })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 502, code: 'upstream_error' });
      expect((error as Error).message).toContain(
        'HTTP 500: The server had an error while processing your request.',
      );
    }
    expect(fake.requests).toHaveLength(2);
    expect(await balanceOf(app, key.keyId)).toEqual(before);
    const rows = await settledUsage(app, key.accountId, key.keyId);
    expect(rows.map((row) => [row.status, row.cost])).toEqual([
      ['failed', 0],
      ['failed', 0],
    ]);
  });

  it('passes an upstream 400 on as a 400 with its message, and hides an upstream 401 behind a 502', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    fake.handle = (_request, res) =>
      json(res, 400, {
        error: {
          message: "Unsupported parameter: 'logit_bias' is not supported with this model.",
          type: 'invalid_request_error',
          param: 'logit_bias',
        },
      });
    const rejected = await client(key)
      .chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'hi' }],
        logit_bias: { '1': 5 },
      })
      .catch((e: unknown) => e);
    expect(rejected).toBeInstanceOf(OpenAI.BadRequestError);
    expect(rejected).toMatchObject({ status: 400, code: 'upstream_rejected_request', param: 'logit_bias' });
    expect((rejected as Error).message).toContain("Unsupported parameter: 'logit_bias'");

    fake.handle = (_request, res) =>
      json(res, 401, { error: { message: `Incorrect API key provided: ${UPSTREAM_KEY.slice(0, 8)}***` } });
    const refused = await client(key)
      .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 502, code: 'upstream_error' });
    expect((refused as Error).message).not.toContain(UPSTREAM_KEY.slice(0, 8));
    expect((await balanceOf(app, key.keyId)).held).toBe(0);
    expect((await balanceOf(app, key.keyId)).balance).toBe(100_000_000);
  });

  it('reads on for the drain bound after the client leaves mid-stream, then aborts the upstream and bills the text read', async () => {
    fake.handle = async (request, res) => {
      sseHead(res);
      event(res, chunk(UPSTREAM_MODEL, { role: 'assistant', content: '' }));
      for (const word of ['One', ' two', ' three']) event(res, chunk(UPSTREAM_MODEL, { content: word }));
      await request.aborted; // never finishes by itself: only the gateway's abort ends it
    };
    const key = await app.newKey({ balanceRub: 100 });
    const before = await balanceOf(app, key.keyId);
    const body = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'count forever' }] };
    app.ctx.chat.cutStreamDrainMs = 200;
    try {
      const stream = await client(key).chat.completions.create({ ...body, stream: true });
      let words = 0;
      for await (const received of stream) {
        if (received.choices[0]?.delta.content) words++;
        if (words === 3) break;
      }
      const [row] = await settledUsage(app, key.accountId, key.keyId);
      const aborted = await Promise.race([
        fake.requests[0].aborted.then(() => true),
        new Promise((r) => setTimeout(() => r(false), 3000)),
      ]);
      expect(aborted).toBe(true);
      const counted = await countedUsageOf(UPSTREAM_MODEL, body, ['One two three']);
      expect(counted).toEqual({ prompt: promptTokensOfCountForever, completion: 3 });
      const cost = await expectedChatCost(app, 'gpt-4o', counted.prompt, counted.completion);
      expect(row).toMatchObject({
        status: 'cancelled',
        input_tokens: counted.prompt,
        output_tokens: 3,
        cost,
      });
      expect(await balanceOf(app, key.keyId)).toEqual({ balance: before.balance - cost, held: 0 });
    } finally {
      app.ctx.chat.cutStreamDrainMs = DEFAULT_CUT_STREAM_DRAIN_MS;
    }
  });

  it('aborts the upstream request past the drain bound when the client leaves before a non-streaming answer, billing nothing', async () => {
    fake.handle = async (request) => {
      await request.aborted; // never answers: only the gateway's abort ends it
    };
    const key = await app.newKey({ balanceRub: 100 });
    const before = await balanceOf(app, key.keyId);
    app.ctx.chat.cutStreamDrainMs = 100;
    try {
      const leaving = new AbortController();
      const request = client(key).chat.completions.create(
        { model: 'gpt-4o', messages: [{ role: 'user', content: 'take your time' }] },
        { signal: leaving.signal },
      );
      while (fake.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
      leaving.abort();
      await expect(request).rejects.toThrow();
      const aborted = await Promise.race([
        fake.requests[0].aborted.then(() => true),
        new Promise((r) => setTimeout(() => r(false), 3000)),
      ]);
      expect(aborted).toBe(true);
      const [row] = await settledUsage(app, key.accountId, key.keyId);
      expect(row).toMatchObject({ status: 'cancelled', output_tokens: 0, cost: 0 });
      expect(await balanceOf(app, key.keyId)).toEqual(before);
    } finally {
      app.ctx.chat.cutStreamDrainMs = DEFAULT_CUT_STREAM_DRAIN_MS;
    }
  });

  it('bills a non-streaming answer that arrives after its client left, as the upstream does', async () => {
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    fake.handle = async (_request, res) => {
      await answered;
      json(res, 200, completionBody(UPSTREAM_MODEL, 'late', { prompt: 12, completion: 700 }));
    };
    const key = await app.newKey({ balanceRub: 100 });
    const before = await balanceOf(app, key.keyId);
    const leaving = new AbortController();
    const request = client(key).chat.completions.create(
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'a long essay' }] },
      { signal: leaving.signal },
    );
    while (fake.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    leaving.abort();
    await expect(request).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 50));
    answer();
    const [row] = await settledUsage(app, key.accountId, key.keyId);
    const cost = await expectedChatCost(app, 'gpt-4o', 12, 700);
    expect(row).toMatchObject({ status: 'cancelled', input_tokens: 12, output_tokens: 700, cost });
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: before.balance - cost, held: 0 });
  });

  it('lowers max_completion_tokens upstream to what the balance covers when the client set none', async () => {
    fake.handle = (_request, res) =>
      json(res, 200, completionBody(UPSTREAM_MODEL, 'ok', { prompt: 10, completion: 2 }));
    const key = await app.newKey({ balanceRub: 0.1 });
    await client(key).chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const lowered = fake.requests[0].body.max_completion_tokens as number;
    expect(lowered).toBeGreaterThan(0);
    expect(lowered).toBeLessThan(16_384);
    expect(fake.requests[0].body.max_tokens).toBeUndefined();

    // A client max_tokens the balance covers goes upstream untouched.
    const rich = await app.newKey({ balanceRub: 100 });
    await client(rich).chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 64,
    });
    expect(fake.requests[1].body).toMatchObject({ max_tokens: 64 });
    expect(fake.requests[1].body.max_completion_tokens).toBeUndefined();
  });

  it('keeps upstream connections alive between requests', async () => {
    fake.handle = (_request, res) =>
      json(res, 200, completionBody(UPSTREAM_MODEL, 'ok', { prompt: 1, completion: 1 }));
    const key = await app.newKey({ balanceRub: 100 });
    await client(key).chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'warm up' }],
    });
    const connections = fake.connections;
    for (let i = 0; i < 5; i++)
      await client(key).chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: `again ${i}` }],
      });
    expect(fake.connections).toBe(connections);
  });

  it('routes type anthropic with compat: true to the OpenAI compatibility endpoint under {base_url}/v1', async () => {
    fake.handle = (_request, res) =>
      json(
        res,
        200,
        completionBody('claude-sonnet-4-20250514', 'Hi from Claude', { prompt: 5, completion: 4 }),
      );
    const key = await app.newKey({ balanceRub: 100 });
    const completion = await client(key).chat.completions.create({
      model: 'claude-sonnet-4',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(fake.requests[0].path).toBe('/v1/chat/completions');
    expect(fake.requests[0].body.model).toBe('claude-sonnet-4-20250514');
    expect(completion.model).toBe('claude-sonnet-4');
  });

  it('answers 502 when the upstream cannot be reached or the route has no chat adapter, holding nothing', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const unreachable = await client(key)
      .chat.completions.create({ model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(unreachable).toMatchObject({
      status: 502,
      code: 'upstream_error',
      message: expect.stringContaining('could not be reached'),
    });
    const wrongType = await client(key)
      .chat.completions.create({ model: 'gpt-5-mini', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(wrongType).toMatchObject({ status: 502, message: expect.stringContaining('does not serve chat') });
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: 100_000_000, held: 0 });
  });

  it('turns an error event inside a 200 stream into an SSE error for the client, billing what was delivered', async () => {
    fake.handle = async (_request, res) => {
      sseHead(res);
      event(res, chunk('gpt-4.1-2025-04-14', { role: 'assistant', content: '' }));
      event(res, chunk('gpt-4.1-2025-04-14', { content: 'Partial' }));
      event(res, { error: { message: 'upstream overloaded', type: 'server_error' } });
      res.end();
    };
    const key = await app.newKey({ balanceRub: 100 });
    const body = { model: 'gpt-4.1', messages: [{ role: 'user' as const, content: 'hi' }] };
    const stream = await client(key).chat.completions.create({ ...body, stream: true });
    const seen: string[] = [];
    const error = await (async () => {
      for await (const received of stream)
        if (received.choices[0]?.delta.content) seen.push(received.choices[0].delta.content);
    })().catch((e: unknown) => e);
    expect(seen).toEqual(['Partial']);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toContain('upstream overloaded');
    const counted = await countedUsageOf('gpt-4.1-2025-04-14', body, ['Partial']);
    const cost = await expectedChatCost(app, 'gpt-4.1', counted.prompt, counted.completion);
    expect((await settledUsage(app, key.accountId, key.keyId))[0]).toMatchObject({
      status: 'failed',
      output_tokens: counted.completion,
      cost,
    });
  });
});
