import { describe, expect, it } from 'vitest';
import type { ChatChunkDelta, ChatCompletionChunk, ChatUsage } from '../../chat/types.js';
import { parseResponsesRequest } from './request.js';
import { ResponsesStreamTranslator } from './stream.js';

const identity = { id: 'resp_1', createdAt: 1_700_000_000, model: 'gpt-4o' };
const echo = parseResponsesRequest({ model: 'gpt-4o', input: 'hi' }).echo;

function chunk(delta: ChatChunkDelta, finish: string | null = null, usage?: ChatUsage): ChatCompletionChunk {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-4o',
    choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }],
    ...(usage ? { usage } : {}),
  };
}

const usage = { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 };

function run(chunks: ChatCompletionChunk[]) {
  const translator = new ResponsesStreamTranslator(identity, echo);
  const events = [...translator.start()];
  for (const c of chunks) events.push(...translator.chunk(c));
  events.push(...translator.complete(1_700_000_005));
  return events;
}

describe('ResponsesStreamTranslator', () => {
  it('streams text as one message item and ends with response.completed carrying the usage', () => {
    const events = run([
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Hello' }),
      chunk({ content: ' world' }),
      chunk({}, 'stop'),
      chunk({}, null, usage),
    ]);
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events[0].response).toMatchObject({
      id: 'resp_1',
      status: 'in_progress',
      output: [],
      usage: null,
    });
    expect(events[2]).toMatchObject({
      output_index: 0,
      item: { type: 'message', id: 'msg_1', status: 'in_progress', role: 'assistant', content: [] },
    });
    expect(events[4]).toMatchObject({ item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hello' });
    expect(events[6]).toMatchObject({ text: 'Hello world' });
    expect(events[8]).toMatchObject({
      item: { status: 'completed', content: [{ type: 'output_text', text: 'Hello world' }] },
    });
    expect(events[9].response).toMatchObject({
      status: 'completed',
      completed_at: 1_700_000_005,
      output: [{ type: 'message', content: [{ text: 'Hello world' }] }],
      usage: { input_tokens: 9, output_tokens: 3, total_tokens: 12 },
    });
  });

  it('streams parallel tool calls as function_call items with argument deltas, closed in output order', () => {
    const events = run([
      chunk({
        role: 'assistant',
        tool_calls: [
          { index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      chunk({
        tool_calls: [
          { index: 1, id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{}' } },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(events.slice(2).map((e) => [e.type, e.output_index])).toEqual([
      ['response.output_item.added', 0],
      ['response.function_call_arguments.delta', 0],
      ['response.output_item.added', 1],
      ['response.function_call_arguments.delta', 1],
      ['response.function_call_arguments.delta', 0],
      ['response.function_call_arguments.done', 0],
      ['response.output_item.done', 0],
      ['response.function_call_arguments.done', 1],
      ['response.output_item.done', 1],
      ['response.completed', undefined],
    ]);
    expect(events[2].item).toEqual({
      type: 'function_call',
      id: 'fc_1_0',
      call_id: 'call_a',
      name: 'get_weather',
      arguments: '',
      status: 'in_progress',
    });
    expect(events[7]).toMatchObject({ item_id: 'fc_1_0', name: 'get_weather', arguments: '{"city":"Oslo"}' });
    expect(events[8].item).toMatchObject({
      call_id: 'call_a',
      arguments: '{"city":"Oslo"}',
      status: 'completed',
    });
    expect(events.at(-1)).toMatchObject({
      response: { output: [{ call_id: 'call_a' }, { call_id: 'call_b' }] },
    });
  });

  it('ends a reply cut by the token limit with response.incomplete', () => {
    const events = run([chunk({ content: 'Once' }), chunk({}, 'length')]);
    expect(events.at(-1)).toMatchObject({
      type: 'response.incomplete',
      response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
    });
    expect(events.at(-2)).toMatchObject({
      type: 'response.output_item.done',
      item: { status: 'incomplete' },
    });
  });

  it('streams a refusal as its own content part', () => {
    const events = run([chunk({ refusal: 'I cannot' }), chunk({}, 'stop')]);
    expect(events.map((e) => e.type)).toContain('response.refusal.delta');
    expect(events.find((e) => e.type === 'response.refusal.done')).toMatchObject({ refusal: 'I cannot' });
  });

  it('turns an upstream failure into an error event (flat and nested, gengate code) and response.failed (OpenAI enum code)', () => {
    const translator = new ResponsesStreamTranslator(identity, echo);
    translator.start();
    translator.chunk(chunk({ content: 'Half' }));
    const events = translator.fail({
      message: 'boom',
      type: 'api_error',
      code: 'upstream_error',
      param: null,
    });
    expect(events).toMatchObject([
      {
        type: 'error',
        code: 'upstream_error',
        message: 'boom',
        error: { type: 'api_error', code: 'upstream_error', message: 'boom', param: null },
      },
      {
        type: 'response.failed',
        response: {
          status: 'failed',
          error: { code: 'server_error', message: 'boom' },
          output: [{ type: 'message' }],
        },
      },
    ]);
  });

  it.each([
    [{ code: 'upstream_error', type: 'api_error' }, 'server_error'],
    [{ code: 'upstream_overloaded', type: 'service_unavailable' }, 'server_error'],
    [{ code: 'upstream_timeout', type: 'api_error' }, 'server_error'],
    [{ code: 'rate_limited', type: 'rate_limit_error' }, 'rate_limit_exceeded'],
    [{ code: 'upstream_rejected_request', type: 'invalid_request_error' }, 'invalid_prompt'],
    [{ code: 'content_policy_violation', type: 'invalid_request_error' }, 'invalid_prompt'],
    [{}, 'server_error'],
  ])('response.failed reads %o as %s', (failure, expected) => {
    const translator = new ResponsesStreamTranslator(identity, echo);
    translator.start();
    const [error, failed] = translator.fail({ message: 'boom', ...failure });
    expect(error.code).toBe((failure as { code?: string }).code ?? 'upstream_error');
    expect(failed.response).toMatchObject({ error: { code: expected, message: 'boom' } });
  });
});
