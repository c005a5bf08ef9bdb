// POST /v1/chat/completions driven by the official `openai` package, unmodified, against a real
// listening gengate (simulator upstream, SQLite). Every billing assertion is exact, in micro-rubles.
import { deflateSync } from 'node:zlib';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../../../storage/ledger/ledger-check.js';
import {
  ADMIN_TOKEN,
  createTestApp,
  listenOnLoopback,
  type TestApp,
  type TestKey,
} from '../../../testing/app.js';
import {
  balanceOf,
  countedUsageOf,
  expectedChatCost,
  promptEstimateOf,
  settledUsage,
} from '../../../testing/chat.js';

let app: TestApp;
let baseURL: string;

beforeAll(async () => {
  app = await createTestApp();
  baseURL = `${await listenOnLoopback(app)}/v1`;
});

afterAll(async () => {
  expect(await checkLedger(app.ctx.storage.db)).toEqual([]);
  await app.dispose();
});

const client = (key: TestKey | string) =>
  new OpenAI({ apiKey: typeof key === 'string' ? key : key.secret, baseURL, maxRetries: 0 });

async function ledgerKinds(key: TestKey): Promise<string[]> {
  return (await app.ctx.storage.ledger.entriesForKey(key.keyId)).map((entry) => entry.kind);
}

/** A tiny valid PNG (1×1), as a vision client would send it. */
function pngDataUrl(): string {
  const crc = (buf: Buffer) => {
    let c = ~0;
    for (const byte of buf) {
      c ^= byte;
      for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
    }
    return ~c >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]);
  const png = Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.from([0, 255, 0, 0]))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
  return `data:image/png;base64,${png.toString('base64')}`;
}

