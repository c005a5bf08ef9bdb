// Every /v1 answer of gengate, checked against the types of the `openai` package (the version in
// package-lock.json), which Stainless generates from OpenAI's published OpenAPI document: the types
// named in test/contracts/openai-types.ts become JSON Schema at test time (test/contracts/
// sdk-schemas.ts; cached per package version; test/contracts/openai.ts leaves out the one field the SDK
// computes on the client). The answers come from a whole gengate (simulator
// upstream, fast settings) over real HTTP on a loopback port, as a client of the SDK receives them.
//
// Two exceptions exist, each where the SDK's type is stricter than OpenAI's API reference or the
// SDK's own reading of the answer: `usage: null` on some Responses stream events
// (USAGE_NULL_IN_REFERENCE below) and `last_id: null` on an empty video list (expectVideoListConforms).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, listenOnLoopback, type TestKey } from '../../src/testing/app.js';
import { createTaskTestApp, type TaskTestApp } from '../../src/testing/tasks.js';
import { openai } from './openai.js';

let app: TaskTestApp;
let origin: string;
let key: TestKey;

beforeAll(async () => {
  app = await createTaskTestApp({ config: { syncImageWaitMs: 10_000 } });
  origin = await listenOnLoopback(app);
  key = await app.newKey({ balanceRub: 1000 });
});

afterAll(async () => {
  await app?.dispose();
});

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

