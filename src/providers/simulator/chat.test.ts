import { describe, expect, it } from 'vitest';
import type { ChatCompletionChunk } from '../../domain/chat/types.js';
import { outputTokensInChunk } from '../../domain/chat/usage.js';
import { AppError } from '../../domain/errors.js';
import { Cancellation } from '../cancellation.js';
import { SimulatorChatProvider } from './chat.js';
import { parseDirectives } from './chat-script.js';

const sim = new SimulatorChatProvider({ timeoutMs: 200 });
const live = () => new Cancellation();
const ask = (content: string, extra: Record<string, unknown> = {}) => ({
  model: 'gpt-4o',
  messages: [{ role: 'user', content }],
  ...extra,
});
const WEATHER_TOOL = {
  type: 'function',
  function: {
    name: 'get_weather',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
      required: ['city', 'days'],
    },
  },
};

async function collect(body: Record<string, unknown>, cancellation = live()): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of await sim.stream({ body, cancellation })) chunks.push(chunk);
  return chunks;
}

describe('simulator chat', () => {
  it('answers deterministically from the last user message', async () => {
    const a = await sim.complete({ body: ask('tell me about otters'), cancellation: live() });
    const b = await sim.complete({ body: ask('tell me about otters'), cancellation: live() });
    expect(a.choices[0].message.content).toBe('Simulated reply from gpt-4o: you said tell me about otters');
    expect(b.choices[0].message.content).toBe(a.choices[0].message.content);
    expect(a.id).not.toBe(b.id);
    expect(a.usage?.completion_tokens).toBe(10);
    expect(a.usage?.total_tokens).toBe(a.usage!.prompt_tokens + 10);
    expect(a.choices[0].finish_reason).toBe('stop');
  });

  it('[sim:tokens=N] replies with exactly N completion tokens, and max_tokens cuts it with finish_reason length', async () => {
    const exact = await sim.complete({ body: ask('hi [sim:tokens=37]'), cancellation: live() });
    expect(exact.usage?.completion_tokens).toBe(37);
    expect(exact.choices[0].message.content!.split(' ')).toHaveLength(37);
    const cut = await sim.complete({
      body: ask('hi [sim:tokens=37]', { max_tokens: 5 }),
      cancellation: live(),
    });
    expect(cut.usage?.completion_tokens).toBe(5);
    expect(cut.choices[0].finish_reason).toBe('length');
  });

  it('reads several directives from one block, as the media simulator does', () => {
    expect(parseDirectives('hi [sim:tokens=50, pace=10;delay=5] and [sim:tool=Lookup_2]')).toEqual({
      delayMs: 5,
      paceMs: 10,
      fail: null,
      tokens: 50,
      tool: 'Lookup_2',
    });
    expect(parseDirectives('[sim:tokens=abc,fail=params]')).toMatchObject({ tokens: null, fail: 'params' });
  });

  it('streams one token per chunk, then the finish chunk, then usage only when asked', async () => {
    const body = ask('stream please [sim:tokens=12]', { stream: true });
    const plain = await collect(body);
    expect(plain[0].choices[0].delta).toMatchObject({ role: 'assistant', content: '' });
    expect(plain.reduce((sum, chunk) => sum + outputTokensInChunk(chunk), 0)).toBe(12);
    expect(plain.at(-1)?.choices[0].finish_reason).toBe('stop');
    expect(plain.some((chunk) => 'usage' in chunk)).toBe(false);

    const withUsage = await collect({ ...body, stream_options: { include_usage: true } });
    const last = withUsage.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ completion_tokens: 12 });
    const text = withUsage.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    const whole = await sim.complete({ body: ask('stream please [sim:tokens=12]'), cancellation: live() });
    expect(text).toBe(whole.choices[0].message.content);
    expect(last.usage?.prompt_tokens).toBe(whole.usage?.prompt_tokens);
  });

  it('calls a tool when the prompt asks for one, with arguments that fit its schema', async () => {
    const body = ask('please use get_weather for Paris', { tools: [WEATHER_TOOL] });
    const answer = await sim.complete({ body, cancellation: live() });
    const call = answer.choices[0].message.tool_calls![0];
    expect(answer.choices[0].finish_reason).toBe('tool_calls');
    expect(answer.choices[0].message.content).toBeNull();
    expect(call).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
    expect(call.id).toMatch(/^call_/);
    expect(JSON.parse(call.function.arguments)).toEqual({
      city: 'please use get_weather for Paris',
      days: 1,
    });

    const chunks = await collect({ ...body, stream: true, stream_options: { include_usage: true } });
    const first = chunks[0].choices[0].delta.tool_calls![0];
    expect(first).toMatchObject({
      index: 0,
      id: call.id,
      type: 'function',
      function: { name: 'get_weather', arguments: '' },
    });
    const args = chunks
      .flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? [])
      .map((delta) => delta.function?.arguments ?? '')
      .join('');
    expect(args).toBe(call.function.arguments);
    expect(chunks.find((chunk) => chunk.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe(
      'tool_calls',
    );
    const streamed = chunks.reduce((sum, chunk) => sum + outputTokensInChunk(chunk), 0);
    expect(streamed).toBe(answer.usage?.completion_tokens);
    expect(chunks.at(-1)?.usage?.completion_tokens).toBe(streamed);
  });

  it('does not call a tool unprompted, nor when tool_choice is none; [sim:tool] and tool_choice force one', async () => {
    const tools = [WEATHER_TOOL, { type: 'function', function: { name: 'lookup' } }];
    expect(
      (await sim.complete({ body: ask('hello there', { tools }), cancellation: live() })).choices[0].message
        .tool_calls,
    ).toBeUndefined();
    expect(
      (
        await sim.complete({
          body: ask('use get_weather', { tools, tool_choice: 'none' }),
          cancellation: live(),
        })
      ).choices[0].message.tool_calls,
    ).toBeUndefined();
    const forced = await sim.complete({ body: ask('x [sim:tool=lookup]', { tools }), cancellation: live() });
    expect(forced.choices[0].message.tool_calls![0].function.name).toBe('lookup');
    const chosen = await sim.complete({
      body: ask('x', { tools, tool_choice: { type: 'function', function: { name: 'lookup' } } }),
      cancellation: live(),
    });
    expect(chosen.choices[0].message.tool_calls![0].function.name).toBe('lookup');
  });

  it('answers a tool result with a message that mentions it', async () => {
    const answer = await sim.complete({
      body: {
        model: 'gpt-4o',
        tools: [WEATHER_TOOL],
        messages: [
          { role: 'user', content: 'use get_weather' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'sunny, 21 C' },
        ],
      },
      cancellation: live(),
    });
    expect(answer.choices[0].message.content).toBe('The tool get_weather returned: sunny, 21 C');
    expect(answer.choices[0].finish_reason).toBe('stop');
  });

  it('fails as scripted, before any output', async () => {
    const expectations: [string, string, number, RegExp][] = [
      ['reject', 'upstream_error', 502, /restricted content/],
      ['billing', 'upstream_error', 502, /billing error/],
      ['overload', 'upstream_error', 502, /E-294/],
      ['params', 'upstream_rejected_request', 400, /validation/],
      ['timeout', 'upstream_timeout', 504, /Timeout while waiting/],
    ];
    for (const [fail, code, status, message] of expectations) {
      const error = await sim
        .complete({ body: ask(`x [sim:fail=${fail}]`), cancellation: live() })
        .catch((e: unknown) => e);
      expect(error, fail).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code, status });
      expect((error as AppError).message).toMatch(message);
    }
  });

  it('[sim:fail=stream] breaks a stream after half of its tokens', async () => {
    const seen: ChatCompletionChunk[] = [];
    const error = await (async () => {
      for await (const chunk of await sim.stream({
        body: ask('x [sim:tokens=10] [sim:fail=stream]', { stream: true }),
        cancellation: live(),
      }))
        seen.push(chunk);
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'upstream_error' });
    expect(seen.reduce((sum, chunk) => sum + outputTokensInChunk(chunk), 0)).toBe(5);
  });

  it('stops streaming when it is cancelled', async () => {
    const cancellation = new Cancellation();
    const seen: ChatCompletionChunk[] = [];
    const error = await (async () => {
      for await (const chunk of await sim.stream({
        body: ask('x [sim:tokens=1000]', { stream: true }),
        cancellation,
      })) {
        seen.push(chunk);
        if (seen.length === 4) cancellation.cancel();
      }
    })().catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
    expect(seen).toHaveLength(4);
  });

  it('waits [sim:delay=MS] before answering', async () => {
    const started = Date.now();
    await sim.complete({ body: ask('x [sim:delay=60]'), cancellation: live() });
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
  });
});
