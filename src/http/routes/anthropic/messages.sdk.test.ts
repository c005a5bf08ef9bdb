// POST /v1/messages and /v1/messages/count_tokens driven by Anthropic's own SDK (@anthropic-ai/sdk)
// against a listening gengate: claude-sonnet-4-5 passed through to the loopback Anthropic fake,
// gpt-4o translated to the loopback OpenAI fake. Every charge is asserted to the micro-ruble, as a
// literal and against the catalog's prices; the ledger check is clean at the end.
// claude-sonnet-4-5: 270 RUB per 1M input, 1,350 output, 337.5 cache write, 27 cache read,
// 900 per 1,000 web searches. gpt-4o: see the catalog (checked through expectedChatCost).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { messagesCost, messagesPrices } from '../../../domain/billing/messages-cost.js';
import { countTokens } from '../../../domain/chat/token-count.js';
import { parseMessagesRequest } from '../../../domain/messages/request.js';
import { checkLedger } from '../../../storage/ledger/ledger-check.js';
import { createTestApp, listenOnLoopback, type TestApp, type TestKey } from '../../../testing/app.js';
import { balanceOf, expectedChatCost, settledUsage } from '../../../testing/chat.js';
import {
  chunk,
  done,
  event,
  type FakeOpenAi,
  json,
  sseHead,
  startFakeOpenAi,
  usageChunk,
} from '../../../testing/fake-openai.js';
import { FAKE_OVERLOADED, FakeAnthropic } from '../../../testing/fakes/anthropic.js';
import { expectServerTiming } from '../../../testing/server-timing.js';

const UPSTREAM_KEY = 'sk-ant-api03-upstream-secret-for-messages';
const CLAUDE = 'claude-sonnet-4-5';
const CLAUDE_UPSTREAM = 'claude-sonnet-4-5-20250929';
const GPT = 'gpt-4o';
const GPT_UPSTREAM = 'gpt-4o-2024-08-06';

let anthropic: FakeAnthropic;
let openai: FakeOpenAi;
let app: TestApp;
let baseURL: string;

beforeAll(async () => {
  anthropic = await new FakeAnthropic(UPSTREAM_KEY).start();
  openai = await startFakeOpenAi();
  const providersFile = join(mkdtempSync(join(tmpdir(), 'gengate-messages-')), 'providers.json');
  writeFileSync(
    providersFile,
    JSON.stringify({
      providers: {
        claude: { type: 'anthropic', base_url: anthropic.origin, api_key: UPSTREAM_KEY },
        oai: { type: 'openai', base_url: openai.baseUrl, api_key: 'sk-openai-upstream' },
      },
      routes: {
        // The operator's cost (the margin report): 100 RUB per 1M input tokens, 500 per 1M output.
        [CLAUDE]: { provider: 'claude', model: CLAUDE_UPSTREAM, cost_rub: 100, cost_output_rub: 500 },
        [GPT]: { provider: 'oai', model: GPT_UPSTREAM },
      },
    }),
  );
  app = await createTestApp({ config: { providersFile } });
  baseURL = await listenOnLoopback(app);
});

afterAll(async () => {
  expect(await checkLedger(app.ctx.storage.db)).toEqual([]);
  await app.dispose();
  await anthropic.close();
  await openai.close();
});

beforeEach(() => {
  anthropic.reset();
  openai.requests.length = 0;
});

const sdk = (key: TestKey | string) =>
  new Anthropic({ apiKey: typeof key === 'string' ? key : key.secret, baseURL, maxRetries: 0 });