async function call(
  method: string,
  path: string,
  body?: unknown,
  options: { key?: TestKey | null; raw?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.key !== null) headers.authorization = `Bearer ${(options.key ?? key).secret}`;
  if (body !== undefined || options.raw) headers['content-type'] = 'application/json';
  const res = await fetch(`${origin}${path}`, {
    method,
    headers,
    body: options.raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function json(method: string, path: string, body?: unknown, options?: { key?: TestKey | null }) {
  const answer = await call(method, path, body, options);
  return { status: answer.status, body: JSON.parse(answer.text) };
}

/** The `data:` payloads of an SSE answer, in order, without the closing `[DONE]`. */
async function stream(path: string, body: unknown): Promise<Record<string, any>[]> {
  const answer = await call('POST', path, body);
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return answer.text
    .split(/\n\n/)
    .flatMap((block) => block.split('\n').filter((line) => line.startsWith('data: ')))
    .map((line) => line.slice('data: '.length))
    .filter((data) => data !== '[DONE]')
    .map((data) => JSON.parse(data));
}

/** `value` conforms to the SDK type `type`. */
function expectConforms(type: string, value: unknown): void {
  expect(openai.errors(type, value), `${type}: ${JSON.stringify(value)}`).toEqual([]);
}

/** The SDK type of each Responses stream event, by its `type`, from ResponseStreamEvent's members. */
const EVENT_TYPES = new Map<string, string>(
  (openai.definitions.ResponseStreamEvent.anyOf as { $ref: string }[]).map(({ $ref }) => {
    const name = decodeURIComponent($ref.split('/').at(-1) as string);
    const type = (openai.definitions[name].properties as Record<string, { const?: string }>).type;
    return [type.const as string, name] as const;
  }),
);

/**
 * The events that carry `usage: null`, and where OpenAI's API reference shows it. The SDK types
 * `Response.usage` as optional (`usage?: ResponseUsage`), not nullable; OpenAI's own examples of
 * these events in its API reference show `"usage": null` (the response has no usage yet, or the
 * upstream reported none before it failed or stopped), and gengate sends what OpenAI sends. The
 * event is checked with `usage` left out, which the SDK allows; everything else is checked in full.
 */
const REFERENCE = 'https://platform.openai.com/docs/api-reference/responses-streaming';
const USAGE_NULL_IN_REFERENCE: Record<string, string> = {
  'response.created': `${REFERENCE}/response/created`,
  'response.in_progress': `${REFERENCE}/response/in_progress`,
  'response.failed': `${REFERENCE}/response/failed`,
  'response.incomplete': `${REFERENCE}/response/incomplete`,
};

/** Each event against its own SDK type (picked by `type`) and against the ResponseStreamEvent union. */
function expectEventConforms(event: Record<string, any>): void {
  const type = EVENT_TYPES.get(event.type);
  expect(type, `an OpenAI stream event type: ${event.type}`).toBeDefined();
  let checked = event;
  if (event.response && event.response.usage === null) {
    expect(USAGE_NULL_IN_REFERENCE[event.type], `usage: null on ${event.type}`).toBeDefined();
    const { usage: _, ...response } = event.response;
    checked = { ...event, response };
  }
  expectConforms(type as string, checked);
  expectConforms('ResponseStreamEvent', checked);
}

/**
 * A video list. The SDK types the list as its generic cursor page, `last_id: string`; an empty list
 * has no last item, and gengate sends `"last_id": null` there (OpenAI's API reference,
 * https://platform.openai.com/docs/api-reference/videos/list, gives `first_id` and `last_id` as
 * string or null). The SDK's page reads it as `body.last_id || ''` (core/pagination.js,
 * ConversationCursorPage), so an empty list is checked with that reading; everything else in full.
 */
function expectVideoListConforms(list: Record<string, any>): void {
  const empty = list.data?.length === 0 && list.last_id === null && list.has_more === false;
  expectConforms('VideoList', empty ? { ...list, last_id: '' } : list);
}

const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe('chat completions: ChatCompletion and ChatCompletionChunk', () => {
  it('a plain answer', async () => {
    const { status, body } = await json('POST', '/v1/chat/completions', {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Name three rivers' }],
    });
    expect(status).toBe(200);
    expect(body.choices[0].message.content).toBeTruthy();
    expectConforms('ChatCompletion', body);
  });

  it('a tool call', async () => {
    const { status, body } = await json('POST', '/v1/chat/completions', {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'What is the weather in Oslo? [sim:tool]' }],
      tools: [weatherTool],
    });
    expect(status).toBe(200);
    expect(body.choices[0].finish_reason).toBe('tool_calls');
    expect(body.choices[0].message.tool_calls).toHaveLength(1);
    expectConforms('ChatCompletion', body);
  });

  it('every chunk of a stream, the usage chunk included', async () => {
    const chunks = await stream('/v1/chat/completions', {
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Tell a story [sim:tokens=6]' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: 6 } });
    for (const chunk of chunks) expectConforms('ChatCompletionChunk', chunk);
  });

  it('every chunk of a streamed tool call', async () => {
    const chunks = await stream('/v1/chat/completions', {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'What is the weather in Oslo? [sim:tool]' }],
      tools: [weatherTool],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(chunks.some((chunk) => chunk.choices[0]?.delta?.tool_calls)).toBe(true);
    for (const chunk of chunks) expectConforms('ChatCompletionChunk', chunk);
  });

  it('the error a stream broken upstream ends with', async () => {
    const chunks = await stream('/v1/chat/completions', {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'go [sim:tokens=10] [sim:fail=stream]' }],
      stream: true,
    });
    const last = chunks.pop();
    expect(last).toHaveProperty('error');
    expectConforms('ErrorBody', last);
    for (const chunk of chunks) expectConforms('ChatCompletionChunk', chunk);
  });
});

describe('responses: Response and every ResponseStreamEvent by its type', () => {
  const tool = {
    type: 'function',
    name: 'get_weather',
    description: 'Current weather of a city',
    parameters: weatherTool.function.parameters,
    strict: false,
  };

  it('a plain answer, its usage with cache reads and writes', async () => {
    const { status, body } = await json('POST', '/v1/responses', {
      model: 'gpt-4o',
      instructions: 'Be terse.',
      input: 'Name three rivers',
    });
    expect(status).toBe(200);
    expect(body.usage.input_tokens_details).toEqual({ cached_tokens: 0, cache_write_tokens: 0 });
    expectConforms('Response', body);
  });

  it('a function call', async () => {
    const { status, body } = await json('POST', '/v1/responses', {
      model: 'gpt-4o',
      input: 'What is the weather in Oslo? [sim:tool]',
      tools: [tool],
    });
    expect(status).toBe(200);
    expect(body.output.map((item: { type: string }) => item.type)).toContain('function_call');
    expectConforms('Response', body);
  });

  it('an answer that echoes every request field it accepts', async () => {
    const { status, body } = await json('POST', '/v1/responses', {
      model: 'o4-mini',
      instructions: 'Answer in JSON.',
      input: [
        { role: 'developer', content: 'Be terse.' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Name a river' }] },
      ],
      text: {
        format: {
          type: 'json_schema',
          name: 'river',
          schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          strict: true,
        },
        verbosity: 'low',
      },
      reasoning: { effort: 'low' },
      tools: [tool],
      tool_choice: { type: 'function', name: 'get_weather' },
      parallel_tool_calls: false,
      max_output_tokens: 200,
      temperature: 0.5,
      top_p: 0.9,
      metadata: { ticket: '42' },
      user: 'user-42',
      store: false,
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ metadata: { ticket: '42' }, reasoning: { effort: 'low' } });
    expectConforms('Response', body);
  });

  it('an answer cut by max_output_tokens (incomplete)', async () => {
    const { body } = await json('POST', '/v1/responses', {
      model: 'gpt-4o',
      input: 'Tell a long story [sim:tokens=40]',
      max_output_tokens: 16,
    });
    expect(body.status).toBe('incomplete');
    expectConforms('Response', body);
  });

  it('every event of a streamed answer', async () => {
    const events = await stream('/v1/responses', {
      model: 'gpt-4o-mini',
      input: 'Tell a story [sim:tokens=5]',
      stream: true,
    });
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...Array(5).fill('response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.at(-1)?.response.usage.input_tokens_details).toEqual({
      cached_tokens: 0,
      cache_write_tokens: 0,
    });
    events.forEach(expectEventConforms);
  });

  it('every event of a streamed function call', async () => {
    const events = await stream('/v1/responses', {
      model: 'gpt-4o',
      input: 'What is the weather in Oslo? [sim:tool]',
      tools: [tool],
      stream: true,
    });
    const types = events.map((event) => event.type);
    expect(types).toContain('response.function_call_arguments.delta');
    expect(types).toContain('response.function_call_arguments.done');
    events.forEach(expectEventConforms);
  });

  it('every event of a streamed answer cut by max_output_tokens (response.incomplete)', async () => {
    const events = await stream('/v1/responses', {
      model: 'gpt-4o',
      input: 'Tell a long story [sim:tokens=40]',
      max_output_tokens: 16,
      stream: true,
    });
    expect(events.at(-1)?.type).toBe('response.incomplete');
    events.forEach(expectEventConforms);
  });

  it('every event of a stream broken upstream: error, then response.failed with a ResponseErrorCode', async () => {
    const events = await stream('/v1/responses', {
      model: 'gpt-4o',
      input: 'go [sim:tokens=10] [sim:fail=stream]',
      stream: true,
    });
    expect(events.slice(-2).map((event) => event.type)).toEqual(['error', 'response.failed']);
    expect(events.at(-2)?.code).toBe('upstream_error');
    expect(events.at(-1)?.response.error).toMatchObject({ code: 'server_error' });
    events.forEach(expectEventConforms);
  });
});

describe('images: ImagesResponse', () => {
  it('a generated image as a URL and as base64', async () => {
    for (const response_format of ['url', 'b64_json']) {
      const { status, body } = await json('POST', '/v1/images/generations', {
        model: 'flux-1-1-pro',
        prompt: 'a red fox in snow',
        size: '1024x1536',
        response_format,
      });
      expect(status).toBe(200);
      expect(body.data[0]).toHaveProperty(response_format);
      expectConforms('ImagesResponse', body);
    }
  });

  it('the error of a failed image task', async () => {
    const { status, body } = await json('POST', '/v1/images/generations', {
      model: 'flux-1-1-pro',
      prompt: 'a fox [sim:fail=reject]',
    });
    expect(status).toBe(400);
    expect(body.error.task_id).toBeTruthy();
    expectConforms('ErrorBody', body);
  });
});

describe('videos: Video, VideosPage, VideoDeleteResponse', () => {
  async function pollUntilFinal(id: string): Promise<Record<string, any>[]> {
    const seen: Record<string, any>[] = [];
    for (let i = 0; i < 400; i++) {
      const { status, body } = await json('GET', `/v1/videos/${id}`);
      expect(status).toBe(200);
      seen.push(body);
      if (body.status === 'completed' || body.status === 'failed') return seen;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`video ${id} did not finish`);
  }

  it('create, every poll, list and delete of a completed video', async () => {
    const created = await json('POST', '/v1/videos', {
      model: 'sora-2',
      prompt: 'waves on a beach [sim:delay=150]',
      seconds: '4',
      size: '1280x720',
    });
    expect(created.status).toBe(200);
    expect(created.body.status).toBe('queued');
    expectConforms('Video', created.body);

    const polls = await pollUntilFinal(created.body.id);
    expect(new Set([created.body, ...polls].map((video) => video.status))).toEqual(
      new Set(['queued', 'in_progress', 'completed']),
    );
    for (const video of polls) expectConforms('Video', video);

    const list = await json('GET', '/v1/videos?limit=5');
    expect(list.body.data.map((video: { id: string }) => video.id)).toContain(created.body.id);
    expectVideoListConforms(list.body);
    const empty = await json('GET', '/v1/videos', undefined, { key: await app.newKey({ balanceRub: 0 }) });
    expect(empty.body).toMatchObject({ data: [], first_id: null, last_id: null, has_more: false });
    expectVideoListConforms(empty.body);

    const deleted = await json('DELETE', `/v1/videos/${created.body.id}`);
    expect(deleted.status).toBe(200);
    expectConforms('VideoDeleteResponse', deleted.body);
  });

  it('a failed video, its error object', async () => {
    const created = await json('POST', '/v1/videos', {
      model: 'sora-2',
      prompt: 'waves [sim:fail=reject]',
      seconds: '4',
    });
    const polls = await pollUntilFinal(created.body.id);
    const failed = polls.at(-1) as Record<string, any>;
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'content_policy_violation' } });
    for (const video of polls) expectConforms('Video', video);
  });
});

