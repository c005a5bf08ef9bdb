// POST /v1/responses driven by unmodified clients against a real listening gengate (simulator
// upstream, SQLite): the Vercel AI SDK's default OpenAI provider (which speaks the Responses API)
// and the official `openai` package. Billing assertions are exact, in micro-rubles.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkLedger } from '../../../storage/ledger/ledger-check.js';
import { createTestApp, listenOnLoopback, type TestApp, type TestKey } from '../../../testing/app.js';
import { balanceOf, countedUsageOf, expectedChatCost, settledUsage } from '../../../testing/chat.js';
import {
  chunk,
  done,
  event,
  type FakeOpenAi,
  sseHead,
  startFakeOpenAi,
} from '../../../testing/fake-openai.js';
import { expectServerTiming } from '../../../testing/server-timing.js';

let app: TestApp;
let baseURL: string;
/** gpt-4.1 is routed to this fake OpenAI upstream; every other text model answers from the simulator. */
let fake: FakeOpenAi;

beforeAll(async () => {
  fake = await startFakeOpenAi();
  const providersFile = join(mkdtempSync(join(tmpdir(), 'gengate-responses-')), 'providers.json');
  writeFileSync(
    providersFile,
    JSON.stringify({
      providers: { fake: { type: 'openai', base_url: fake.baseUrl, api_key: 'sk-upstream' } },
      routes: { 'gpt-4.1': { provider: 'fake', model: 'upstream-4.1' } },
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

const client = (key: TestKey) => new OpenAI({ apiKey: key.secret, baseURL, maxRetries: 0 });
const aiProvider = (key: TestKey) => createOpenAI({ baseURL, apiKey: key.secret });

/** The key's only usage row is completed and its cost is exactly what the reported usage costs. */
async function expectBilledExactly(
  key: TestKey,
  model: string,
  input: number,
  output: number,
  before: number,
) {
  const cost = await expectedChatCost(app, model, input, output);
  expect(cost).toBeGreaterThan(0);
  const rows = await settledUsage(app, key.accountId, key.keyId);
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ status: 'completed', input_tokens: input, output_tokens: output, cost });
  expect(await balanceOf(app, key.keyId)).toEqual({ balance: before - cost, held: 0 });
}

const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Current weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};

describe('the openai package: client.responses.create', () => {
  it('answers a Response object with instructions and max_output_tokens, billed exactly', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = (await balanceOf(app, key.keyId)).balance;
    const response = await client(key).responses.create({
      model: 'gpt-4o',
      instructions: 'You are terse.',
      input: 'Name three rivers [sim:tokens=12]',
      max_output_tokens: 100,
      temperature: 0.5,
    });
    expect(response.object).toBe('response');
    expect(response.id).toMatch(/^resp_/);
    expect(response.status).toBe('completed');
    expect(response.model).toBe('gpt-4o');
    expect(response.instructions).toBe('You are terse.');
    expect(response.max_output_tokens).toBe(100);
    expect(response.temperature).toBe(0.5);
    expect(response).toMatchObject({ store: false });
    expect(response.output).toHaveLength(1);
    expect(response.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
    // output_text is the SDK's own convenience field, assembled from the output items.
    expect(response.output_text.split(' ')).toHaveLength(12);
    const usage = response.usage!;
    expect(usage.output_tokens).toBe(12);
    expect(usage.total_tokens).toBe(usage.input_tokens + 12);
    await expectBilledExactly(key, 'gpt-4o', usage.input_tokens, 12, before);
  });

  it('says in Server-Timing how long the upstream took and how long gengate did, streamed or not', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const request = { model: 'gpt-4o', input: 'Hi [sim:tokens=3] [sim:delay=60]' };
    const whole = await client(key).responses.create(request).withResponse();
    const streamed = await client(key)
      .responses.create({ ...request, stream: true })
      .withResponse();
    for await (const _event of streamed.data) {
      // read to the end
    }
    // The upstream's 60 ms are its share; gengate's own is what is left.
    for (const response of [whole.response, streamed.response]) expectServerTiming(response.headers, 59);
    await settledUsage(app, key.accountId, key.keyId);
  });

  it('streams the Responses events in order and bills the usage of response.completed', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = (await balanceOf(app, key.keyId)).balance;
    const stream = await client(key).responses.create({
      model: 'gpt-4o-mini',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'Count slowly [sim:tokens=5]' }] }],
      stream: true,
    });
    const events = [];
    for await (const event of stream) events.push(event);
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...Array(5).fill('response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, i) => i));
    const text = events.flatMap((event) =>
      event.type === 'response.output_text.delta' ? [event.delta] : [],
    );
    const done = events.find((event) => event.type === 'response.output_text.done');
    expect(done?.type === 'response.output_text.done' && done.text).toBe(text.join(''));
    const completed = events.at(-1);
    if (completed?.type !== 'response.completed') throw new Error('expected response.completed last');
    expect(completed.response.status).toBe('completed');
    expect(completed.response.output[0]).toMatchObject({
      type: 'message',
      content: [{ text: text.join('') }],
    });
    const usage = completed.response.usage!;
    expect(usage.output_tokens).toBe(5);
    await expectBilledExactly(key, 'gpt-4o-mini', usage.input_tokens, 5, before);
  });

  it('runs a function tool round trip with function_call and function_call_output items', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const openai = client(key);
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Use get_weather for Oslo' }];
    const first = await openai.responses.create({ model: 'claude-sonnet-4', input, tools: [weatherTool] });
    const call = first.output[0];
    if (call.type !== 'function_call') throw new Error(`expected a function_call, got ${call.type}`);
    expect(call.name).toBe('get_weather');
    expect(JSON.parse(call.arguments)).toEqual({ city: 'Use get_weather for Oslo' });
    expect(call.call_id).toMatch(/^call_/);

    input.push(call, { type: 'function_call_output', call_id: call.call_id, output: 'snow, -3 C' });
    const second = await openai.responses.create({ model: 'claude-sonnet-4', input, tools: [weatherTool] });
    expect(second.output_text).toBe('The tool get_weather returned: snow, -3 C');

    // Streamed: the arguments arrive as deltas, and the SDK's stream helper reassembles the item.
    const streamed = await openai.responses
      .stream({ model: 'claude-sonnet-4', input: 'Use get_weather for Oslo', tools: [weatherTool] })
      .finalResponse();
    expect(streamed.output[0]).toMatchObject({
      type: 'function_call',
      call_id: call.call_id,
      name: 'get_weather',
      arguments: call.arguments,
      status: 'completed',
    });
    const rows = await settledUsage(app, key.accountId, key.keyId);
    expect(rows).toHaveLength(3);
    expect(rows.every((row) => row.status === 'completed' && row.cost > 0)).toBe(true);
  });

  it('refuses previous_response_id and built-in tools before any hold', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const openai = client(key);
    await expect(
      openai.responses.create({ model: 'gpt-4o', input: 'hi', previous_response_id: 'resp_123' }),
    ).rejects.toMatchObject({ status: 400, code: 'unsupported_parameter', param: 'previous_response_id' });
    await expect(
      openai.responses.create({ model: 'gpt-4o', input: 'hi', tools: [{ type: 'web_search' }] }),
    ).rejects.toMatchObject({ status: 400, param: 'tools[0].type' });
    expect(await app.ctx.storage.usage.listForAccount(key.accountId, { keyId: key.keyId })).toEqual([]);
  });
});

