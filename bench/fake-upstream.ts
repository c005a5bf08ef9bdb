// A minimal OpenAI-compatible upstream on node:http, no framework, so that it costs as little CPU as
// possible and every system measured talks to the same thing. POST /v1/chat/completions answers a
// fixed completion with usage, or, for "stream": true, an SSE stream of N content chunks, a finish
// chunk, a usage chunk (when stream_options.include_usage is set, as OpenAI does) and [DONE].
// POST /v1/messages is Anthropic's Messages API: a message, or for "stream": true the events
// Anthropic sends (message_start, a text block of N deltas with a ping, message_delta with the usage,
// message_stop), with the request's model echoed back as Anthropic does.
// Run as a child: `node bin/run-ts.mjs bench/fake-upstream.ts`; prints `ready <port>`.
import http from 'node:http';
import { announceReady } from './ready.js';

const STREAM_CHUNKS = Number(process.env.BENCH_STREAM_CHUNKS ?? 64);
const MODEL = 'gpt-4o-mini';
const PROMPT_TOKENS = 12;
const CREATED = Math.floor(Date.now() / 1000);

const completion = Buffer.from(
  JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: CREATED,
    model: MODEL,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: 'Hello from the fake upstream. This is a fixed answer.',
          refusal: null,
        },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: PROMPT_TOKENS, completion_tokens: 11, total_tokens: PROMPT_TOKENS + 11 },
    system_fingerprint: 'fp_bench',
  }),
);

function sse(data: unknown): Buffer {
  return Buffer.from(`data: ${JSON.stringify(data)}\n\n`);
}

function chunk(delta: Record<string, unknown>, finish: string | null): Buffer {
  return sse({
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: CREATED,
    model: MODEL,
    system_fingerprint: 'fp_bench',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
}

// Every byte of the stream is built once; a request only writes buffers.
const streamChunks: Buffer[] = [
  chunk({ role: 'assistant', content: '' }, null),
  ...Array.from({ length: STREAM_CHUNKS }, (_, i) => chunk({ content: `tok${i} ` }, null)),
  chunk({}, 'stop'),
];
const usageChunk = sse({
  id: 'chatcmpl-bench',
  object: 'chat.completion.chunk',
  created: CREATED,
  model: MODEL,
  choices: [],
  usage: {
    prompt_tokens: PROMPT_TOKENS,
    completion_tokens: STREAM_CHUNKS,
    total_tokens: PROMPT_TOKENS + STREAM_CHUNKS,
  },
});
const done = Buffer.from('data: [DONE]\n\n');

// The Messages API: every event but message_start (which names the model) is built once.
const anthropicEvent = (type: string, data: Record<string, unknown>) =>
  Buffer.from(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
const MESSAGES_USAGE = { input_tokens: 40, cache_creation_input_tokens: 0, cache_read_input_tokens: 21_000 };
const messageStart = (model: string) =>
  anthropicEvent('message_start', {
    message: {
      id: 'msg_bench',
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...MESSAGES_USAGE, output_tokens: 1 },
    },
  });
const messageEvents: Buffer[] = [
  anthropicEvent('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  anthropicEvent('ping', {}),
  ...Array.from({ length: STREAM_CHUNKS }, (_, i) =>
    anthropicEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text: `tok${i} ` } }),
  ),
  anthropicEvent('content_block_stop', { index: 0 }),
  anthropicEvent('message_delta', {
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: { output_tokens: STREAM_CHUNKS },
  }),
  anthropicEvent('message_stop', {}),
];
const MODEL_FIELD = /"model"\s*:\s*"([^"]{1,128})"/;

function writeMessages(res: http.ServerResponse, model: string, stream: boolean): void {
  if (!stream) {
    const body = JSON.stringify({
      id: 'msg_bench',
      type: 'message',
      role: 'assistant',
      model,
      content: [{ type: 'text', text: 'Hello from the fake upstream. This is a fixed answer.' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { ...MESSAGES_USAGE, output_tokens: 11 },
    });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  const parts = [messageStart(model), ...messageEvents];
  let i = 0;
  const next = () => {
    if (res.destroyed) return;
    if (i === parts.length - 1) {
      res.end(parts[i]);
      return;
    }
    res.write(parts[i++]);
    setImmediate(next);
  };
  next();
}

const STREAM_FLAG = /"stream"\s*:\s*true/;
const USAGE_FLAG = /"include_usage"\s*:\s*true/;

/** One chunk per turn of the event loop, so a chunk can reach the client before the next is written. */
function writeStream(res: http.ServerResponse, includeUsage: boolean): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  const parts = includeUsage ? [...streamChunks, usageChunk, done] : [...streamChunks, done];
  let i = 0;
  const next = () => {
    if (res.destroyed) return;
    if (i === parts.length - 1) {
      res.end(parts[i]);
      return;
    }
    res.write(parts[i++]);
    setImmediate(next);
  };
  next();
}

const server = http.createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/v1/messages') {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      // The model is the body's first field in every client seen; a regex keeps the upstream cheap.
      const body = Buffer.concat(parts).toString('utf8');
      writeMessages(res, MODEL_FIELD.exec(body)?.[1] ?? 'unknown', STREAM_FLAG.test(body));
    });
    return;
  }
  if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"not found","type":"invalid_request_error","code":null,"param":null}}');
    return;
  }
  const parts: Buffer[] = [];
  req.on('data', (part: Buffer) => parts.push(part));
  req.on('end', () => {
    // A regex instead of JSON.parse: the upstream must stay far cheaper than what it serves.
    const body = Buffer.concat(parts).toString('utf8');
    if (STREAM_FLAG.test(body)) return writeStream(res, USAGE_FLAG.test(body));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': completion.length });
    res.end(completion);
  });
});
server.keepAliveTimeout = 120_000;
server.headersTimeout = 125_000;

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  announceReady((server.address() as { port: number }).port);
});
process.once('SIGTERM', () => process.exit(0));