/** POST /v1/messages with fetch itself (Bearer auth), for what the SDK hides: cuts and raw bytes. */
const postMessages = (key: TestKey, body: Record<string, unknown>, signal?: AbortSignal) =>
  fetch(`${baseURL}/v1/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });

/** Each settled request's provider and provider cost (the margin report's inputs), oldest first. */
async function providerCosts(key: TestKey): Promise<[string | null, number | null][]> {
  await settledUsage(app, key.accountId, key.keyId);
  const rows = await app.ctx.storage.db
    .selectFrom('usage_records')
    .select(['provider', 'provider_cost'])
    .where('key_id', '=', key.keyId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => [r.provider ?? null, r.provider_cost == null ? null : Number(r.provider_cost)]);
}

/** The exact cost of a Claude usage at the catalog's prices. */
async function claudeCost(usage: Parameters<typeof messagesCost>[0]): Promise<number> {
  const model = await app.ctx.catalog.get(CLAUDE);
  return messagesCost(usage, messagesPrices(model!, 1_000_000));
}

const usage = (u: Partial<Parameters<typeof messagesCost>[0]>) => ({
  inputTokens: 0,
  cacheWriteTokens: 0,
  cacheWrite1hTokens: 0,
  cacheReadTokens: 0,
  outputTokens: 0,
  webSearches: 0,
  webFetches: 0,
  ...u,
});

/** The key's usage rows are settled; the last one cost `micro`; the balance moved by the sum. */
async function expectCharged(key: TestKey, before: number, micros: number[], row: Record<string, unknown>) {
  const rows = await settledUsage(app, key.accountId, key.keyId);
  expect(rows).toHaveLength(micros.length);
  expect(rows.map((r) => r.cost).sort()).toEqual([...micros].sort());
  expect(rows.find((r) => r.cost === micros.at(-1))).toMatchObject(row);
  const total = micros.reduce((a, b) => a + b, 0);
  expect(await balanceOf(app, key.keyId)).toEqual({ balance: before - total, held: 0 });
}

const weatherTool = {
  name: 'get_weather',
  description: 'Current weather of a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('a Claude model on an Anthropic route: the pass-through', () => {
  it('says in Server-Timing how long the upstream took and how long gengate did, streamed or not', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const turn = {
      content: [{ type: 'text' as const, text: 'Hi.' }],
      usage: { input_tokens: 10, output_tokens: 2 },
    };
    anthropic.script({ ...turn, delayMs: 60 }, { ...turn, delayMs: 60 });
    const request = { model: CLAUDE, max_tokens: 50, messages: [{ role: 'user' as const, content: 'Hi' }] };
    const whole = await sdk(key).messages.create(request).withResponse();
    const streamed = await sdk(key)
      .messages.create({ ...request, stream: true })
      .withResponse();
    for await (const _event of streamed.data) {
      // read to the end
    }
    // The upstream's 60 ms are its share; gengate's own is what is left.
    for (const response of [whole.response, streamed.response]) expectServerTiming(response.headers, 59);
    await settledUsage(app, key.accountId, key.keyId);
  });

  it('create: every field reaches Anthropic, only model is rewritten; cache tokens billed at their prices', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = (await balanceOf(app, key.keyId)).balance;
    anthropic.script({
      content: [{ type: 'text', text: 'Paris.' }],
      usage: {
        input_tokens: 100,
        output_tokens: 50,
        cache_creation_input_tokens: 2000,
        cache_read_input_tokens: 5000,
      },
    });
    const body = {
      model: CLAUDE,
      max_tokens: 1024,
      system: [{ type: 'text' as const, text: 'Be brief.', cache_control: { type: 'ephemeral' as const } }],
      messages: [{ role: 'user' as const, content: 'Capital of France?' }],
      tools: [weatherTool],
      tool_choice: { type: 'auto' as const },
      thinking: { type: 'enabled' as const, budget_tokens: 512 },
      metadata: { user_id: 'user-42' },
      temperature: 1,
    };
    const message = await sdk(key).messages.create(body, {
      headers: { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'prompt-caching-2024-07-31' },
    });
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: CLAUDE,
      content: [{ type: 'text', text: 'Paris.' }],
      stop_reason: 'end_turn',
      usage: {
        input_tokens: 100,
        output_tokens: 50,
        cache_creation_input_tokens: 2000,
        cache_read_input_tokens: 5000,
      },
    });
    const [call] = anthropic.calls;
    expect(call.json).toEqual({ ...body, model: CLAUDE_UPSTREAM });
    expect(call.headers['x-api-key']).toBe(UPSTREAM_KEY);
    expect(call.headers['anthropic-version']).toBe('2023-06-01');
    expect(call.headers['anthropic-beta']).toBe('prompt-caching-2024-07-31');
    expect(call.headers.authorization).toBeUndefined();
    // 100×270 + 2000×337.5 + 5000×27 + 50×1350 = 904,500 micro-rubles per 10^6.
    const micro = 904_500;
    expect(
      await claudeCost(
        usage({ inputTokens: 100, cacheWriteTokens: 2000, cacheReadTokens: 5000, outputTokens: 50 }),
      ),
    ).toBe(micro);
    await expectCharged(key, before, [micro], { status: 'completed', input_tokens: 7100, output_tokens: 50 });
    // The provider cost beside the charge: (7100 × 100 + 50 × 500) RUB per 10^6 tokens = 735,000 micro-rubles.
    expect(await providerCosts(key)).toEqual([['claude', 735_000]]);
  });

  it('stream: thinking, signature and text events reach the client in order; billed from the final usage', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = (await balanceOf(app, key.keyId)).balance;
    anthropic.script({
      content: [
        { type: 'thinking', thinking: 'The user wants a city.', signature: 'sig-abc123' },
        { type: 'text', text: 'It is Paris.' },
      ],
      usage: { input_tokens: 40, output_tokens: 30, cache_read_input_tokens: 1000 },
    });
    const stream = sdk(key).messages.stream({
      model: CLAUDE,
      max_tokens: 2048,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [{ role: 'user', content: 'Capital of France?' }],
    });
    const types: string[] = [];
    stream.on('streamEvent', (e) =>
      types.push(e.type === 'content_block_delta' ? `delta:${e.delta.type}` : e.type),
    );
    const message = await stream.finalMessage();
    expect(types).toEqual([
      'message_start',
      'content_block_start',
      'delta:thinking_delta',
      'delta:thinking_delta',
      'delta:thinking_delta',
      'delta:thinking_delta',
      'delta:thinking_delta',
      'delta:signature_delta',
      'content_block_stop',
      'content_block_start',
      'delta:text_delta',
      'delta:text_delta',
      'delta:text_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(message.model).toBe(CLAUDE);
    expect(message.content).toMatchObject([
      { type: 'thinking', thinking: 'The user wants a city.', signature: 'sig-abc123' },
      { type: 'text', text: 'It is Paris.' },
    ]);
    expect(anthropic.calls[0].json.model).toBe(CLAUDE_UPSTREAM);
    expect(anthropic.calls[0].json.stream).toBe(true);
    // 40×270 + 1000×27 + 30×1350 = 78,300 micro-rubles per 10^6.
    const micro = 78_300;
    expect(await claudeCost(usage({ inputTokens: 40, cacheReadTokens: 1000, outputTokens: 30 }))).toBe(micro);
    await expectCharged(key, before, [micro], { status: 'completed', input_tokens: 1040, output_tokens: 30 });
  });

  it('passes the stream bytes through unchanged apart from message_start.model', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    anthropic.script({
      content: [{ type: 'text', text: 'One two three' }],
      usage: { input_tokens: 5, output_tokens: 3 },
    });
    // Spacing and field order as a client wrote them: the upstream gets these very bytes.
    const sent = `{"max_tokens": 10,\n "model" : "${CLAUDE}", "stream":true, "messages":[{"role":"user","content":"Count \\u00e9"}]}`;
    const res = await fetch(`${baseURL}/v1/messages?beta=true`, {
      method: 'POST',
      headers: {
        'x-api-key': key.secret,
        'anthropic-version': '2023-06-01',
        'content-type': 'application/json',
      },
      body: sent,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await res.text();
    expect(anthropic.calls[0].raw.toString()).toBe(sent.replace(`"${CLAUDE}"`, `"${CLAUDE_UPSTREAM}"`));
    const events = text.split('\n\n').filter(Boolean);
    expect(events[0]).toMatch(/^event: message_start\ndata: /);
    expect(JSON.parse(events[0].split('data: ')[1]).message.model).toBe(CLAUDE);
    expect(text).not.toContain(CLAUDE_UPSTREAM);
    expect(events.slice(1).map((e) => e.split('\n')[0])).toEqual([
      'event: content_block_start',
      'event: ping',
      'event: content_block_delta',
      'event: content_block_delta',
      'event: content_block_delta',
      'event: content_block_stop',
      'event: message_delta',
      'event: message_stop',
    ]);
    await settledUsage(app, key.accountId, key.keyId);
  });

  it('an upstream framing its events with \\r\\n and id lines: every event relayed, billed from its usage', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = (await balanceOf(app, key.keyId)).balance;
    anthropic.script({
      content: [{ type: 'text', text: 'It is Paris.' }],
      usage: { input_tokens: 40, output_tokens: 3 },
      framing: { lineEnd: '\r\n', idLines: true },
    });
    const stream = sdk(key).messages.stream({
      model: CLAUDE,
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Capital of France?' }],
    });
    const types: string[] = [];
    stream.on('streamEvent', (e) => types.push(e.type));
    const message = await stream.finalMessage();
    expect(types).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(message.model).toBe(CLAUDE);
    expect(message.content).toMatchObject([{ type: 'text', text: 'It is Paris.' }]);
    // 40×270 + 3×1350 = 14,850 micro-rubles per 10^6.
    const micro = 14_850;
    expect(await claudeCost(usage({ inputTokens: 40, outputTokens: 3 }))).toBe(micro);
    await expectCharged(key, before, [micro], { status: 'completed', input_tokens: 40, output_tokens: 3 });
  });

  it('an upstream framing its lines with \\r alone that breaks: billed for the text its deltas delivered', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    anthropic.script({
      content: [{ type: 'text', text: 'Incomprehensibilities notwithstanding, unfinished' }],
      usage: { input_tokens: 12, output_tokens: 400 },
      errorAfterDeltas: 2,
      framing: { lineEnd: '\r' },
    });
    const res = await postMessages(key, {
      model: CLAUDE,
      max_tokens: 500,
      stream: true,
      messages: [{ role: 'user', content: 'Go' }],
    });
    const events = await res.text();
    expect(events).toContain('event: error\r');
    expect(events).not.toContain('The upstream stream ended early');
    const [row] = await settledUsage(app, key.accountId, key.keyId);
    const outputTokens = await countTokens('bound', ['Incomprehensibilities notwithstanding, ']);
    expect(outputTokens).toBeGreaterThan(2);
    expect(row).toMatchObject({ status: 'failed', input_tokens: 12, output_tokens: outputTokens });
    expect(row.cost).toBe(await claudeCost(usage({ inputTokens: 12, outputTokens })));
  });

  it('an answer without usage is billed from the estimate: the prompt, and 4 bytes a token of the content', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = (await balanceOf(app, key.keyId)).balance;
    anthropic.script({
      content: [{ type: 'text', text: 'An answer of some length.' }],
      usage: { input_tokens: 0, output_tokens: 0 },
      omitUsage: true,
    });
    const sent = JSON.stringify({
      model: CLAUDE,
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Hi there' }],
    });
    const res = await fetch(`${baseURL}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key.secret, 'content-type': 'application/json' },
      body: sent,
    });
    expect(res.status).toBe(200);
    const { promptEstimate } = parseMessagesRequest(JSON.parse(sent), Buffer.byteLength(sent));
    const output = Math.ceil(
      Buffer.byteLength(JSON.stringify([{ type: 'text', text: 'An answer of some length.' }])) / 4,
    );
    const micro = await claudeCost(usage({ inputTokens: promptEstimate, outputTokens: output }));
    expect(micro).toBeGreaterThan(0);
    await expectCharged(key, before, [micro], { input_tokens: promptEstimate, output_tokens: output });
  });

  it('a tool round trip: tool_use, then the tool_result in the next request; both billed', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = (await balanceOf(app, key.keyId)).balance;
    anthropic.script(
      {
        content: [{ type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Oslo' } }],
        usage: { input_tokens: 300, output_tokens: 20 },
      },
      {
        content: [{ type: 'text', text: 'It is 3°C in Oslo.' }],
        usage: { input_tokens: 350, output_tokens: 12 },
      },
    );
    const client = sdk(key);
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Oslo?' }];
    const first = await client.messages.create({
      model: CLAUDE,
      max_tokens: 200,
      tools: [weatherTool],
      messages,
    });
    expect(first.stop_reason).toBe('tool_use');
    const toolUse = first.content.find((b) => b.type === 'tool_use')!;
    expect(toolUse).toMatchObject({ id: 'toolu_01', name: 'get_weather', input: { city: 'Oslo' } });
    messages.push({ role: 'assistant', content: first.content });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: '3°C' }],
    });
    const stream = client.messages.stream({ model: CLAUDE, max_tokens: 200, tools: [weatherTool], messages });
    const second = await stream.finalMessage();
    expect(second.content).toMatchObject([{ type: 'text', text: 'It is 3°C in Oslo.' }]);
    expect(anthropic.calls[1].json.messages[2].content[0]).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_01',
      content: '3°C',
    });
    // 300×270 + 20×1350 = 108,000; 350×270 + 12×1350 = 110,700.
    expect(await claudeCost(usage({ inputTokens: 300, outputTokens: 20 }))).toBe(108_000);
    expect(await claudeCost(usage({ inputTokens: 350, outputTokens: 12 }))).toBe(110_700);
    await expectCharged(key, before, [108_000, 110_700], { input_tokens: 350, output_tokens: 12 });
  });

  it('count_tokens asks Anthropic and charges nothing', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = await balanceOf(app, key.keyId);
    const counted = await sdk(key).messages.countTokens({
      model: CLAUDE,
      messages: [{ role: 'user', content: 'How many tokens is this?' }],
    });
    expect(anthropic.countCalls).toHaveLength(1);
    const sent = anthropic.countCalls[0];
    expect(sent.json.model).toBe(CLAUDE_UPSTREAM);
    expect(counted.input_tokens).toBe(Math.ceil(sent.raw.length / 4));
    expect(await balanceOf(app, key.keyId)).toEqual(before);
    expect(await app.ctx.storage.usage.listForAccount(key.accountId, { keyId: key.keyId })).toEqual([]);
  });

  it('web search is billed per use at the catalog price; an unpriced server tool is refused before any call', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = (await balanceOf(app, key.keyId)).balance;
    anthropic.script({
      content: [{ type: 'text', text: 'Found it.' }],
      usage: { input_tokens: 1000, output_tokens: 100, server_tool_use: { web_search_requests: 2 } },
    });
    const client = sdk(key);
    const message = await client.messages.create({
      model: CLAUDE,
      max_tokens: 500,
      tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }],
      messages: [{ role: 'user', content: 'Latest news?' }],
    });
    expect(message.usage.server_tool_use).toEqual({ web_search_requests: 2 });
    // 1000×270 + 100×1350 = 405,000; plus 2 searches at 900 RUB per 1,000 = 1,800,000.
    const micro = 2_205_000;
    expect(await claudeCost(usage({ inputTokens: 1000, outputTokens: 100, webSearches: 2 }))).toBe(micro);
    await expectCharged(key, before, [micro], { status: 'completed' });

    const refused = await client.messages
      .create({
        model: CLAUDE,
        max_tokens: 500,
        tools: [{ type: 'code_execution_20250522', name: 'code_execution' } as never],
        messages: [{ role: 'user', content: 'Run this' }],
      })
      .catch((error) => error);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect(refused.error).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining('code_execution_20250522') },
    });
    expect(anthropic.calls).toHaveLength(1);
    expect(await app.ctx.storage.usage.listForAccount(key.accountId, { keyId: key.keyId })).toHaveLength(1);
  });

  it('an upstream 529 passes as 529 overloaded_error, and nothing is charged', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = await balanceOf(app, key.keyId);
    anthropic.script({ error: FAKE_OVERLOADED }, { error: FAKE_OVERLOADED });
    const client = sdk(key);
    const error = await client.messages
      .create({ model: CLAUDE, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e) => e);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect(error.status).toBe(529);
    expect(error.error).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
    const streamed = await client.messages
      .create({ model: CLAUDE, max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e) => e);
    expect(streamed.status).toBe(529);
    const rows = await settledUsage(app, key.accountId, key.keyId);
    expect(rows.map((r) => [r.status, r.cost])).toEqual([
      ['failed', 0],
      ['failed', 0],
    ]);
    expect(await providerCosts(key)).toEqual([
      ['claude', 0],
      ['claude', 0],
    ]);
    expect(await balanceOf(app, key.keyId)).toEqual(before);
  });

  it('a stream the upstream breaks is billed for the text its deltas delivered, not a token per delta', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = (await balanceOf(app, key.keyId)).balance;
    const thinking = 'Weighing the antidisestablishmentarian counterarguments ';
    const text = 'Pneumonoultramicroscopicsilicovolcanoconiosis incomprehensibilities remain unfinished';
    anthropic.script({
      content: [
        { type: 'thinking', thinking, signature: 'EqQBCkYIBxgCKkD3c2lnbmF0dXJlIG9mIHRoZSB0aGlua2luZw==' },
        { type: 'text', text },
      ],
      usage: { input_tokens: 12, output_tokens: 400 },
      // The four thinking pieces, then two words of the text, then an `error` event.
      errorAfterDeltas: 6,
    });
    const res = await postMessages(key, {
      model: CLAUDE,
      max_tokens: 500,
      stream: true,
      messages: [{ role: 'user', content: 'Go' }],
    });
    const events = await res.text();
    expect(events).toContain('event: error');
    const [row] = await settledUsage(app, key.accountId, key.keyId);
    expect(row.status).toBe('failed');
    // The signature is no output; the thinking and the two words are, counted as chat counts them.
    const delivered = [thinking, 'Pneumonoultramicroscopicsilicovolcanoconiosis incomprehensibilities '];
    const outputTokens = await countTokens('bound', delivered);
    expect(outputTokens).toBeGreaterThan(6 * 2);
    expect(row.input_tokens).toBe(12);
    expect(row.output_tokens).toBe(outputTokens);
    expect(row.cost).toBe(await claudeCost(usage({ inputTokens: 12, outputTokens })));
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: before - row.cost, held: 0 });
  });

  it('a client that leaves before a whole answer: the answer that still comes is billed, as chat bills it', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = (await balanceOf(app, key.keyId)).balance;
    anthropic.script({
      content: [{ type: 'text', text: 'Too late.' }],
      usage: { input_tokens: 20, output_tokens: 3 },
      delayMs: 150,
    });
    const controller = new AbortController();
    const res = postMessages(
      key,
      { model: CLAUDE, max_tokens: 50, messages: [{ role: 'user', content: 'Go' }] },
      controller.signal,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    await res.catch(() => undefined);
    const [row] = await settledUsage(app, key.accountId, key.keyId);
    expect(row.status).toBe('cancelled');
    expect([row.input_tokens, row.output_tokens]).toEqual([20, 3]);
    expect(row.cost).toBe(await claudeCost(usage({ inputTokens: 20, outputTokens: 3 })));
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: before - row.cost, held: 0 });
  });

  it('a stream cut by the client is read on to the upstream’s own count, and billed that', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = (await balanceOf(app, key.keyId)).balance;
    const words = Array.from({ length: 4000 }, (_, i) => `w${i} `).join('');
    anthropic.script({
      content: [{ type: 'text', text: words }],
      usage: { input_tokens: 12, output_tokens: 4000 },
    });
    const controller = new AbortController();
    const res = await postMessages(
      key,
      {
        model: CLAUDE,
        max_tokens: 5000,
        stream: true,
        messages: [{ role: 'user', content: 'Go' }],
      },
      controller.signal,
    );
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    const [row] = await settledUsage(app, key.accountId, key.keyId);
    // The upstream was read on after the client left, to its own final count: billed exactly that.
    expect(row.status).toBe('cancelled');
    expect(row.input_tokens).toBe(12);
    expect(row.output_tokens).toBe(4000);
    expect(row.cost).toBe(await claudeCost(usage({ inputTokens: 12, outputTokens: 4000 })));
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: before - row.cost, held: 0 });
  });
});