describe('chat completions through the openai SDK', () => {
  it('answers a plain completion and charges exactly the cost of the usage it reports', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = await balanceOf(app, key.keyId);
    const completion = await client(key).chat.completions.create({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Name three rivers [sim:tokens=42]' },
      ],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('gpt-4o');
    expect(completion.choices[0].message.role).toBe('assistant');
    expect(completion.choices[0].message.content?.split(' ')).toHaveLength(42);
    expect(completion.choices[0].finish_reason).toBe('stop');
    const usage = completion.usage!;
    expect(usage.completion_tokens).toBe(42);

    const cost = await expectedChatCost(app, 'gpt-4o', usage.prompt_tokens, usage.completion_tokens);
    expect(cost).toBeGreaterThan(0);
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: before.balance - cost, held: 0 });
    const [row] = await settledUsage(app, key.accountId, key.keyId);
    expect(row).toMatchObject({
      model_id: 'gpt-4o',
      status: 'completed',
      input_tokens: usage.prompt_tokens,
      output_tokens: 42,
      cost,
    });
    expect(row.latency_ms).toBeGreaterThanOrEqual(0);
    expect(await ledgerKinds(key)).toEqual(['topup', 'hold', 'capture', 'release']);
  });

  it('streams chat.completion.chunk events ending with usage when asked, and bills that usage exactly', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = await balanceOf(app, key.keyId);
    const stream = await client(key).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Count slowly [sim:tokens=25]' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(
      chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.model === 'gpt-4o-mini'),
    ).toBe(true);
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text.split(' ')).toHaveLength(25);
    expect(chunks.find((chunk) => chunk.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe('stop');
    const usage = chunks.at(-1)!.usage!;
    expect(chunks.at(-1)!.choices).toEqual([]);
    expect(usage.completion_tokens).toBe(25);

    const cost = await expectedChatCost(app, 'gpt-4o-mini', usage.prompt_tokens, usage.completion_tokens);
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: before.balance - cost, held: 0 });
    expect((await settledUsage(app, key.accountId, key.keyId))[0]).toMatchObject({
      status: 'completed',
      cost,
      output_tokens: 25,
    });
  });

  it('hides the usage chunk from a client that did not ask for it, and still bills the upstream usage', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = await balanceOf(app, key.keyId);
    const body = { model: 'gpt-4.1', messages: [{ role: 'user' as const, content: 'hello [sim:tokens=9]' }] };
    const stream = await client(key).chat.completions.create({ ...body, stream: true });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.some((chunk) => chunk.usage !== undefined)).toBe(false);
    expect(chunks.every((chunk) => chunk.choices.length === 1)).toBe(true);

    const [row] = await settledUsage(app, key.accountId, key.keyId);
    expect(row).toMatchObject({
      status: 'completed',
      input_tokens: promptEstimateOf(body),
      output_tokens: 9,
    });
    const cost = await expectedChatCost(app, 'gpt-4.1', row.input_tokens, 9);
    expect(row.cost).toBe(cost);
    expect((await balanceOf(app, key.keyId)).balance).toBe(before.balance - cost);
  });

  it('completes a tool-call round trip: tools → tool_calls → tool result → final answer', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const openai = client(key);
    const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Current weather of a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ];
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'Use get_weather for Oslo' },
    ];
    const first = await openai.chat.completions.create({ model: 'claude-sonnet-4', messages, tools });
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    const call = first.choices[0].message.tool_calls![0];
    expect(call.type).toBe('function');
    if (call.type !== 'function') throw new Error('expected a function call');
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Use get_weather for Oslo' });

    messages.push(first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: 'snow, -3 C' });
    const second = await openai.chat.completions.create({ model: 'claude-sonnet-4', messages, tools });
    expect(second.choices[0].finish_reason).toBe('stop');
    expect(second.choices[0].message.content).toBe('The tool get_weather returned: snow, -3 C');

    // Streamed tool calls arrive as OpenAI's deltas; the SDK's helper reassembles them.
    const streamed = await openai.chat.completions
      .stream({
        model: 'claude-sonnet-4',
        messages: [{ role: 'user', content: 'Use get_weather for Oslo' }],
        tools,
      })
      .finalChatCompletion();
    const streamedCall = streamed.choices[0].message.tool_calls![0];
    if (streamedCall.type !== 'function') throw new Error('expected a function call');
    expect(streamedCall.function).toEqual({ name: 'get_weather', arguments: call.function.arguments });
    expect(streamedCall.id).toBe(call.id);

    const rows = await settledUsage(app, key.accountId, key.keyId);
    expect(rows).toHaveLength(3);
    expect(rows.every((row) => row.status === 'completed' && row.cost > 0)).toBe(true);
  });

  it('accepts an image to a vision model and answers 422 for a model without vision, holding nothing', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const content: OpenAI.Chat.Completions.ChatCompletionContentPart[] = [
      { type: 'text', text: 'What is in this picture?' },
      { type: 'image_url', image_url: { url: pngDataUrl() } },
    ];
    const seen = await client(key).chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content }],
    });
    expect(seen.choices[0].message.content).toBe(
      'Simulated reply from gpt-4o: you said What is in this picture? I see 1 image.',
    );

    const before = await balanceOf(app, key.keyId);
    const entries = await ledgerKinds(key);
    const error = await client(key)
      .chat.completions.create({ model: 'claude-3-5-haiku', messages: [{ role: 'user', content }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    expect(error).toMatchObject({ status: 422, code: 'vision_not_supported' });
    expect(await balanceOf(app, key.keyId)).toEqual(before);
    expect(await ledgerKinds(key)).toEqual(entries);
    expect(await app.ctx.storage.usage.listForAccount(key.accountId, { keyId: key.keyId })).toHaveLength(1);
  });

  it('lists the public models', async () => {
    const ids = [];
    for await (const model of client('sk_unused').models.list()) ids.push(model.id);
    expect(ids).toContain('gpt-4o');
    expect(ids).toContain('claude-3-5-haiku');
    expect(ids.filter((id) => id.includes(':'))).toEqual([]);
  });

  it('raises a 402 as an APIError and a bad key as AuthenticationError, creating nothing', async () => {
    const poor = await app.newKey({ balanceRub: 0.00001 });
    const error = await client(poor)
      .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ status: 402, code: 'insufficient_balance', type: 'insufficient_quota' });
    expect(await balanceOf(app, poor.keyId)).toEqual({ balance: 10, held: 0 });
    expect(await ledgerKinds(poor)).toEqual(['topup']);
    expect(await app.ctx.storage.usage.listForAccount(poor.accountId)).toEqual([]);

    const unauthorized = await client('sk_live_not_a_real_key_000000000000000000')
      .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(unauthorized).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(unauthorized).toMatchObject({ status: 401, code: 'invalid_api_key' });
  });

  it('answers 403, 404, 400, 422 and 429 in the error shape, before any hold', async () => {
    const key = await app.newKey({ balanceRub: 10, restrictions: { allowed_models: ['gpt-4o'] } });
    const openai = client(key);
    const attempt = (body: Record<string, unknown>) =>
      openai.chat.completions.create(body as never).catch((e: unknown) => e);
    const hi = [{ role: 'user', content: 'hi' }];
    expect(await attempt({ model: 'gpt-4o-mini', messages: hi })).toMatchObject({
      status: 403,
      code: 'model_not_allowed',
    });
    expect(await attempt({ model: 'no-such-model', messages: hi })).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await attempt({ model: 'veo-3-fast:audio', messages: hi })).toMatchObject({
      status: 404,
      code: 'model_not_found',
    });
    expect(await attempt({ model: 'gpt-4o' })).toMatchObject({
      status: 400,
      code: 'missing_parameter',
      param: 'messages',
    });
    expect(await attempt({ messages: hi })).toMatchObject({ status: 422, param: 'model' });
    expect(await attempt({ model: 'gpt-4o', messages: hi, max_tokens: -1 })).toMatchObject({
      status: 422,
      param: 'max_tokens',
    });

    const open = await app.newKey({ balanceRub: 10 });
    expect(
      await client(open)
        .chat.completions.create({ model: 'kling-2-1', messages: hi as never })
        .catch((e: unknown) => e),
    ).toMatchObject({
      status: 404,
      message: expect.stringContaining('not a chat model'),
    });
    expect(await ledgerKinds(key)).toEqual(['topup']);
    expect(await app.ctx.storage.usage.listForAccount(key.accountId)).toEqual([]);

    const limited = await app.newKey({ balanceRub: 10, restrictions: { rate_limit_per_min: 1 } });
    await client(limited).chat.completions.create({ model: 'gpt-4o', messages: hi as never });
    const limitedError = await client(limited)
      .chat.completions.create({ model: 'gpt-4o', messages: hi as never })
      .catch((e: unknown) => e);
    expect(limitedError).toBeInstanceOf(OpenAI.RateLimitError);
  });

  it('answers 503 in maintenance mode', async () => {
    const key = await app.newKey({ balanceRub: 10 });
    const admin = (enabled: boolean) =>
      app.http.inject({
        method: 'PUT',
        url: '/admin/maintenance',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        payload: { enabled },
      });
    expect((await admin(true)).statusCode).toBe(200);
    try {
      const error = await client(key)
        .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 503, code: 'maintenance' });
    } finally {
      await admin(false);
    }
  });

  it('applies the account coefficient exactly', async () => {
    const key = await app.newKey({ balanceRub: 100, coefficient: 1.37 });
    const before = await balanceOf(app, key.keyId);
    const completion = await client(key).chat.completions.create({
      model: 'claude-opus-4-1',
      messages: [{ role: 'user', content: 'Summarise the Odyssey [sim:tokens=333]' }],
      max_tokens: 1000,
    });
    const { prompt_tokens, completion_tokens } = completion.usage!;
    const cost = await expectedChatCost(app, 'claude-opus-4-1', prompt_tokens, completion_tokens, 1.37);
    expect(cost).not.toBe(
      await expectedChatCost(app, 'claude-opus-4-1', prompt_tokens, completion_tokens, 1),
    );
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: before.balance - cost, held: 0 });
  });

  it('lowers the upstream max tokens to what the balance covers when the client gave none', async () => {
    // 0.5 RUB on claude-opus-4-1 (6750 RUB per 1M output tokens) covers well under 100 output tokens.
    const key = await app.newKey({ balanceRub: 0.5 });
    const completion = await client(key).chat.completions.create({
      model: 'claude-opus-4-1',
      messages: [{ role: 'user', content: 'Write an epic [sim:tokens=5000]' }],
    });
    expect(completion.choices[0].finish_reason).toBe('length');
    const { prompt_tokens, completion_tokens } = completion.usage!;
    expect(completion_tokens).toBeGreaterThan(0);
    expect(completion_tokens).toBeLessThan(100);
    const cost = await expectedChatCost(app, 'claude-opus-4-1', prompt_tokens, completion_tokens);
    const after = await balanceOf(app, key.keyId);
    expect(after).toEqual({ balance: 500_000 - cost, held: 0 });
  });

  it('settles a stream cut off by the client from the usage the upstream reports when read on', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = await balanceOf(app, key.keyId);
    const body = {
      model: 'gpt-4o',
      messages: [{ role: 'user' as const, content: 'Tell a long story [sim:tokens=100] [sim:pace=5]' }],
    };
    const stream = await client(key).chat.completions.create({
      ...body,
      stream: true,
      stream_options: { include_usage: true },
    });
    let contentChunks = 0;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content) contentChunks++;
      if (contentChunks === 10) break; // the SDK aborts the request
    }
    // The gateway reads the upstream on (up to 5 s) until its usage: 100 tokens, all billed.
    const [row] = await settledUsage(app, key.accountId, key.keyId, 10_000);
    expect(row.status).toBe('cancelled');
    expect(row.input_tokens).toBe(promptEstimateOf(body));
    expect(row.output_tokens).toBe(100);
    const cost = await expectedChatCost(app, 'gpt-4o', row.input_tokens, row.output_tokens);
    expect(row.cost).toBe(cost);
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: before.balance - cost, held: 0 });
  });

  it('releases everything when the upstream fails before any output', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = await balanceOf(app, key.keyId);
    for (const stream of [false, true]) {
      const error = await client(key)
        .chat.completions.create({
          model: 'gpt-4o',
          messages: [{ role: 'user', content: 'hi [sim:fail=overload]' }],
          stream,
        })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.InternalServerError);
      expect(error).toMatchObject({
        status: 502,
        code: 'upstream_error',
        message: expect.stringContaining('E-294'),
      });
    }
    expect(await balanceOf(app, key.keyId)).toEqual(before);
    const rows = await settledUsage(app, key.accountId, key.keyId);
    expect(rows.map((row) => [row.status, row.cost, row.output_tokens])).toEqual([
      ['failed', 0, 0],
      ['failed', 0, 0],
    ]);
    expect(await ledgerKinds(key)).toEqual([
      'topup',
      'hold',
      'capture',
      'release',
      'hold',
      'capture',
      'release',
    ]);
  });

  it('bills what was delivered when the upstream breaks mid-stream, and tells the client in the stream', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = await balanceOf(app, key.keyId);
    const body = {
      model: 'gpt-5',
      messages: [{ role: 'user' as const, content: 'go [sim:tokens=10] [sim:fail=stream]' }],
    };
    const stream = await client(key).chat.completions.create({ ...body, stream: true });
    const received: string[] = [];
    const error = await (async () => {
      for await (const chunk of stream)
        if (chunk.choices[0]?.delta.content) received.push(chunk.choices[0].delta.content);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toMatch(/E-294/);
    expect(received).toHaveLength(5);
    // No usage came: the prompt and the delivered text, counted with gpt-5's tokenizer (o200k).
    const counted = await countedUsageOf('gpt-5', body, [received.join('')]);
    const [row] = await settledUsage(app, key.accountId, key.keyId);
    const cost = await expectedChatCost(app, 'gpt-5', counted.prompt, counted.completion);
    expect(row).toMatchObject({
      status: 'failed',
      input_tokens: counted.prompt,
      output_tokens: counted.completion,
      cost,
    });
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: before.balance - cost, held: 0 });
  });
});
