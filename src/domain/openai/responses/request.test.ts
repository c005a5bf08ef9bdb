import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors.js';
import { parseResponsesRequest } from './request.js';

const parse = (body: Record<string, unknown>) => parseResponsesRequest({ model: 'gpt-4o', ...body });

function refusal(body: Record<string, unknown>): AppError {
  try {
    parse(body);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

describe('parseResponsesRequest: the chat body a Responses request becomes', () => {
  it('turns a string input into one user message, after the instructions as a system message', () => {
    const { chatBody, stream, echo } = parse({ input: 'hello', instructions: 'Be brief.' });
    expect(chatBody).toEqual({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hello' },
      ],
    });
    expect(stream).toBe(false);
    expect(echo).toMatchObject({ instructions: 'Be brief.', tool_choice: 'auto', tools: [], metadata: {} });
  });

  it('maps the sampling, length and streaming fields, asking upstream for usage when streaming', () => {
    const { chatBody, stream } = parse({
      input: 'hi',
      max_output_tokens: 64,
      temperature: 0.2,
      top_p: 0.9,
      parallel_tool_calls: false,
      stream: true,
      store: true,
      user: 'u-1',
      include: ['message.output_text.logprobs'],
      metadata: { run: '7' },
    });
    expect(stream).toBe(true);
    expect(chatBody).toMatchObject({
      max_completion_tokens: 64,
      temperature: 0.2,
      top_p: 0.9,
      parallel_tool_calls: false,
      stream: true,
      stream_options: { include_usage: true },
      user: 'u-1',
    });
    // store, include and metadata are gengate's business only: never sent upstream.
    expect(chatBody).not.toHaveProperty('store');
    expect(chatBody).not.toHaveProperty('include');
    expect(chatBody).not.toHaveProperty('metadata');
  });

  it('maps message items with input_text and input_image parts, and assistant output_text', () => {
    const image = 'data:image/png;base64,iVBORw0KGgo=';
    const { chatBody } = parse({
      input: [
        { role: 'developer', content: 'Answer in French.' },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is this?' },
            { type: 'input_image', image_url: image, detail: 'low' },
            { type: 'input_image', image_url: 'https://example.com/cat.png' },
          ],
        },
        {
          type: 'message',
          id: 'msg_1',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Un chat.', annotations: [] }],
        },
        { role: 'user', content: 'Merci' },
      ],
    });
    expect(chatBody.messages).toEqual([
      { role: 'developer', content: 'Answer in French.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: image, detail: 'low' } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
        ],
      },
      { role: 'assistant', content: 'Un chat.' },
      { role: 'user', content: 'Merci' },
    ]);
  });

  it('joins function_call items to the assistant turn before them and maps function_call_output to tool messages', () => {
    const { chatBody } = parse({
      input: [
        { role: 'user', content: 'Weather in Oslo and Rome?' },
        { role: 'assistant', content: 'Checking.' },
        {
          type: 'function_call',
          id: 'fc_1',
          call_id: 'call_a',
          name: 'get_weather',
          arguments: '{"city":"Oslo"}',
        },
        { type: 'function_call', call_id: 'call_b', name: 'get_weather', arguments: '{"city":"Rome"}' },
        { type: 'function_call_output', call_id: 'call_a', output: 'snow' },
        { type: 'function_call_output', call_id: 'call_b', output: [{ type: 'input_text', text: 'sun' }] },
        { type: 'function_call', call_id: 'call_c', name: 'get_time', arguments: '{}' },
      ],
    });
    expect(chatBody.messages).toEqual([
      { role: 'user', content: 'Weather in Oslo and Rome?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
          { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: 'snow' },
      { role: 'tool', tool_call_id: 'call_b', content: [{ type: 'text', text: 'sun' }] },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_c', type: 'function', function: { name: 'get_time', arguments: '{}' } }],
      },
    ]);
  });

  it('maps function tools, tool_choice, text.format and reasoning.effort to their chat forms', () => {
    const parameters = { type: 'object', properties: { city: { type: 'string' } } };
    const { chatBody, echo } = parse({
      input: 'hi',
      tools: [{ type: 'function', name: 'get_weather', description: 'Weather', parameters, strict: true }],
      tool_choice: { type: 'function', name: 'get_weather' },
      text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true } },
      reasoning: { effort: 'low' },
    });
    expect(chatBody).toMatchObject({
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', description: 'Weather', parameters, strict: true },
        },
      ],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'answer', schema: { type: 'object' }, strict: true },
      },
      reasoning_effort: 'low',
    });
    expect(echo.tools).toEqual([
      { type: 'function', name: 'get_weather', description: 'Weather', parameters, strict: true },
    ]);
    expect(echo.tool_choice).toEqual({ type: 'function', name: 'get_weather' });
    expect(parse({ input: 'hi', tool_choice: 'required' }).chatBody.tool_choice).toBe('required');
    expect(
      parse({ input: 'hi', text: { format: { type: 'json_object' } } }).chatBody.response_format,
    ).toEqual({
      type: 'json_object',
    });
  });
});