describe('models.list', () => {
  it("lists the text models in Anthropic's shape through the SDK", async () => {
    const key = await app.newKey({ balanceRub: 1 });
    const ids: string[] = [];
    for await (const model of sdk(key).models.list({ limit: 5 })) {
      expect(model.type).toBe('model');
      ids.push(model.id);
    }
    expect(ids).toContain(CLAUDE);
    expect(ids).toContain(GPT);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.some((id) => id.startsWith('seedance'))).toBe(false);
  });
});

describe('typed errors of the SDK', () => {
  it('401, 403, 404, 400, 402 and 429 in Anthropic shape', async () => {
    const bad = await sdk('sk_live_not_a_real_key_000000000000')
      .messages.create({ model: CLAUDE, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e) => e);
    expect(bad).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(bad.error).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });

    const restricted = await app.newKey({ balanceRub: 10, restrictions: { allowed_models: [GPT] } });
    const denied = await sdk(restricted)
      .messages.create({ model: CLAUDE, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e) => e);
    expect(denied).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect(denied.error.error.type).toBe('permission_error');

    const key = await app.newKey({ balanceRub: 10 });
    const missing = await sdk(key)
      .messages.create({
        model: 'claude-nonexistent',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'hi' }],
      })
      .catch((e) => e);
    expect(missing).toBeInstanceOf(Anthropic.NotFoundError);
    expect(missing.error.error.type).toBe('not_found_error');

    const invalid = await sdk(key)
      .messages.create({ model: CLAUDE, messages: [{ role: 'user', content: 'hi' }] } as never)
      .catch((e) => e);
    expect(invalid).toBeInstanceOf(Anthropic.BadRequestError);
    expect(invalid.error.error).toEqual({
      type: 'invalid_request_error',
      message: 'max_tokens: Field required',
    });

    const poor = await app.newKey({ balanceRub: 0 });
    const broke = await sdk(poor)
      .messages.create({ model: CLAUDE, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e) => e);
    expect(broke).toBeInstanceOf(Anthropic.APIError);
    expect(broke.status).toBe(402);
    expect(broke.error.error.type).toBe('billing_error');

    const limited = await app.newKey({ balanceRub: 10, restrictions: { rate_limit_per_min: 1 } });
    anthropic.script({
      content: [{ type: 'text', text: 'ok' }],
      usage: { input_tokens: 1, output_tokens: 1 },
    });
    await sdk(limited).messages.create({
      model: CLAUDE,
      max_tokens: 5,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const throttled = await sdk(limited)
      .messages.create({ model: CLAUDE, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e) => e);
    expect(throttled).toBeInstanceOf(Anthropic.RateLimitError);
    expect(throttled.error.error.type).toBe('rate_limit_error');
    expect(anthropic.calls).toHaveLength(1);
  });
});

