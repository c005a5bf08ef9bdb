// The native Anthropic adapter through the whole gateway, driven by the official `openai` package
// against the loopback Anthropic fake: what Anthropic receives (headers, translated body), what the
// client gets back (plain, streamed, parallel tool calls, tool results, vision, a mid-stream error),
// the error mapping, and billing exact to the micro-ruble from the catalog's claude-sonnet-4-5 prices
// (270 RUB per 1M prompt tokens, 1,350 RUB per 1M completion tokens).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkLedger } from '../../storage/ledger/ledger-check.js';
import { createTestApp, listenOnLoopback, type TestApp, type TestKey } from '../../testing/app.js';
import { balanceOf, expectedChatCost, settledUsage } from '../../testing/chat.js';
import { type FakeOpenAi, json, startFakeOpenAi } from '../../testing/fake-openai.js';
import { FAKE_ANTHROPIC_VERSION, FakeAnthropic } from '../../testing/fakes/anthropic.js';

const UPSTREAM_KEY = 'sk-ant-api03-upstream-secret-for-tests';
const MODEL = 'claude-sonnet-4-5';
const UPSTREAM_MODEL = 'claude-sonnet-4-5-20250929';
const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

let fake: FakeAnthropic;
let compatFake: FakeOpenAi;
let app: TestApp;
let baseURL: string;