describe('parseResponsesRequest: refusals name the Responses parameter', () => {
  it.each([
    [{ previous_response_id: 'resp_1' }, 'previous_response_id'],
    [{ conversation: 'conv_1' }, 'conversation'],
    [{ background: true }, 'background'],
    [{ prompt: { id: 'pmpt_1' } }, 'prompt'],
    [{ truncation: 'auto' }, 'truncation'],
    [{ reasoning: { summary: 'auto' } }, 'reasoning.summary'],
    [{ tools: [{ type: 'web_search' }] }, 'tools[0].type'],
    [{ tool_choice: { type: 'web_search_preview' } }, 'tool_choice'],
    [{ input: [{ type: 'item_reference', id: 'msg_1' }] }, 'input[0]'],
    [{ input: [{ type: 'reasoning', id: 'rs_1', summary: [] }] }, 'input[0].type'],
    [{ input: [{ type: 'web_search_call', id: 'ws_1' }] }, 'input[0].type'],
    [
      { input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file-1' }] }] },
      'input[0].content[0].type',
    ],
    [
      { input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1' }] }] },
      'input[0].content[0].file_id',
    ],
  ])('refuses %j with 400 unsupported_parameter on %s', (body, param) => {
    const error = refusal({ input: 'hi', ...body });
    expect(error.code).toBe('unsupported_parameter');
    expect(error.status).toBe(400);
    expect(error.param).toBe(param);
  });

  it('explains that nothing is stored when asked for previous_response_id or an item_reference', () => {
    expect(refusal({ input: 'hi', previous_response_id: 'resp_1' }).message).toMatch(/keeps no responses/);
    expect(refusal({ input: [{ type: 'item_reference', id: 'msg_1' }] }).message).toMatch(/store = false/);
  });

  it.each([
    [{}, 'missing_parameter', 'input'],
    [{ input: [] }, 'invalid_parameter', 'input'],
    [{ input: 'hi', max_output_tokens: 0 }, 'invalid_parameter', 'max_output_tokens'],
    [{ input: 'hi', temperature: 3 }, 'invalid_parameter', 'temperature'],
    [{ input: 'hi', top_p: -1 }, 'invalid_parameter', 'top_p'],
    [{ input: 'hi', stream: 'yes' }, 'invalid_parameter', 'stream'],
    [{ input: 'hi', instructions: 5 }, 'invalid_parameter', 'instructions'],
    [{ input: 'hi', tools: [{ type: 'function', name: 'bad name' }] }, 'invalid_parameter', 'tools[0].name'],
    [{ input: 'hi', tool_choice: 'sometimes' }, 'invalid_parameter', 'tool_choice'],
    [{ input: 'hi', messages: [] }, 'unknown_field', 'messages'],
    [{ input: [{ content: 'hi' }] }, 'missing_parameter', 'input[0].role'],
    [{ input: [{ role: 'tool', content: 'x' }] }, 'invalid_parameter', 'input[0].role'],
    [
      {
        input: [
          { role: 'user', content: [{ type: 'input_image', image_url: 'http://plain.example/a.png' }] },
        ],
      },
      'invalid_parameter',
      'input[0].content[0].image_url',
    ],
    [
      {
        input: [{ role: 'system', content: [{ type: 'input_image', image_url: 'https://x.example/a.png' }] }],
      },
      'invalid_parameter',
      'input[0].content[0]',
    ],
    [
      { input: [{ type: 'function_call_output', call_id: 'call_x', output: 'late' }] },
      'invalid_parameter',
      'input[0].call_id',
    ],
    [
      { input: [{ type: 'function_call', call_id: 'c', name: 'f' }] },
      'missing_parameter',
      'input[0].arguments',
    ],
  ])('answers %j with %s on %s', (body, code, param) => {
    const error = refusal(body);
    expect(error.code).toBe(code);
    expect(error.param).toBe(param);
  });
});
