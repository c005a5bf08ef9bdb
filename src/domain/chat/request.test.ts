import { describe, expect, it } from 'vitest';
import type { AppError } from '../errors.js';
import { parseChatRequest, readChatModel } from './request.js';

function failure(body: Record<string, unknown>): AppError {
  try {
    parseChatRequest(body);
  } catch (error) {
    return error as AppError;
  }
  throw new Error('expected a validation error');
}

const user = (content: unknown) => ({ role: 'user', content });

describe('chat request validation', () => {
  it('accepts a minimal request and reads stream, usage and max tokens', () => {
    const request = parseChatRequest({
      model: 'gpt-4o',
      messages: [user('hi')],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 50,
    });
    expect(request).toMatchObject({
      model: 'gpt-4o',
      stream: true,
      includeUsage: true,
      maxTokens: 50,
      imageParts: 0,
      tools: [],
      choices: 1,
      predictionBytes: 0,
    });
  });

  it('refuses a field it does not know (422 unknown_field), as OpenAI does, instead of passing it on unpriced', () => {
    for (const field of ['some_future_field', 'thinking', 'reasoning', '__proto__', 'constructor']) {
      const body = JSON.parse(
        `{"model":"gpt-4o","messages":[{"role":"user","content":"x"}],"${field}":{"x":1}}`,
      );
      expect(failure(body)).toMatchObject({ status: 422, code: 'unknown_field', param: field });
    }
  });

  it('reads n (1-128) for the hold, and the bytes of a prediction', () => {
    const base = { model: 'gpt-4o', messages: [user('x')] };
    expect(parseChatRequest({ ...base, n: 16 }).choices).toBe(16);
    expect(parseChatRequest({ ...base, n: null }).choices).toBe(1);
    for (const n of [0, 129, 2.5, '2'])
      expect(failure({ ...base, n })).toMatchObject({ status: 422, code: 'invalid_parameter', param: 'n' });
    expect(
      parseChatRequest({ ...base, prediction: { type: 'content', content: 'abcé' } }).predictionBytes,
    ).toBe(Buffer.byteLength('"abcé"'));
    expect(failure({ ...base, prediction: 'x' })).toMatchObject({ status: 422, param: 'prediction' });
  });

  it('refuses with 400 the fields the upstream bills beyond the token prices', () => {
    const base = { model: 'gpt-4o', messages: [user('x')] };
    const refused: [Record<string, unknown>, string][] = [
      [{ best_of: 3 }, 'best_of'],
      [{ web_search_options: {} }, 'web_search_options'],
      [{ audio: { voice: 'alloy', format: 'wav' } }, 'audio'],
      [{ modalities: ['text', 'audio'] }, 'modalities'],
      [{ service_tier: 'priority' }, 'service_tier'],
      [{ service_tier: 'scale' }, 'service_tier'],
      [
        {
          messages: [user([{ type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } }])],
        },
        'messages[0].content[0]',
      ],
    ];
    for (const [fields, param] of refused)
      expect(failure({ ...base, ...fields })).toMatchObject({
        status: 400,
        code: 'unsupported_parameter',
        param,
      });
    // The harmless values of the same fields pass.
    for (const fields of [
      { best_of: 1 },
      { modalities: ['text'] },
      { service_tier: 'flex' },
      { service_tier: 'auto' },
      { audio: null },
    ])
      expect(() => parseChatRequest({ ...base, ...fields })).not.toThrow();
  });

  it('prefers max_completion_tokens over max_tokens', () => {
    expect(
      parseChatRequest({ model: 'm', messages: [user('x')], max_tokens: 10, max_completion_tokens: 20 })
        .maxTokens,
    ).toBe(20);
  });

  it('counts image parts of user messages', () => {
    const request = parseChatRequest({
      model: 'gpt-4o',
      messages: [
        user([
          { type: 'text', text: 'what is this' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        ]),
      ],
    });
    expect(request.imageParts).toBe(2);
  });

  it('answers 422 for a missing model and 400 for missing messages, role, content or tool_call_id', () => {
    expect(() => readChatModel({ messages: [] })).toThrow(
      expect.objectContaining({ status: 422, code: 'model_name_required', param: 'model' }),
    );
    expect(failure({ model: 'm' })).toMatchObject({
      status: 400,
      code: 'missing_parameter',
      param: 'messages',
    });
    expect(failure({ model: 'm', messages: [{ content: 'x' }] })).toMatchObject({
      status: 400,
      param: 'messages[0].role',
    });
    expect(failure({ model: 'm', messages: [{ role: 'user' }] })).toMatchObject({
      status: 400,
      param: 'messages[0].content',
    });
    expect(failure({ model: 'm', messages: [user('x'), { role: 'tool', content: 'r' }] })).toMatchObject({
      status: 400,
      param: 'messages[1].tool_call_id',
    });
  });

  it('answers 422 for wrong types and out-of-range values', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ model: 7, messages: [user('x')] }, 'model'],
      [{ model: 'm', messages: [] }, 'messages'],
      [{ model: 'm', messages: 'hi' }, 'messages'],
      [{ model: 'm', messages: [{ role: 'robot', content: 'x' }] }, 'messages[0].role'],
      [{ model: 'm', messages: [user(42)] }, 'messages[0].content'],
      [{ model: 'm', messages: [user([{ type: 'text' }])] }, 'messages[0].content[0].text'],
      [
        {
          model: 'm',
          messages: [user([{ type: 'image_url', image_url: { url: 'http://plain.example/a.png' } }])],
        },
        'messages[0].content[0].image_url.url',
      ],
      [
        {
          model: 'm',
          messages: [
            { role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://x/a.png' } }] },
          ],
        },
        'messages[0].content[0]',
      ],
      [{ model: 'm', messages: [user('x')], max_tokens: 0 }, 'max_tokens'],
      [{ model: 'm', messages: [user('x')], max_completion_tokens: 1.5 }, 'max_completion_tokens'],
      [{ model: 'm', messages: [user('x')], stream: 'yes' }, 'stream'],
      [
        { model: 'm', messages: [user('x')], stream_options: { include_usage: 1 } },
        'stream_options.include_usage',
      ],
      [{ model: 'm', messages: [user('x')], temperature: 3 }, 'temperature'],
      [{ model: 'm', messages: [user('x')], top_p: -0.1 }, 'top_p'],
      [{ model: 'm', messages: [user('x')], stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop'],
      [{ model: 'm', messages: [user('x')], response_format: 'json' }, 'response_format'],
      [{ model: 'm', messages: [user('x')], user: 5 }, 'user'],
      [
        { model: 'm', messages: [user('x')], tools: [{ type: 'function', function: { name: 'bad name!' } }] },
        'tools[0].function.name',
      ],
      [{ model: 'm', messages: [user('x')], tool_choice: 'sometimes' }, 'tool_choice'],
    ];
    for (const [body, param] of cases) {
      expect(failure(body), JSON.stringify(body)).toMatchObject({
        status: 422,
        code: 'invalid_parameter',
        param,
      });
    }
  });

  it('lets an assistant turn carry tool calls without content', () => {
    const request = parseChatRequest({
      model: 'm',
      messages: [
        user('call it'),
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'result' },
      ],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      tool_choice: { type: 'function', function: { name: 'f' } },
    });
    expect(request.tools.map((t) => t.function.name)).toEqual(['f']);
  });
});
