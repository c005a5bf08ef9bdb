import { describe, expect, it } from 'vitest';
import type { ChatCompletionChunk } from '../chat/types.js';
import { completionToMessage, MessagesStreamTranslator, messageIdOf } from './from-chat.js';
import { messagesToChatBody } from './to-chat.js';

const chunk = (
  delta: Record<string, unknown>,
  finish: string | null = null,
  usage?: unknown,
): ChatCompletionChunk =>
  ({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'gpt-4o',
    choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }],
    ...(usage ? { usage } : {}),
  }) as ChatCompletionChunk;

describe('Messages → chat completions', () => {
  it('translates system blocks, images, tool results, tool uses, thinking, tool_choice and the rest', () => {
    const chat = messagesToChatBody(
      {
        model: 'gpt-4o',
        max_tokens: 32_000,
        stream: true,
        system: [
          { type: 'text', text: 'One.' },
          { type: 'text', text: 'Two.', cache_control: { type: 'ephemeral' } },
        ],
        temperature: 0.2,
        top_p: 0.9,
        top_k: 5,
        stop_sequences: ['END'],
        metadata: { user_id: 'u1' },
        thinking: { type: 'enabled', budget_tokens: 100 },
        tools: [{ name: 'f', description: 'd', input_schema: { type: 'object' } }],
        tool_choice: { type: 'tool', name: 'f', disable_parallel_tool_use: true },
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
              { type: 'text', text: 'Look' },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'hmm', signature: 's' },
              { type: 'text', text: 'Calling.' },
              { type: 'tool_use', id: 't1', name: 'f', input: { a: 1 } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'done' }] },
              { type: 'tool_result', tool_use_id: 't2', content: 'bad', is_error: true },
              { type: 'text', text: 'Go on' },
            ],
          },
        ],
      },
      16_384,
    );
    expect(chat).toEqual({
      model: 'gpt-4o',
      max_completion_tokens: 16_384,
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.2,
      top_p: 0.9,
      stop: ['END'],
      tools: [
        { type: 'function', function: { name: 'f', description: 'd', parameters: { type: 'object' } } },
      ],
      tool_choice: { type: 'function', function: { name: 'f' } },
      parallel_tool_calls: false,
      messages: [
        { role: 'system', content: 'One.\nTwo.' },
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
            { type: 'text', text: 'Look' },
          ],
        },
        {
          role: 'assistant',
          content: 'Calling.',
          tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
        },
        { role: 'tool', tool_call_id: 't1', content: [{ type: 'text', text: 'done' }] },
        { role: 'tool', tool_call_id: 't2', content: 'Error: bad' },
        { role: 'user', content: 'Go on' },
      ],
    });
  });

  it('refuses what a chat upstream cannot take', () => {
    const base = { model: 'gpt-4o', max_tokens: 5 };
    expect(() =>
      messagesToChatBody(
        { ...base, messages: [{ role: 'user', content: [{ type: 'document', source: {} }] }] },
        100,
      ),
    ).toThrow(/document blocks are only supported on Claude models routed to Anthropic/);
    expect(() =>
      messagesToChatBody(
        {
          ...base,
          messages: [{ role: 'user', content: 'x' }],
          tools: [{ type: 'web_search_20250305', name: 'web_search' }],
        },
        100,
      ),
    ).toThrow(/web_search_20250305/);
  });
});

describe('chat completions → Messages', () => {
  it('a completion becomes a Message with tool_use blocks and Anthropic stop reasons', () => {
    const message = completionToMessage(
      {
        id: 'x',
        object: 'chat.completion',
        created: 1,
        model: 'up',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: 'Sure.',
              tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"q":2}' } }],
            },
            finish_reason: 'tool_calls',
          },
        ],
      },
      { id: messageIdOf('chat_0192'), model: 'gpt-4o' },
      { promptTokens: 10, completionTokens: 4 },
    );
    expect(message).toEqual({
      id: 'msg_0192',
      type: 'message',
      role: 'assistant',
      model: 'gpt-4o',
      content: [
        { type: 'text', text: 'Sure.' },
        { type: 'tool_use', id: 'c1', name: 'f', input: { q: 2 } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: {
        input_tokens: 10,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 4,
      },
    });
  });

  it('chunks become the events of a Messages stream, blocks opened and closed in order', () => {
    const t = new MessagesStreamTranslator({ id: 'msg_1', model: 'gpt-4o' });
    const events = [
      ...t.chunk(chunk({ role: 'assistant', content: '' })),
      ...t.chunk(chunk({ content: 'Hi ' })),
      ...t.chunk(chunk({ content: 'there' })),
      ...t.chunk(chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{"x"' } }] })),
      ...t.chunk(chunk({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] })),
      ...t.chunk(chunk({ tool_calls: [{ index: 1, id: 'b', function: { name: 'g', arguments: '{}' } }] })),
      ...t.chunk(chunk({}, 'length')),
      ...t.chunk(chunk({}, null, { prompt_tokens: 7, completion_tokens: 9 })),
      ...t.complete(),
    ];
    expect(
      events.map((e) =>
        e.type === 'content_block_delta'
          ? `${e.index}:${(e.delta as { type: string }).type}`
          : `${e.type}${'index' in e ? `:${e.index}` : ''}`,
      ),
    ).toEqual([
      'message_start',
      'content_block_start:0',
      '0:text_delta',
      '0:text_delta',
      'content_block_stop:0',
      'content_block_start:1',
      '1:input_json_delta',
      '1:input_json_delta',
      'content_block_stop:1',
      'content_block_start:2',
      '2:input_json_delta',
      'content_block_stop:2',
      'message_delta',
      'message_stop',
    ]);
    expect(events.at(-2)).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'max_tokens', stop_sequence: null },
      usage: { input_tokens: 7, output_tokens: 9 },
    });
    expect(events[5]).toEqual({
      type: 'content_block_start',
      index: 1,
      content_block: { type: 'tool_use', id: 'a', name: 'f', input: {} },
    });
    expect(
      new MessagesStreamTranslator({ id: 'm', model: 'x' }).fail({
        type: 'overloaded_error',
        message: 'busy',
      }),
    ).toEqual([
      expect.objectContaining({ type: 'message_start' }),
      { type: 'error', error: { type: 'overloaded_error', message: 'busy' } },
    ]);
  });
});