describe('the AI SDK (ai 6, @ai-sdk/openai 3) in its default Responses mode', () => {
  it('runs generateText', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = (await balanceOf(app, key.keyId)).balance;
    const result = await generateText({
      model: aiProvider(key)('gpt-4o'),
      system: 'You are terse.',
      prompt: 'Say hello [sim:tokens=7]',
    });
    expect(result.text.split(' ')).toHaveLength(7);
    expect(result.finishReason).toBe('stop');
    expect(result.response.id).toMatch(/^resp_/);
    expect(result.usage.outputTokens).toBe(7);
    await expectBilledExactly(key, 'gpt-4o', result.usage.inputTokens!, 7, before);
  });

  it('runs streamText', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = (await balanceOf(app, key.keyId)).balance;
    const result = streamText({ model: aiProvider(key)('gpt-4o'), prompt: 'Stream please [sim:tokens=6]' });
    const parts: string[] = [];
    for await (const part of result.textStream) parts.push(part);
    expect(parts).toHaveLength(6);
    expect(parts.join('')).toBe(await result.text);
    expect(await result.finishReason).toBe('stop');
    const usage = await result.usage;
    expect(usage.outputTokens).toBe(6);
    await expectBilledExactly(key, 'gpt-4o', usage.inputTokens!, 6, before);
  });

  it('continues a conversation with store: false; its default store: true sends an item_reference, refused', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const model = aiProvider(key)('gpt-4o');
    const first = await generateText({ model, prompt: 'Remember the word teal' });
    const messages = [
      { role: 'user' as const, content: 'Remember the word teal' },
      ...first.response.messages,
      { role: 'user' as const, content: 'Which word?' },
    ];
    const second = await generateText({ model, messages, providerOptions: { openai: { store: false } } });
    expect(second.text).toBe('Simulated reply from gpt-4o: you said Which word?');
    const refused = await generateText({ model, messages, maxRetries: 0 }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ statusCode: 400, message: expect.stringMatching(/item_reference/) });
  });

  for (const mode of ['generateText', 'streamText'] as const) {
    it(`runs a two-step tool call with ${mode}: the tool executes and its result is answered`, async () => {
      const key = await app.newKey({ balanceRub: 100 });
      const executed: string[] = [];
      const options = {
        model: aiProvider(key)('gpt-4o'),
        prompt: 'Use get_weather for Oslo',
        tools: {
          get_weather: tool({
            description: 'Current weather of a city',
            inputSchema: z.object({ city: z.string() }),
            execute: async ({ city }) => {
              executed.push(city);
              return `snow in ${city}`;
            },
          }),
        },
        stopWhen: stepCountIs(2),
      };
      const result = mode === 'generateText' ? await generateText(options) : streamText(options);
      const steps = await result.steps;
      expect(executed).toEqual(['Use get_weather for Oslo']);
      expect(steps).toHaveLength(2);
      expect(steps[0].finishReason).toBe('tool-calls');
      expect(steps[0].toolCalls[0]).toMatchObject({
        toolName: 'get_weather',
        input: { city: 'Use get_weather for Oslo' },
      });
      // The result went back as a function_call_output, which the simulator echoes.
      expect(await result.text).toBe('The tool get_weather returned: snow in Use get_weather for Oslo');
      const rows = await settledUsage(app, key.accountId, key.keyId);
      expect(rows).toHaveLength(2);
      expect(rows.every((row) => row.status === 'completed' && row.cost > 0)).toBe(true);
    });
  }
});