describe('a GPT model: translated to chat completions', () => {
  it('create: system, tools and max_tokens translated; the answer is a Message; billed exactly', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = (await balanceOf(app, key.keyId)).balance;
    openai.handle = (_request, res) =>
      json(res, 200, {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1_700_000_000,
        model: GPT_UPSTREAM,
        choices: [{ index: 0, message: { role: 'assistant', content: 'Bonjour.' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 33, completion_tokens: 4, total_tokens: 37 },
      });
    const message = await sdk(key).messages.create({
      model: GPT,
      max_tokens: 100,
      system: 'Answer in French.',
      stop_sequences: ['END'],
      tools: [weatherTool],
      tool_choice: { type: 'any' },
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: GPT,
      content: [{ type: 'text', text: 'Bonjour.' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 33, output_tokens: 4 },
    });
    expect(message.id).toMatch(/^msg_/);
    expect(openai.requests[0].body).toEqual({
      model: GPT_UPSTREAM,
      messages: [
        { role: 'system', content: 'Answer in French.' },
        { role: 'user', content: 'Hello' },
      ],
      max_completion_tokens: 100,
      stop: ['END'],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: weatherTool.description,
            parameters: weatherTool.input_schema,
          },
        },
      ],
      tool_choice: 'required',
    });
    const micro = await expectedChatCost(app, GPT, 33, 4);
    expect(micro).toBeGreaterThan(0);
    await expectCharged(key, before, [micro], { status: 'completed', input_tokens: 33, output_tokens: 4 });
  });

  it('stream and a tool round trip: tool_calls become tool_use, tool_result becomes a tool message', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = (await balanceOf(app, key.keyId)).balance;
    let turn = 0;
    openai.handle = (_request, res) => {
      sseHead(res);
      if (turn++ === 0) {
        event(res, chunk(GPT_UPSTREAM, { role: 'assistant', content: 'Checking. ' }));
        event(
          res,
          chunk(GPT_UPSTREAM, {
            tool_calls: [
              {
                index: 0,
                id: 'call_1',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"ci' },
              },
            ],
          }),
        );
        event(
          res,
          chunk(GPT_UPSTREAM, { tool_calls: [{ index: 0, function: { arguments: 'ty":"Oslo"}' } }] }),
        );
        event(res, chunk(GPT_UPSTREAM, {}, 'tool_calls'));
        event(res, usageChunk(GPT_UPSTREAM, 60, 15));
      } else {
        event(res, chunk(GPT_UPSTREAM, { role: 'assistant', content: 'Cold: ' }));
        event(res, chunk(GPT_UPSTREAM, { content: '3°C.' }));
        event(res, chunk(GPT_UPSTREAM, {}, 'stop'));
        event(res, usageChunk(GPT_UPSTREAM, 80, 5));
      }
      done(res);
    };
    const client = sdk(key);
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Oslo?' }];
    const first = await client.messages
      .stream({ model: GPT, max_tokens: 100, tools: [weatherTool], messages })
      .finalMessage();
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content).toMatchObject([
      { type: 'text', text: 'Checking. ' },
      { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Oslo' } },
    ]);
    expect(first.usage).toMatchObject({ input_tokens: 60, output_tokens: 15 });
    messages.push({ role: 'assistant', content: first.content });
    messages.push({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'call_1', content: '3°C' },
        { type: 'text', text: 'Thanks' },
      ],
    });
    const second = await client.messages
      .stream({ model: GPT, max_tokens: 100, tools: [weatherTool], messages })
      .finalMessage();
    expect(second.content).toMatchObject([{ type: 'text', text: 'Cold: 3°C.' }]);
    expect(second.stop_reason).toBe('end_turn');
    expect(openai.requests[1].body.messages).toEqual([
      { role: 'user', content: 'Weather in Oslo?' },
      {
        role: 'assistant',
        content: 'Checking. ',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '3°C' },
      { role: 'user', content: 'Thanks' },
    ]);
    const costs = [await expectedChatCost(app, GPT, 60, 15), await expectedChatCost(app, GPT, 80, 5)];
    await expectCharged(key, before, costs, { input_tokens: 80, output_tokens: 5 });
  });

  it('count_tokens answers the estimate and charges nothing; an upstream failure is an Anthropic-shaped error', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = await balanceOf(app, key.keyId);
    const counted = await sdk(key).messages.countTokens({
      model: GPT,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'How many tokens is this?' }],
    });
    expect(counted.input_tokens).toBeGreaterThan(5);
    expect(openai.requests).toHaveLength(0);
    expect(await balanceOf(app, key.keyId)).toEqual(before);

    openai.handle = (_request, res) => json(res, 500, { error: { message: 'boom', type: 'server_error' } });
    const failed = await sdk(key)
      .messages.create({ model: GPT, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e) => e);
    expect(failed).toBeInstanceOf(Anthropic.InternalServerError);
    expect(failed.status).toBe(500);
    expect(failed.error).toEqual({
      type: 'error',
      error: { type: 'api_error', message: expect.any(String) },
    });
    const rows = await settledUsage(app, key.accountId, key.keyId);
    expect(rows.map((r) => [r.status, r.cost])).toEqual([['failed', 0]]);
    expect(await balanceOf(app, key.keyId)).toEqual(before);
  });

  it('a model without a route answers from the simulator through the translation', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = (await balanceOf(app, key.keyId)).balance;
    const message = await sdk(key).messages.create({
      model: 'claude-haiku-4-5',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Say something [sim:tokens=7]' }],
    });
    expect(message.model).toBe('claude-haiku-4-5');
    expect(message.usage.output_tokens).toBe(7);
    const micro = await expectedChatCost(app, 'claude-haiku-4-5', message.usage.input_tokens, 7);
    await expectCharged(key, before, [micro], { status: 'completed', output_tokens: 7 });
  });
});