beforeAll(async () => {
  fake = await new FakeAnthropic(UPSTREAM_KEY).start();
  compatFake = await startFakeOpenAi();
  const providersFile = join(mkdtempSync(join(tmpdir(), 'gengate-anthropic-')), 'providers.json');
  writeFileSync(
    providersFile,
    JSON.stringify({
      providers: {
        claude: { type: 'anthropic', base_url: fake.origin, api_key: UPSTREAM_KEY },
        'claude-wrong-key': { type: 'anthropic', base_url: fake.origin, api_key: 'sk-ant-api03-revoked' },
        'claude-compat': {
          type: 'anthropic',
          base_url: compatFake.origin,
          api_key: UPSTREAM_KEY,
          compat: true,
        },
      },
      routes: {
        [MODEL]: { provider: 'claude', model: UPSTREAM_MODEL },
        'claude-opus-4': { provider: 'claude-wrong-key', model: 'claude-opus-4-20250514' },
        'claude-opus-4-1': { provider: 'claude-compat', model: 'claude-opus-4-1-20250805' },
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
  await compatFake.close();
});

beforeEach(() => fake.reset());

const client = (key: TestKey) => new OpenAI({ apiKey: key.secret, baseURL, maxRetries: 0 });
const upstreamBody = (n = 0) => fake.calls[n].json;

/** Checks the capture in micro-rubles, both against the catalog prices and as a literal. */
async function expectCharged(
  key: TestKey,
  before: number,
  prompt: number,
  completion: number,
  micro: number,
) {
  expect(await expectedChatCost(app, MODEL, prompt, completion)).toBe(micro);
  const [row] = await settledUsage(app, key.accountId, key.keyId);
  expect(row).toMatchObject({ input_tokens: prompt, output_tokens: completion, cost: micro });
  expect(await balanceOf(app, key.keyId)).toEqual({ balance: before - micro, held: 0 });
  return row;
}

describe('Claude through the native Messages adapter, with the openai SDK', () => {
  it('answers a plain completion: headers, system prompt, merged turns, default max_tokens, cached usage billed exactly', async () => {
    fake.script({
      content: [{ type: 'text', text: 'Paris.' }],
      usage: {
        input_tokens: 21,
        output_tokens: 7,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 30,
      },
    });
    const key = await app.newKey({ balanceRub: 1000 });
    const before = (await balanceOf(app, key.keyId)).balance;
    const completion = await client(key).chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: 'Be terse.' },
        { role: 'developer', content: 'Answer in English.' },
        { role: 'user', content: 'Capital of France?' },
        { role: 'user', content: [{ type: 'text', text: 'One word.' }] },
      ],
      stop: ['\n\n'],
      temperature: 0.2,
      user: 'user-42',
    });

    const call = fake.calls[0];
    expect(call.headers['x-api-key']).toBe(UPSTREAM_KEY);
    expect(call.headers['anthropic-version']).toBe(FAKE_ANTHROPIC_VERSION);
    expect(call.headers.authorization).toBeUndefined();
    expect(call.json).toEqual({
      model: UPSTREAM_MODEL,
      max_tokens: 64_000,
      system: 'Be terse.\n\nAnswer in English.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Capital of France?' },
            { type: 'text', text: 'One word.' },
          ],
        },
      ],
      stop_sequences: ['\n\n'],
      temperature: 0.2,
      metadata: { user_id: 'user-42' },
    });

    expect(completion.model).toBe(MODEL);
    expect(completion.choices[0].message).toMatchObject({ role: 'assistant', content: 'Paris.' });
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect(completion.usage).toEqual({
      prompt_tokens: 151,
      completion_tokens: 7,
      total_tokens: 158,
      prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 30 },
    });
    // 151 × 270 + 7 × 1350 micro-rubles (per-million prices on single tokens).
    const row = await expectCharged(key, before, 151, 7, 50_220);
    expect(row).toMatchObject({ model_id: MODEL, status: 'completed' });
  });

  it('streams text chunks, the finish reason and the usage chunk, and bills that usage exactly (with and without include_usage)', async () => {
    const turn = {
      content: [{ type: 'text' as const, text: 'The quick brown fox' }],
      usage: { input_tokens: 12, output_tokens: 6, cache_read_input_tokens: 40 },
    };
    fake.script(turn, turn);
    const key = await app.newKey({ balanceRub: 1000 });
    let before = (await balanceOf(app, key.keyId)).balance;
    const stream = await client(key).chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Say the fox line' }],
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 300,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(upstreamBody()).toMatchObject({ stream: true, max_tokens: 300 });
    expect(upstreamBody()).not.toHaveProperty('stream_options');
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === MODEL)).toBe(true);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('The quick brown fox');
    expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['stop']);
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 52, completion_tokens: 6, prompt_tokens_details: { cached_tokens: 40 } },
    });
    await expectCharged(key, before, 52, 6, 22_140);

    // Without include_usage the client sees no usage, and the gateway still bills Anthropic's count.
    const quiet = await app.newKey({ balanceRub: 1000 });
    before = (await balanceOf(app, quiet.keyId)).balance;
    const plain = await client(quiet).chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Say the fox line' }],
      stream: true,
    });
    const seen = [];
    for await (const chunk of plain) seen.push(chunk);
    expect(seen.some((c) => c.usage)).toBe(false);
    expect(seen.at(-1)?.choices[0].finish_reason).toBe('stop');
    await expectCharged(quiet, before, 52, 6, 22_140);
  });

  it('streams two parallel tool calls with our own indexes 0 and 1 (Anthropic counts the text block too)', async () => {
    fake.script({
      content: [
        { type: 'text', text: 'Checking both.' },
        { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris', unit: 'celsius' } },
        { type: 'tool_use', id: 'toolu_02', name: 'get_time', input: { timezone: 'Europe/Paris' } },
      ],
      usage: { input_tokens: 300, output_tokens: 80 },
    });
    const key = await app.newKey({ balanceRub: 1000 });
    const before = (await balanceOf(app, key.keyId)).balance;
    const tools = [
      {
        type: 'function' as const,
        function: {
          name: 'get_weather',
          description: 'Weather in a city',
          parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string' } } },
        },
      },
      {
        type: 'function' as const,
        function: { name: 'get_time', parameters: { type: 'object', properties: {} } },
      },
    ];
    const runner = client(key).chat.completions.stream({
      model: MODEL,
      messages: [{ role: 'user', content: 'Weather and time in Paris?' }],
      tools,
      tool_choice: 'auto',
    });
    const indexes: number[] = [];
    runner.on('chunk', (chunk) => {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) indexes.push(call.index);
    });
    const final = await runner.finalChatCompletion();

    expect(upstreamBody().tools).toEqual([
      {
        name: 'get_weather',
        description: 'Weather in a city',
        input_schema: tools[0].function.parameters,
      },
      { name: 'get_time', input_schema: { type: 'object', properties: {} } },
    ]);
    expect(upstreamBody().tool_choice).toEqual({ type: 'auto' });
    expect([...new Set(indexes)]).toEqual([0, 1]);
    const message = final.choices[0].message;
    expect(message.content).toBe('Checking both.');
    expect(message.tool_calls).toEqual([
      {
        id: 'toolu_01',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
      },
      {
        id: 'toolu_02',
        type: 'function',
        function: { name: 'get_time', arguments: '{"timezone":"Europe/Paris"}' },
      },
    ]);
    expect(final.choices[0].finish_reason).toBe('tool_calls');
    await expectCharged(key, before, 300, 80, 189_000);
  });

  it('sends a tool-result round trip as tool_use blocks and one user turn of tool_result blocks', async () => {
    fake.script({
      content: [{ type: 'text', text: 'It is 18°C and 14:05 in Paris.' }],
      usage: { input_tokens: 420, output_tokens: 15 },
    });
    const key = await app.newKey({ balanceRub: 1000 });
    const before = (await balanceOf(app, key.keyId)).balance;
    const completion = await client(key).chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'user', content: 'Weather and time in Paris?' },
        {
          role: 'assistant',
          content: 'Checking both.',
          tool_calls: [
            {
              id: 'toolu_01',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            },
            { id: 'toolu_02', type: 'function', function: { name: 'get_time', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_01', content: '18°C' },
        { role: 'tool', tool_call_id: 'toolu_02', content: [{ type: 'text', text: '14:05' }] },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', parameters: { type: 'object', properties: {} } },
        },
        { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } },
      ],
      parallel_tool_calls: false,
    });
    expect(upstreamBody().messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather and time in Paris?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking both.' },
          { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_02', name: 'get_time', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01', content: '18°C' },
          { type: 'tool_result', tool_use_id: 'toolu_02', content: '14:05' },
        ],
      },
    ]);
    expect(upstreamBody().tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(completion.choices[0].message.content).toBe('It is 18°C and 14:05 in Paris.');
    await expectCharged(key, before, 420, 15, 133_650);
  });

  it('passes images as base64 and as URLs', async () => {
    fake.script({
      content: [{ type: 'text', text: 'Two pictures.' }],
      usage: { input_tokens: 1600, output_tokens: 4 },
    });
    const key = await app.newKey({ balanceRub: 1000 });
    const before = (await balanceOf(app, key.keyId)).balance;
    const completion = await client(key).chat.completions.create({
      model: MODEL,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What do you see?' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg', detail: 'low' } },
          ],
        },
      ],
    });
    expect(upstreamBody().messages[0].content).toEqual([
      { type: 'text', text: 'What do you see?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    ]);
    expect(completion.choices[0].message.content).toBe('Two pictures.');
    await expectCharged(key, before, 1600, 4, 437_400);
  });

  it('ends a stream cut by an overloaded_error event with an error chunk, and bills the usage seen so far', async () => {
    fake.script({
      content: [{ type: 'text', text: 'one two three four five six' }],
      usage: { input_tokens: 30, output_tokens: 50 },
      errorAfterDeltas: 3,
    });
    const key = await app.newKey({ balanceRub: 1000 });
    const before = (await balanceOf(app, key.keyId)).balance;
    const stream = await client(key).chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Count to six' }],
      stream: true,
    });
    let text = '';
    const failure = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    })().catch((error: unknown) => error);
    expect(text).toBe('one two three ');
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(failure).toMatchObject({ code: 'upstream_overloaded', type: 'service_unavailable' });
    // The prompt as message_start reported it; Anthropic had not counted the output yet, so the
    // gateway bounds it from the delivered text: 4 o200k tokens × 1.35 → 6 (one per chunk said 3).
    const row = await expectCharged(key, before, 30, 6, 16_200);
    expect(row.status).toBe('failed');
  });

  it('reports cache writes through the Responses API as input_tokens_details.cache_write_tokens (plain and streamed)', async () => {
    const turn = {
      content: [{ type: 'text' as const, text: 'Cached.' }],
      usage: {
        input_tokens: 9,
        output_tokens: 3,
        cache_read_input_tokens: 50,
        cache_creation_input_tokens: 20,
      },
    };
    fake.script(turn, turn);
    const key = await app.newKey({ balanceRub: 1000 });
    const expected = {
      input_tokens: 79,
      input_tokens_details: { cached_tokens: 50, cache_write_tokens: 20 },
      output_tokens: 3,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 82,
    };
    const response = await client(key).responses.create({ model: MODEL, input: 'Say cached' });
    expect(response.usage).toEqual(expected);
    const stream = await client(key).responses.create({ model: MODEL, input: 'Say cached', stream: true });
    let completed: unknown;
    for await (const event of stream)
      if (event.type === 'response.completed') completed = event.response.usage;
    expect(completed).toEqual(expected);
  });

  it('maps Anthropic errors to the catalog and holds nothing', async () => {
    const key = await app.newKey({ balanceRub: 1000 });
    const before = await balanceOf(app, key.keyId);
    const cases = [
      {
        error: { status: 529, type: 'overloaded_error', message: 'Overloaded' },
        status: 503,
        code: 'upstream_overloaded',
        retryAfter: '10',
      },
      {
        error: { status: 500, type: 'api_error', message: 'Internal server error' },
        status: 503,
        code: 'upstream_overloaded',
        retryAfter: '10',
      },
      {
        error: {
          status: 429,
          type: 'rate_limit_error',
          message: 'Number of request tokens has exceeded your per-minute rate limit',
          retryAfter: '7',
        },
        status: 429,
        code: 'rate_limited',
        retryAfter: '7',
      },
      {
        error: {
          status: 429,
          type: 'rate_limit_error',
          message: "This request would exceed your account's monthly spend limit.",
          errorCode: 'enforced_spend_limit_reached',
        },
        status: 502,
        code: 'upstream_error',
        message: 'Provider billing error',
      },
      {
        error: { status: 402, type: 'billing_error', message: 'Your credit balance is too low' },
        status: 502,
        code: 'upstream_error',
        message: 'Provider billing error',
      },
      {
        error: {
          status: 400,
          type: 'invalid_request_error',
          message: 'prompt is too long: 250000 tokens > 200000 maximum',
        },
        status: 400,
        code: 'upstream_rejected_request',
        message:
          'The upstream provider rejected the request: prompt is too long: 250000 tokens > 200000 maximum',
      },
    ];
    for (const expected of cases) {
      fake.script({ error: expected.error });
      const res = await fetch(`${baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
      });
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect({ status: res.status, code: body.error.code }).toEqual({
        status: expected.status,
        code: expected.code,
      });
      if (expected.message) expect(body.error.message).toBe(expected.message);
      expect(res.headers.get('retry-after') ?? undefined).toBe(expected.retryAfter);
    }

    // A key Anthropic refuses: 502, and neither key nor upstream text reaches the client.
    const refused = await fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-opus-4', messages: [{ role: 'user', content: 'hi' }] }),
    });
    const text = await refused.text();
    expect(refused.status).toBe(502);
    expect(JSON.parse(text).error.message).toBe(
      "The upstream provider refused the gateway's credentials (HTTP 401)",
    );
    expect(text).not.toMatch(/sk-ant|x-api-key/);

    // An overloaded answer before a stream started is a plain HTTP error, not an SSE stream.
    fake.script({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } });
    const streamed = await client(key)
      .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true })
      .catch((error: unknown) => error);
    expect(streamed).toMatchObject({ status: 503, code: 'upstream_overloaded' });

    expect(await balanceOf(app, key.keyId)).toEqual(before);
  });

  it('sends the max_tokens the balance covers when the client gave none, so the charge stays within the hold', async () => {
    fake.script({
      content: [{ type: 'text', text: 'Short.' }],
      usage: { input_tokens: 9, output_tokens: 2 },
    });
    const key = await app.newKey({ balanceRub: 1 });
    const before = (await balanceOf(app, key.keyId)).balance;
    await client(key).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
    // 1 RUB covers fewer than 1,000,000 / 1,350 completion tokens at claude-sonnet-4-5's output price.
    expect(upstreamBody().max_tokens).toBeGreaterThan(0);
    expect(upstreamBody().max_tokens).toBeLessThan(741);
    await expectCharged(key, before, 9, 2, 5_130);
  });

  it('refuses what Claude cannot express before calling it (422), holding nothing', async () => {
    const key = await app.newKey({ balanceRub: 1000 });
    const before = await balanceOf(app, key.keyId);
    const failure = await client(key)
      .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], n: 2 })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 422, code: 'invalid_parameter', param: 'n' });
    expect(fake.calls).toHaveLength(0);
    expect(await balanceOf(app, key.keyId)).toEqual(before);
  });

  it('keeps the OpenAI compatibility layer for a provider with compat: true', async () => {
    compatFake.handle = (_request, res) =>
      json(res, 200, {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1_700_000_000,
        model: 'claude-opus-4-1-20250805',
        choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
      });
    const key = await app.newKey({ balanceRub: 1000 });
    const completion = await client(key).chat.completions.create({
      model: 'claude-opus-4-1',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(completion.choices[0].message.content).toBe('Hi');
    expect(compatFake.requests[0].path).toBe('/v1/chat/completions');
    expect(compatFake.requests[0].headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
  });
});
