import { describe, expect, it } from 'vitest';
import type { ChatCompletion } from '../../chat/types.js';
import { parseResponsesRequest } from './request.js';
import { completionToResponse, responseIdOf, responsesUsage } from './response.js';

const identity = { id: responseIdOf('chat_0193-abc'), createdAt: 1_700_000_000, model: 'gpt-4o' };
const echo = parseResponsesRequest({ model: 'gpt-4o', input: 'hi', instructions: 'Be brief.' }).echo;

function completion(
  message: ChatCompletion['choices'][number]['message'],
  finish: string,
  usage: ChatCompletion['usage'] = { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 },
): ChatCompletion {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'upstream-model',
    choices: [{ index: 0, message, finish_reason: finish }],
    usage,
  };
}

describe('completionToResponse', () => {
  it('presents text as one completed message item, with the request echoed and the usage renamed', () => {
    const response = completionToResponse(
      completion({ role: 'assistant', content: 'Hello there.' }, 'stop'),
      identity,
      echo,
      null,
      1_700_000_002,
    );
    expect(response).toMatchObject({
      id: 'resp_0193-abc',
      object: 'response',
      created_at: 1_700_000_000,
      completed_at: 1_700_000_002,
      status: 'completed',
      model: 'gpt-4o',
      instructions: 'Be brief.',
      store: false,
      error: null,
      incomplete_details: null,
      output: [
        {
          type: 'message',
          id: 'msg_0193-abc',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Hello there.', annotations: [] }],
        },
      ],
      usage: {
        input_tokens: 10,
        input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
        output_tokens: 4,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 14,
      },
    });
  });

  it('presents tool calls as function_call items (after any text), keeping the upstream call ids', () => {
    const response = completionToResponse(
      completion(
        {
          role: 'assistant',
          content: 'Let me check.',
          tool_calls: [
            {
              id: 'call_a',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
            },
            { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{}' } },
          ],
        },
        'tool_calls',
      ),
      identity,
      echo,
      null,
      1,
    );
    expect((response.output as { type: string }[]).map((item) => item.type)).toEqual([
      'message',
      'function_call',
      'function_call',
    ]);
    expect((response.output as unknown[])[2]).toEqual({
      type: 'function_call',
      id: 'fc_0193-abc_1',
      call_id: 'call_b',
      name: 'get_time',
      arguments: '{}',
      status: 'completed',
    });
    expect(response.status).toBe('completed');
  });

  it('reports an answer cut by the token limit as incomplete, reason max_output_tokens', () => {
    const response = completionToResponse(
      completion({ role: 'assistant', content: 'Once upon' }, 'length'),
      identity,
      echo,
      null,
      1,
    );
    expect(response).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [{ type: 'message', status: 'incomplete' }],
    });
  });

  it('reports the billed usage when the upstream sent none', () => {
    const response = completionToResponse(
      completion({ role: 'assistant', content: 'Hi' }, 'stop', null),
      identity,
      echo,
      { promptTokens: 7, completionTokens: 1 },
      1,
    );
    expect(response.usage).toMatchObject({ input_tokens: 7, output_tokens: 1, total_tokens: 8 });
  });
});

describe('responsesUsage', () => {
  it('carries cache reads, cache writes and reasoning token details over', () => {
    expect(
      responsesUsage(
        {
          prompt_tokens: 100,
          completion_tokens: 30,
          prompt_tokens_details: { cached_tokens: 64, cache_write_tokens: 20 },
          completion_tokens_details: { reasoning_tokens: 12 },
        },
        null,
      ),
    ).toEqual({
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 64, cache_write_tokens: 20 },
      output_tokens: 30,
      output_tokens_details: { reasoning_tokens: 12 },
      total_tokens: 130,
    });
    expect(responsesUsage(null, null)).toBeNull();
  });

  it('reports no cache reads or writes as 0, never leaves the fields out (ResponseUsage requires both)', () => {
    expect(responsesUsage({ prompt_tokens: 7, completion_tokens: 2 }, null)?.input_tokens_details).toEqual({
      cached_tokens: 0,
      cache_write_tokens: 0,
    });
    expect(responsesUsage(null, { promptTokens: 7, completionTokens: 2 })?.input_tokens_details).toEqual({
      cached_tokens: 0,
      cache_write_tokens: 0,
    });
  });
});
