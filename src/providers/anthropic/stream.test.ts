// The stream translation on raw SSE bytes, fed in uneven pieces the way a socket delivers them.
import { describe, expect, it } from 'vitest';
import type { ChatCompletionChunk } from '../../domain/chat/types.js';
import { AppError } from '../../domain/errors.js';
import { translateStream } from './stream.js';

const event = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const start = (usage: Record<string, number>) =>
  event('message_start', {
    message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'claude-x', usage },
  });

async function* bytes(text: string): AsyncGenerator<Uint8Array> {
  const all = new TextEncoder().encode(text);
  for (let at = 0; at < all.length; at += 7) yield all.slice(at, at + 7);
}

async function run(text: string): Promise<{ chunks: ChatCompletionChunk[]; error?: unknown }> {
  const chunks: ChatCompletionChunk[] = [];
  try {
    for await (const chunk of translateStream(bytes(text), 1_700_000_000)) chunks.push(chunk);
  } catch (error) {
    return { chunks, error };
  }
  return { chunks };
}

describe('translateStream', () => {
  it('counts tool calls by our own index, whatever Anthropic block index they have', async () => {
    const { chunks, error } = await run(
      start({ input_tokens: 10, output_tokens: 1 }) +
        event('content_block_start', {
          index: 0,
          content_block: { type: 'tool_use', id: 't1', name: 'a', input: {} },
        }) +
        event('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '' } }) +
        event('content_block_delta', {
          index: 0,
          delta: { type: 'input_json_delta', partial_json: '{"x":' },
        }) +
        event('content_block_stop', { index: 0 }) +
        event('content_block_start', { index: 1, content_block: { type: 'text', text: '' } }) +
        event('ping', {}) +
        event('content_block_delta', { index: 1, delta: { type: 'text_delta', text: 'and' } }) +
        event('content_block_start', {
          index: 2,
          content_block: { type: 'tool_use', id: 't2', name: 'b', input: {} },
        }) +
        event('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: '{}' } }) +
        event('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '1}' } }) +
        event('message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 20 } }) +
        event('message_stop', {}),
    );
    expect(error).toBeUndefined();
    expect(chunks.map((c) => c.choices[0]?.delta)).toEqual([
      { role: 'assistant', content: '' },
      { tool_calls: [{ index: 0, id: 't1', type: 'function', function: { name: 'a', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"x":' } }] },
      { content: 'and' },
      { tool_calls: [{ index: 1, id: 't2', type: 'function', function: { name: 'b', arguments: '' } }] },
      { tool_calls: [{ index: 1, function: { arguments: '{}' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '1}' } }] },
      {},
      undefined,
    ]);
    expect(chunks.at(-2)?.choices[0].finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)).toMatchObject({
      id: 'msg_1',
      model: 'claude-x',
      created: 1_700_000_000,
      choices: [],
      usage: {
        prompt_tokens: 10,
        completion_tokens: 20,
        total_tokens: 30,
        prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      },
    });
  });

  it('skips thinking and signature deltas and unknown events; message_delta usage overrides message_start', async () => {
    const { chunks } = await run(
      start({ input_tokens: 5, cache_read_input_tokens: 3, output_tokens: 1 }) +
        event('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '' } }) +
        event('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } }) +
        event('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: 'sig' } }) +
        event('some_future_event', {}) +
        event('content_block_delta', { index: 1, delta: { type: 'text_delta', text: 'ok' } }) +
        event('message_delta', {
          delta: { stop_reason: 'max_tokens' },
          usage: { input_tokens: 6, cache_creation_input_tokens: 2, output_tokens: 9 },
        }) +
        event('message_stop', {}),
    );
    expect(chunks.map((c) => c.choices[0]?.delta.content).filter(Boolean)).toEqual(['ok']);
    expect(chunks.at(-2)?.choices[0].finish_reason).toBe('length');
    expect(chunks.at(-1)?.usage).toEqual({
      prompt_tokens: 11,
      completion_tokens: 9,
      total_tokens: 20,
      prompt_tokens_details: { cached_tokens: 3, cache_write_tokens: 2 },
    });
  });

  it('on an error event, yields the usage seen so far (at least one token per output chunk), then the mapped error', async () => {
    const { chunks, error } = await run(
      start({ input_tokens: 40, output_tokens: 1 }) +
        event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'a' } }) +
        event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'b' } }) +
        event('error', { error: { type: 'overloaded_error', message: 'Overloaded' } }),
    );
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 40, completion_tokens: 2 } });
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'upstream_overloaded' });
  });

  it('bills Anthropic output count when it is higher than the chunks seen', async () => {
    const { chunks, error } = await run(
      start({ input_tokens: 40, output_tokens: 3 }) +
        event('error', { error: { type: 'api_error', message: 'x' } }),
    );
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: 40, completion_tokens: 3 });
    expect(error).toMatchObject({ code: 'upstream_overloaded' });
  });

  it('an error before message_start yields no usage; a stream cut before message_stop fails with usage so far', async () => {
    const early = await run(event('error', { error: { type: 'invalid_request_error', message: 'bad' } }));
    expect(early.chunks).toEqual([]);
    expect(early.error).toMatchObject({
      code: 'upstream_error',
      message: 'The upstream provider failed mid-stream: bad',
    });

    const cut = await run(
      start({ input_tokens: 8, output_tokens: 1 }) +
        event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'partial' } }),
    );
    expect(cut.chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: 8, completion_tokens: 1 });
    expect(cut.error).toMatchObject({
      code: 'upstream_error',
      message: 'The upstream provider ended the stream before it was complete',
    });
  });

  it('sends no usage chunk when Anthropic (or a proxy) reported none, so the gateway estimates instead of billing zero', async () => {
    const { chunks } = await run(
      event('message_start', {
        message: { id: 'msg_2', type: 'message', role: 'assistant', content: [], model: 'm' },
      }) +
        event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'x' } }) +
        event('message_delta', { delta: { stop_reason: 'end_turn' } }) +
        event('message_stop', {}),
    );
    expect(chunks.some((c) => c.usage)).toBe(false);
    expect(chunks.at(-1)?.choices[0].finish_reason).toBe('stop');
  });

  it('maps refusal to content_filter and end_turn to stop', async () => {
    for (const [reason, finish] of [
      ['refusal', 'content_filter'],
      ['end_turn', 'stop'],
      ['stop_sequence', 'stop'],
      ['pause_turn', 'stop'],
    ]) {
      const { chunks } = await run(
        start({ input_tokens: 1, output_tokens: 1 }) +
          event('message_delta', { delta: { stop_reason: reason }, usage: { output_tokens: 1 } }) +
          event('message_stop', {}),
      );
      expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe(finish);
    }
  });
});
