// The schemas generated from the `openai` package's types fail what they must: without these, a
// generation that silently produced "accept anything" (a lost `| null`, a $ref that resolves to
// nothing, an enum widened to string) would make every contract test pass.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openai } from './openai.js';

const usage = {
  input_tokens: 3,
  input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
  output_tokens: 2,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 5,
};

/** A Response with what the SDK type requires, as gengate sends it. */
const response = {
  id: 'resp_1',
  object: 'response',
  created_at: 1,
  status: 'failed',
  error: { code: 'server_error', message: 'upstream failed' },
  incomplete_details: null,
  instructions: null,
  metadata: {},
  model: 'gpt-4o',
  output: [],
  parallel_tool_calls: true,
  temperature: 1,
  tool_choice: 'auto',
  tools: [],
  top_p: 1,
  usage,
};

describe('the openai package’s types as JSON Schema', () => {
  it('come from the installed package, cached under its version', () => {
    const installed = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../node_modules/openai/package.json'), 'utf8'),
    ) as { version: string };
    expect(openai.source).toMatchObject({ package: 'openai', version: installed.version });
    expect(openai.source.cacheFile).toContain(`openai@${installed.version}`);
  });

  it('require both cache fields of ResponseUsage', () => {
    expect(openai.errors('ResponseUsage', usage)).toEqual([]);
    const { cache_write_tokens: _, ...withoutWrites } = usage.input_tokens_details;
    expect(openai.errors('ResponseUsage', { ...usage, input_tokens_details: withoutWrites })).toEqual([
      expect.stringContaining("/input_tokens_details must have required property 'cache_write_tokens'"),
    ]);
  });

  it('hold response.failed to the ResponseErrorCode enum, and leave out the client-side output_text', () => {
    const event = { type: 'response.failed', sequence_number: 7, response };
    expect(openai.errors('ResponseFailedEvent', event)).toEqual([]);
    expect(openai.errors('ResponseStreamEvent', event)).toEqual([]);
    const ours = { ...event, response: { ...response, error: { code: 'upstream_error', message: 'x' } } };
    expect(openai.errors('ResponseFailedEvent', ours).join('\n')).toMatch(
      /\/response\/error\/code must be equal to one of the allowed values/,
    );
    expect(openai.errors('ResponseStreamEvent', ours)).not.toEqual([]);
    expect(openai.definitions.Response.properties).not.toHaveProperty('output_text');
  });

  it('read `| null` as "or null", and still check the enum', () => {
    const chunk = {
      id: 'c',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null }],
      usage: null,
    };
    expect(openai.errors('ChatCompletionChunk', chunk)).toEqual([]);
    const bogus = { ...chunk, choices: [{ ...chunk.choices[0], finish_reason: 'done' }] };
    expect(openai.errors('ChatCompletionChunk', bogus)).not.toEqual([]);
    expect(openai.errors('ChatCompletionChunk', { ...chunk, id: null })).not.toEqual([]);
  });

  it('follow references into nested types (a tool call delta inside a chunk’s choice)', () => {
    const chunk = (index: unknown) => ({
      id: 'c',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [{ index: 0, delta: { tool_calls: [{ index }] }, finish_reason: null }],
    });
    expect(openai.errors('ChatCompletionChunk', chunk(0))).toEqual([]);
    expect(openai.errors('ChatCompletionChunk', chunk('0')).join('\n')).toMatch(
      /\/choices\/0\/delta\/tool_calls\/0\/index must be number/,
    );
  });

  it('check closed enums and literal types: a video size is one of OpenAI’s, `object` is "video"', () => {
    const video = {
      id: 'v',
      object: 'video',
      model: 'sora-2',
      status: 'completed',
      progress: 100,
      created_at: 1,
      completed_at: 2,
      expires_at: null,
      prompt: 'p',
      size: '1280x720',
      seconds: '4',
      remixed_from_video_id: null,
      error: null,
    };
    expect(openai.errors('Video', video)).toEqual([]);
    expect(openai.errors('Video', { ...video, size: '1920x1080' })).not.toEqual([]);
    expect(openai.errors('Video', { ...video, object: 'video.job' })).not.toEqual([]);
  });

  it('allow fields the SDK does not type, but not a typed field missing', () => {
    const body = { error: { message: 'x', type: 'invalid_request_error', code: 'bad', param: null } };
    expect(openai.errors('ErrorBody', { error: { ...body.error, task_id: 'task_1' } })).toEqual([]);
    const { param: _, ...withoutParam } = body.error;
    expect(openai.errors('ErrorBody', { error: withoutParam })).toEqual([
      expect.stringContaining("/error must have required property 'param'"),
    ]);
  });

  it('name every Responses stream event by its `type`', () => {
    const members = openai.definitions.ResponseStreamEvent.anyOf as { $ref: string }[];
    expect(members.length).toBeGreaterThan(40);
    for (const { $ref } of members) {
      const name = decodeURIComponent($ref.split('/').at(-1) as string);
      const type = (openai.definitions[name].properties as Record<string, { const?: string }>).type;
      expect(type.const, name).toMatch(/^(response\.|error$)/);
    }
  });

  it('refuse a type name they do not hold', () => {
    expect(() => openai.errors('NoSuchType', {})).toThrow(/not a type/);
  });
});
