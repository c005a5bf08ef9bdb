// OpenAI chat body → Anthropic Messages request: the mapping table and the 422 refusals.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../domain/errors.js';
import { toMessagesRequest } from './request.js';

const defaults = { maxTokens: 1000 };
const user = { role: 'user', content: 'hi' };
const tool = (name: string) => ({ type: 'function', function: { name, parameters: { type: 'object' } } });
const map = (body: Record<string, unknown>) =>
  toMessagesRequest({ model: 'claude-x', messages: [user], ...body }, defaults);

function refusal(body: Record<string, unknown>): AppError {
  try {
    map(body);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('toMessagesRequest', () => {
  it('takes max_completion_tokens, else max_tokens, else the default', () => {
    expect(map({ max_completion_tokens: 10, max_tokens: 20 }).max_tokens).toBe(10);
    expect(map({ max_tokens: 20 }).max_tokens).toBe(20);
    expect(map({}).max_tokens).toBe(1000);
  });

  it('drops OpenAI fields Claude has no equivalent for, and maps stop, sampling and user', () => {
    expect(
      map({
        stop: 'END',
        top_p: 0.9,
        temperature: 1,
        frequency_penalty: 0.5,
        presence_penalty: 0.1,
        seed: 7,
        stream: true,
        stream_options: { include_usage: true },
        user: 'u1',
        response_format: { type: 'text' },
      }),
    ).toEqual({
      model: 'claude-x',
      max_tokens: 1000,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      stop_sequences: ['END'],
      top_p: 0.9,
      temperature: 1,
      stream: true,
      metadata: { user_id: 'u1' },
    });
  });

  it('maps tool_choice auto, required, none and a named function; parallel_tool_calls false disables parallel use', () => {
    const tools = [tool('a'), tool('b')];
    expect(map({ tools, tool_choice: 'auto' }).tool_choice).toEqual({ type: 'auto' });
    expect(map({ tools, tool_choice: 'required' }).tool_choice).toEqual({ type: 'any' });
    expect(map({ tools, tool_choice: 'none' }).tool_choice).toEqual({ type: 'none' });
    expect(map({ tools, tool_choice: { type: 'function', function: { name: 'b' } } }).tool_choice).toEqual({
      type: 'tool',
      name: 'b',
    });
    expect(map({ tools, parallel_tool_calls: false }).tool_choice).toEqual({
      type: 'auto',
      disable_parallel_tool_use: true,
    });
    expect(map({ tools, tool_choice: 'required', parallel_tool_calls: false }).tool_choice).toEqual({
      type: 'any',
      disable_parallel_tool_use: true,
    });
    expect(map({ tools }).tool_choice).toBeUndefined();
    // Anthropic refuses tool_choice without tools.
    expect(map({ tool_choice: 'auto', parallel_tool_calls: false })).not.toHaveProperty('tool_choice');
    expect(map({ tools: [tool('a')] }).tools).toEqual([{ name: 'a', input_schema: { type: 'object' } }]);
  });

  it('joins every system and developer message, wherever it stands, into system', () => {
    const request = toMessagesRequest(
      {
        model: 'm',
        messages: [
          {
            role: 'system',
            content: [
              { type: 'text', text: 'A' },
              { type: 'text', text: 'B' },
            ],
          },
          user,
          { role: 'developer', content: 'C' },
          { role: 'user', content: 'again' },
        ],
      },
      defaults,
    );
    expect(request.system).toBe('A\nB\n\nC');
    expect(request.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'text', text: 'again' },
        ],
      },
    ]);
  });

  it('maps assistant turns (text, refusal, tool calls) and folds tool results and a following user turn together', () => {
    const request = toMessagesRequest(
      {
        model: 'm',
        messages: [
          user,
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 't1', type: 'function', function: { name: 'a', arguments: ' ' } }],
          },
          { role: 'tool', tool_call_id: 't1', content: 'done' },
          {
            role: 'user',
            content: [
              { type: 'text', text: '' },
              { type: 'text', text: 'and now?' },
            ],
          },
          { role: 'assistant', content: [{ type: 'refusal', refusal: 'No.' }] },
        ],
      },
      defaults,
    );
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'a', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: 'done' },
          { type: 'text', text: 'and now?' },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'No.' }] },
    ]);
  });

  it('passes a PDF file part as a document block', () => {
    const request = map({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } },
          ],
        },
      ],
    });
    expect(request.messages[0].content).toEqual([
      {
        type: 'document',
        source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' },
        title: 'a.pdf',
      },
    ]);
  });

  it('refuses with 422 what Claude cannot express', () => {
    expect(refusal({ n: 3 })).toMatchObject({ code: 'invalid_parameter', param: 'n', status: 422 });
    expect(refusal({ response_format: { type: 'json_object' } })).toMatchObject({ param: 'response_format' });
    expect(refusal({ logprobs: true })).toMatchObject({ param: 'logprobs' });
    expect(refusal({ modalities: ['text', 'audio'] })).toMatchObject({ param: 'modalities' });
    expect(
      refusal({
        messages: [
          { role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'x', format: 'wav' } }] },
        ],
      }),
    ).toMatchObject({ param: 'messages[0].content[0].type' });
    expect(
      refusal({ messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-1' } }] }] }),
    ).toMatchObject({ param: 'messages[0].content[0].file' });
    expect(refusal({ messages: [{ role: 'function', name: 'f', content: 'x' }] })).toMatchObject({
      param: 'messages[0].role',
    });
    expect(
      refusal({
        messages: [
          user,
          {
            role: 'assistant',
            tool_calls: [{ id: 't', type: 'function', function: { name: 'a', arguments: '[1]' } }],
          },
        ],
      }),
    ).toMatchObject({ param: 'messages[1].tool_calls[0].function.arguments' });
    expect(refusal({ tools: [{ type: 'web_search' }] })).toMatchObject({ param: 'tools[0].type' });
  });
});