describe('models: ModelsPage and Model', () => {
  it('the list and one model', async () => {
    const list = await json('GET', '/v1/models');
    expect(list.status).toBe(200);
    expect(list.body.data.length).toBeGreaterThan(10);
    expectConforms('ModelList', list.body);
    const one = await json('GET', '/v1/models/gpt-4o');
    expect(one.status).toBe(200);
    expectConforms('Model', one.body);
  });
});

describe('error bodies: ErrorObject under error', () => {
  it.each([
    ['no key (401)', 401, () => call('POST', '/v1/chat/completions', {}, { key: null })],
    [
      'malformed JSON (400)',
      400,
      () => call('POST', '/v1/chat/completions', undefined, { raw: '{"model":' }),
    ],
    [
      'unknown model (404)',
      404,
      () =>
        call('POST', '/v1/chat/completions', { model: 'nope', messages: [{ role: 'user', content: 'hi' }] }),
    ],
    ['unknown model (404, /v1/models/{id})', 404, () => call('GET', '/v1/models/nope')],
    [
      'invalid parameter (422)',
      422,
      () => call('POST', '/v1/images/generations', { model: 'flux-1-1-pro', prompt: 'a fox', n: 3 }),
    ],
    ['a refused Responses field (400)', 400, () => call('POST', '/v1/responses', { model: 'gpt-4o' })],
    ['an unknown video (404)', 404, () => call('GET', '/v1/videos/0b6c9a4e-1f7d-4a3b-9c2e-5d8f7a6b4c3d')],
  ])('%s', async (_, expected, request) => {
    const answer = await request();
    expect(answer.status).toBe(expected);
    expectConforms('ErrorBody', JSON.parse(answer.text));
  });

  it.each([
    ['chat', '/v1/chat/completions', { messages: [{ role: 'user', content: 'hi [sim:fail=billing]' }] }],
    ['responses', '/v1/responses', { input: 'hi [sim:fail=overload]' }],
  ])('an upstream failure before the answer (%s)', async (_, path, body) => {
    const answer = await call('POST', path, { model: 'gpt-4o', ...body });
    expect(answer.status).toBeGreaterThanOrEqual(500);
    expectConforms('ErrorBody', JSON.parse(answer.text));
  });

  it('a body of another type (415), too large (413), and maintenance mode (503)', async () => {
    const typed = await fetch(`${origin}/v1/videos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'text/plain' },
      body: 'waves',
    });
    expect(typed.status).toBe(415);
    expectConforms('ErrorBody', await typed.json());
    const large = await call('POST', '/v1/images/generations', { prompt: 'x'.repeat(2 * 1024 * 1024) });
    expect(large.status).toBe(413);
    expectConforms('ErrorBody', JSON.parse(large.text));

    const maintenance = (enabled: boolean) =>
      fetch(`${origin}/admin/maintenance`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ enabled }),
      });
    expect((await maintenance(true)).status).toBe(200);
    try {
      const closed = await call('GET', '/v1/models/gpt-4o');
      expect(closed.status).toBe(503);
      expectConforms('ErrorBody', JSON.parse(closed.text));
    } finally {
      expect((await maintenance(false)).status).toBe(200);
    }
  });

  it('an empty balance (402) and a rate limit (429)', async () => {
    const poor = await app.newKey({ balanceRub: 0 });
    const broke = await call(
      'POST',
      '/v1/responses',
      { model: 'gpt-4o', input: 'hi' },
      {
        key: poor,
      },
    );
    expect(broke.status).toBe(402);
    expectConforms('ErrorBody', JSON.parse(broke.text));
    const limited = await app.newKey({ balanceRub: 10, restrictions: { rate_limit_per_min: 1 } });
    await call('GET', '/v1/videos', undefined, { key: limited });
    const refused = await call('GET', '/v1/videos', undefined, { key: limited });
    expect(refused.status).toBe(429);
    expectConforms('ErrorBody', JSON.parse(refused.text));
  });

  it('the content and the deletion of a video that is not ready (409)', async () => {
    const created = await json('POST', '/v1/videos', {
      model: 'sora-2',
      prompt: 'slow waves [sim:delay=2000]',
      seconds: '4',
    });
    for (const answer of [
      await call('GET', `/v1/videos/${created.body.id}/content`),
      await call('DELETE', `/v1/videos/${created.body.id}`),
    ]) {
      expect(answer.status).toBe(409);
      expectConforms('ErrorBody', JSON.parse(answer.text));
    }
  });
});
