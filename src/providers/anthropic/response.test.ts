// A Messages API answer → chat.completion.
import { describe, expect, it } from 'vitest';
import { toChatCompletion } from './response.js';

describe('toChatCompletion', () => {
  it('joins text, turns tool_use into tool_calls, leaves thinking out and maps usage with cached tokens', () => {
    const completion = toChatCompletion(
      {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-x',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 's' },
          { type: 'text', text: 'Let me ' },
          { type: 'text', text: 'look.' },
          { type: 'tool_use', id: 'toolu_1', name: 'find', input: { q: 'x' } },
        ],
        stop_reason: 'tool_use',
        usage: {
          input_tokens: 3,
          output_tokens: 4,
          cache_read_input_tokens: 5,
          cache_creation_input_tokens: null,
        },
      },
      1_700_000_000,
    );
    expect(completion).toEqual({
      id: 'msg_1',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'claude-x',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Let me look.',
            refusal: null,
            tool_calls: [
              { id: 'toolu_1', type: 'function', function: { name: 'find', arguments: '{"q":"x"}' } },
            ],
          },
          finish_reason: 'tool_calls',
          logprobs: null,
        },
      ],
      usage: {
        prompt_tokens: 8,
        completion_tokens: 4,
        total_tokens: 12,
        prompt_tokens_details: { cached_tokens: 5, cache_write_tokens: 0 },
      },
    });
  });

  it('has content null without text, and no usage when the answer carried none', () => {
    const completion = toChatCompletion(
      {
        id: 'm',
        type: 'message',
        role: 'assistant',
        model: 'x',
        content: [],
        stop_reason: 'max_tokens',
      } as never,
      0,
    );
    expect(completion.choices[0].message.content).toBeNull();
    expect(completion.choices[0].finish_reason).toBe('length');
    expect(completion).not.toHaveProperty('usage');
  });
});