describe('what reaches the upstream, and what is refused before it', () => {
  it('sends the chat request the Responses request stands for, and reports the cached tokens it billed', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = (await balanceOf(app, key.keyId)).balance;
    fake.handle = (_request, res) => {
      sseHead(res);
      event(res, chunk('upstream-4.1', { role: 'assistant', content: '' }));
      event(res, chunk('upstream-4.1', { content: 'A red dot.' }));
      event(res, chunk('upstream-4.1', {}, 'stop'));
      event(res, {
        id: 'chatcmpl-fake',
        object: 'chat.completion.chunk',
        created: 1_700_000_000,
        model: 'upstream-4.1',
        choices: [],
        usage: {
          prompt_tokens: 120,
          completion_tokens: 4,
          prompt_tokens_details: { cached_tokens: 64, cache_write_tokens: 16 },
        },
      });
      done(res);
    };
    const image = 'https://example.com/dot.png';
    const final = await client(key)
      .responses.stream({
        model: 'gpt-4.1',
        instructions: 'Describe images.',
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'What is this?' },
              { type: 'input_image', image_url: image, detail: 'auto' },
            ],
          },
        ],
        max_output_tokens: 50,
        tools: [weatherTool],
        tool_choice: 'auto',
      })
      .finalResponse();
    expect(final.output_text).toBe('A red dot.');
    expect(final.usage).toMatchObject({
      input_tokens: 120,
      input_tokens_details: { cached_tokens: 64, cache_write_tokens: 16 },
      output_tokens: 4,
    });
    expect(fake.requests.at(-1)?.body).toEqual({
      model: 'upstream-4.1',
      messages: [
        { role: 'system', content: 'Describe images.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: image, detail: 'auto' } },
          ],
        },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 50,
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: weatherTool.description,
            parameters: weatherTool.parameters,
            strict: false,
          },
        },
      ],
      tool_choice: 'auto',
    });
    await expectBilledExactly(key, 'gpt-4.1', 120, 4, before);
  });

  it('bills what was delivered when the upstream breaks mid-stream; the SDK raises the error event', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const before = (await balanceOf(app, key.keyId)).balance;
    const input = 'go [sim:tokens=10] [sim:fail=stream]';
    const stream = await client(key).responses.create({ model: 'gpt-5', input, stream: true });
    const deltas: string[] = [];
    const error = await (async () => {
      for await (const event of stream)
        if (event.type === 'response.output_text.delta') deltas.push(event.delta);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toMatch(/E-294/);
    expect(deltas).toHaveLength(5);
    // No usage came: the prompt and the delivered text, counted with gpt-5's tokenizer.
    const counted = await countedUsageOf(
      'gpt-5',
      { model: 'gpt-5', messages: [{ role: 'user', content: input }] },
      [deltas.join('')],
    );
    const cost = await expectedChatCost(app, 'gpt-5', counted.prompt, counted.completion);
    const [row] = await settledUsage(app, key.accountId, key.keyId);
    expect(row).toMatchObject({ status: 'failed', output_tokens: counted.completion, cost });
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: before - cost, held: 0 });
  });

  it('refuses a service tier billed above the catalog price, before any hold', async () => {
    const key = await app.newKey({ balanceRub: 10 });
    await expect(
      client(key).responses.create({ model: 'gpt-4o', input: 'hi', service_tier: 'priority' }),
    ).rejects.toMatchObject({ status: 400, code: 'unsupported_parameter', param: 'service_tier' });
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: 10_000_000, held: 0 });
  });

  it('applies the key restrictions and model checks of chat, naming input for an image to a text-only model', async () => {
    const restricted = await app.newKey({ balanceRub: 10, restrictions: { allowed_models: ['gpt-4o'] } });
    await expect(
      client(restricted).responses.create({ model: 'gpt-4o-mini', input: 'hi' }),
    ).rejects.toMatchObject({
      status: 403,
      code: 'model_not_allowed',
    });
    const key = await app.newKey({ balanceRub: 10 });
    await expect(
      client(key).responses.create({
        model: 'claude-3-5-haiku',
        input: [
          {
            role: 'user',
            content: [{ type: 'input_image', image_url: 'https://example.com/a.png', detail: 'auto' }],
          },
        ],
      }),
    ).rejects.toMatchObject({ status: 422, code: 'vision_not_supported', param: 'input' });
    await expect(client(key).responses.create({ model: 'kling-2-1', input: 'hi' })).rejects.toMatchObject({
      status: 404,
      message: expect.stringContaining('not a chat model'),
    });
    const broke = await app.newKey({ balanceRub: 0 });
    await expect(client(broke).responses.create({ model: 'gpt-4o', input: 'hi' })).rejects.toMatchObject({
      status: 402,
      code: 'insufficient_balance',
    });
    for (const k of [restricted, key, broke])
      expect(await app.ctx.storage.usage.listForAccount(k.accountId, { keyId: k.keyId })).toEqual([]);
  });

  it('treats Idempotency-Key as chat does: not read, so each request is a new, billed response', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const options = { headers: { 'Idempotency-Key': 'same-key-12345' } };
    const first = await client(key).responses.create({ model: 'gpt-4o', input: 'hi' }, options);
    const second = await client(key).responses.create({ model: 'gpt-4o', input: 'hi' }, options);
    expect(second.id).not.toBe(first.id);
    expect(await settledUsage(app, key.accountId, key.keyId)).toHaveLength(2);
  });
});
