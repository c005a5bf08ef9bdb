// The Messages API validators of test/contracts/anthropic.ts (from @anthropic-ai/sdk's types): they
// accept what Anthropic documents (here, as the repository's loopback Anthropic fake answers it over
// HTTP: a message, a tool call, streams, a stream cut by an error event, error bodies) and refuse
// what breaks it. gengate's own POST /v1/messages is to be checked with the same helpers.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_ANTHROPIC_VERSION, FakeAnthropic } from '../../src/testing/fakes/anthropic.js';
import {
  anthropic,
  countTokensErrors,
  messagesAnswerErrors,
  messagesErrorBodyErrors,
  messagesEventErrors,
  messagesStreamErrors,
} from './anthropic.js';

const KEY = 'sk-ant-api03-contract-tests';
let fake: FakeAnthropic;

beforeAll(async () => {
  fake = await new FakeAnthropic(KEY).start();
});

afterAll(async () => {
  await fake?.close();
});

async function post(body: Record<string, unknown>, key = KEY) {
  const res = await fetch(`${fake.origin}/v1/messages`, {
    method: 'POST',
    headers: {
      'x-api-key': key,
      'anthropic-version': FAKE_ANTHROPIC_VERSION,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 100, ...body }),
  });
  return { status: res.status, text: await res.text() };
}

const dataOf = (sse: string) =>
  sse
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)));

const toolTurn = {
  content: [
    { type: 'text' as const, text: 'Let me look that up.' },
    { type: 'tool_use' as const, id: 'toolu_01', name: 'get_weather', input: { city: 'Oslo' } },
  ],
  usage: { input_tokens: 20, output_tokens: 9, cache_read_input_tokens: 5 },
};

describe('Anthropic Messages contract (the documented shapes)', () => {
  it('accepts a message and a tool call', async () => {
    fake.script(
      { content: [{ type: 'text', text: 'Paris.' }], usage: { input_tokens: 9, output_tokens: 2 } },
      toolTurn,
    );
    for (let i = 0; i < 2; i++) {
      const { status, text } = await post({ messages: [{ role: 'user', content: 'Capital of France?' }] });
      expect(status).toBe(200);
      expect(messagesAnswerErrors(JSON.parse(text))).toEqual([]);
    }
  });

  it('accepts every event of a stream and its order (text, ping, tool_use with input_json_delta)', async () => {
    fake.script(toolTurn);
    const { text } = await post({ messages: [{ role: 'user', content: 'Weather in Oslo?' }], stream: true });
    const events = dataOf(text);
    expect(events.map((event) => event.type)).toContain('ping');
    expect(messagesStreamErrors(events)).toEqual([]);
  });

  it('accepts a stream that an error event ends', async () => {
    fake.script({ ...toolTurn, errorAfterDeltas: 2 });
    const { text } = await post({ messages: [{ role: 'user', content: 'Weather in Oslo?' }], stream: true });
    const events = dataOf(text);
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
    expect(messagesStreamErrors(events)).toEqual([]);
  });

  it('accepts error bodies', async () => {
    fake.script({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } });
    for (const answer of [
      await post({ messages: [{ role: 'user', content: 'hi' }] }),
      await post({}, 'wrong'),
    ]) {
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(messagesErrorBodyErrors(JSON.parse(answer.text))).toEqual([]);
    }
  });

  it('accepts a count_tokens answer', () => {
    expect(countTokensErrors({ input_tokens: 14 })).toEqual([]);
    expect(countTokensErrors({ tokens: 14 })).not.toEqual([]);
  });

  it('refuses an answer without usage, with an unknown stop_reason, or still open (stop_reason null)', () => {
    const message = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'hi' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 3, output_tokens: 1 },
    };
    expect(messagesAnswerErrors(message)).toEqual([]);
    const { usage: _, ...withoutUsage } = message;
    expect(messagesAnswerErrors(withoutUsage)).not.toEqual([]);
    expect(messagesAnswerErrors({ ...message, stop_reason: 'stop' })).not.toEqual([]);
    expect(messagesAnswerErrors({ ...message, stop_reason: null })).not.toEqual([]);
    expect(
      messagesAnswerErrors({ ...message, content: [{ type: 'tool_use', id: 't', name: 'f' }] }),
    ).not.toEqual([]);
  });

  it('refuses unknown event types, OpenAI-shaped errors and streams out of order', () => {
    expect(messagesEventErrors({ type: 'response.completed' })).toEqual([
      '/type is not a Messages stream event type: "response.completed"',
    ]);
    expect(
      messagesEventErrors({ type: 'content_block_delta', index: 0, delta: { type: 'text', text: 'a' } }),
    ).not.toEqual([]);
    expect(
      messagesErrorBodyErrors({ error: { message: 'x', type: 'invalid_request_error', code: null } }),
    ).not.toEqual([]);
    const start = {
      type: 'message_start',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'm',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    };
    const block = { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } };
    const delta = { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'a' } };
    const stop = { type: 'content_block_stop', index: 0 };
    const messageDelta = {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 1 },
    };
    const end = { type: 'message_stop' };
    expect(messagesStreamErrors([start, block, delta, stop, messageDelta, end])).toEqual([]);
    expect(messagesStreamErrors([block, delta, stop, messageDelta, end])).toContain(
      'the stream does not begin with message_start',
    );
    expect(messagesStreamErrors([start, delta, messageDelta, end]).join()).toMatch(/not open/);
    expect(messagesStreamErrors([start, block, delta, messageDelta, end]).join()).toMatch(/are open/);
    expect(messagesStreamErrors([start, block, delta, stop, end])).toContain(
      'no message_delta before message_stop',
    );
  });

  it('checks the fields the documented examples leave out, when present', () => {
    const message = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'hi', citations: null }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      container: null,
      usage: { input_tokens: 3, output_tokens: 1, cache_read_input_tokens: null, service_tier: 'standard' },
    };
    expect(messagesAnswerErrors(message)).toEqual([]);
    expect(messagesAnswerErrors({ ...message, container: 'c' })).not.toEqual([]);
    expect(
      messagesAnswerErrors({ ...message, usage: { ...message.usage, cache_read_input_tokens: '5' } }),
    ).not.toEqual([]);
    expect(
      messagesAnswerErrors({ ...message, usage: { ...message.usage, service_tier: 'gold' } }),
    ).not.toEqual([]);
  });

  it('come from the installed @anthropic-ai/sdk, cached under its version', () => {
    const installed = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../node_modules/@anthropic-ai/sdk/package.json'), 'utf8'),
    ) as { version: string };
    expect(anthropic.source).toMatchObject({ package: '@anthropic-ai/sdk', version: installed.version });
  });
});
