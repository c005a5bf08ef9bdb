// A loopback Anthropic Messages API (POST /v1/messages, version 2023-06-01). It checks the
// x-api-key and anthropic-version headers and the request body the way Anthropic does (unknown
// top-level fields, roles, block shapes, tool_use answered by tool_result in the next user turn,
// max_tokens required), answering Anthropic's own error shape; it is stricter than Anthropic on one
// point: turns of one role must alternate (Anthropic would merge them), so a test sees that the
// adapter merged them. Each request plays the next scripted turn, as a message or as an SSE stream
// in the recorded event order (message_start, content blocks with ping, message_delta, message_stop),
// or an HTTP error (FAKE_OVERLOADED: Anthropic's 529), or an `error` event after some deltas. Turns
// may carry thinking blocks (thinking_delta then signature_delta, as Anthropic streams them), prompt
// cache usage and server_tool_use usage, and a delay before the answer. A responder can answer from the request instead of the
// queue (Claude Code's own requests), and POST /v1/messages/count_tokens counts 4 bytes a token.
import { randomUUID } from 'node:crypto';
import { type FakeReply, type FakeRequest, FakeServer } from './fake-server.js';

export const FAKE_ANTHROPIC_VERSION = '2023-06-01';

export type FakeBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface FakeUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
  server_tool_use?: { web_search_requests?: number; web_fetch_requests?: number };
}

/** Anthropic's answer when it is overloaded. */
export const FAKE_OVERLOADED: FakeHttpError = {
  status: 529,
  type: 'overloaded_error',
  message: 'Overloaded',
};

export interface FakeTurn {
  content: FakeBlock[];
  stop_reason?: 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal' | 'pause_turn';
  usage: FakeUsage;
  /** Non-streaming only: an answer without its usage object (Anthropic always sends one). */
  omitUsage?: boolean;
  /** Streams only: after this many content deltas, an `error` event ends the stream. */
  errorAfterDeltas?: number;
  /** The error event's error (default overloaded_error "Overloaded"). */
  streamError?: { type: string; message: string };
  /** How long the fake thinks before its answer's headers (default: none). */
  delayMs?: number;
  /**
   * Streams only: the framing of an Anthropic-compatible server instead of Anthropic's own
   * (`event:` and `data:` lines ending in \n): lines ending in \r\n or \r, an `id:` line first.
   */
  framing?: { lineEnd?: '\r\n' | '\r'; idLines?: boolean };
}

export interface FakeHttpError {
  status: number;
  type: string;
  message: string;
  retryAfter?: string;
  /** error.details.error_code, e.g. enforced_spend_limit_reached. */
  errorCode?: string;
}

export type FakeScript = FakeTurn | { error: FakeHttpError };

const TOP_LEVEL = new Set([
  'model',
  'max_tokens',
  'messages',
  'system',
  'temperature',
  'top_p',
  'top_k',
  'stop_sequences',
  'stream',
  'tools',
  'tool_choice',
  'metadata',
  'thinking',
  'service_tier',
  'context_management',
  'container',
  'mcp_servers',
]);
const BLOCK_TYPES = new Set([
  'text',
  'image',
  'document',
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'server_tool_use',
  'web_search_tool_result',
]);

/** Answers a request from its body instead of the queue; undefined falls back to the queue. */
export type FakeResponder = (body: Record<string, any>) => FakeScript | undefined;

export class FakeAnthropic {
  readonly server = new FakeServer();
  private readonly scripts: FakeScript[] = [];
  responder: FakeResponder | undefined;

  constructor(readonly apiKey: string) {
    this.server.on('POST', /\/v1\/messages\/count_tokens/, (request) => this.countTokens(request));
    this.server.on('POST', /\/v1\/messages/, (request) => this.messages(request));
  }

  /** The /v1/messages/count_tokens requests received. */
  get countCalls(): FakeRequest[] {
    return this.server.calls(/\/v1\/messages\/count_tokens$/, 'POST');
  }

  private countTokens(request: FakeRequest): FakeReply {
    if (request.headers['x-api-key'] !== this.apiKey)
      return errorReply({ status: 401, type: 'authentication_error', message: 'invalid x-api-key' });
    const problem = bodyProblem({ max_tokens: 1, ...request.json });
    if (problem) return errorReply({ status: 400, type: 'invalid_request_error', message: problem });
    return { status: 200, json: { input_tokens: Math.ceil(request.raw.length / 4) } };
  }

  get origin(): string {
    return this.server.origin;
  }

  /** The /v1/messages requests received. */
  get calls(): FakeRequest[] {
    return this.server.calls(/\/v1\/messages$/, 'POST');
  }

  /** Queues what the next requests get, in order; with none queued, a short text turn. */
  script(...scripts: FakeScript[]): this {
    this.scripts.push(...scripts);
    return this;
  }

  reset(): void {
    this.scripts.length = 0;
    this.responder = undefined;
    this.server.requests.length = 0;
  }

  async start(): Promise<this> {
    await this.server.start();
    return this;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private async messages(request: FakeRequest): Promise<FakeReply> {
    if (request.headers['x-api-key'] !== this.apiKey)
      return errorReply({ status: 401, type: 'authentication_error', message: 'invalid x-api-key' });
    const version = request.headers['anthropic-version'];
    // Anthropic's API versions are dates (2023-06-01; Anthropic's SDKs send their own newer one).
    if (typeof version !== 'string' || !/^20\d\d-\d\d-\d\d$/.test(version) || version < '2023-01-01') {
      return errorReply({
        status: 400,
        type: 'invalid_request_error',
        message: version
          ? `anthropic-version: invalid version ${version}`
          : 'anthropic-version: header is required',
      });
    }
    const problem = bodyProblem(request.json);
    if (problem) return errorReply({ status: 400, type: 'invalid_request_error', message: problem });
    const script = this.responder?.(request.json) ??
      this.scripts.shift() ?? {
        content: [{ type: 'text', text: 'Hello from the fake' }],
        usage: { input_tokens: 10, output_tokens: 5 },
      };
    if ('error' in script) return errorReply(script.error);
    if (script.delayMs) await new Promise((resolve) => setTimeout(resolve, script.delayMs));
    const id = `msg_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
    return request.json.stream === true
      ? streamReply(id, request.json.model, script)
      : { status: 200, json: message(id, request.json.model, script) };
  }
}

function errorReply(error: FakeHttpError): FakeReply {
  return {
    status: error.status,
    headers: error.retryAfter ? { 'retry-after': error.retryAfter } : {},
    json: {
      type: 'error',
      error: {
        type: error.type,
        message: error.message,
        ...(error.errorCode ? { details: { error_code: error.errorCode } } : {}),
      },
      request_id: `req_${randomUUID().replaceAll('-', '')}`,
    },
  };
}

function stopReason(turn: FakeTurn): string {
  return turn.stop_reason ?? (turn.content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
}

function fullUsage(usage: FakeUsage) {
  return { cache_creation_input_tokens: 0, cache_read_input_tokens: 0, ...usage };
}

function message(id: string, model: string, turn: FakeTurn) {
  return {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content: turn.content,
    stop_reason: stopReason(turn),
    stop_sequence: null,
    ...(turn.omitUsage ? {} : { usage: fullUsage(turn.usage) }),
  };
}

const sse = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** An event as `sse` wrote it, in the turn's framing (JSON text holds no raw line end to confuse). */
function framed(event: string, index: number, framing: FakeTurn['framing']): string {
  if (!framing) return event;
  const lineEnd = framing.lineEnd ?? '\n';
  return (framing.idLines ? `id: ${index}\n${event}` : event).replaceAll('\n', lineEnd);
}

/** The events of a turn as Anthropic streams them. */
function streamReply(id: string, model: string, turn: FakeTurn): FakeReply {
  const events: string[] = [];
  const { output_tokens: _output, server_tool_use: _tools, ...input } = fullUsage(turn.usage);
  events.push(
    sse('message_start', {
      message: {
        id,
        type: 'message',
        role: 'assistant',
        content: [],
        model,
        stop_reason: null,
        stop_sequence: null,
        usage: { ...input, output_tokens: 1 },
      },
    }),
  );
  let deltas = 0;
  const failed = () => turn.errorAfterDeltas !== undefined && deltas >= turn.errorAfterDeltas;
  const error = () =>
    sse('error', { error: turn.streamError ?? { type: 'overloaded_error', message: 'Overloaded' } });
  const finish = (withError = false): FakeReply => ({
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' },
    body: [...events, ...(withError ? [error()] : [])].map((e, i) => framed(e, i, turn.framing)).join(''),
  });
  for (const [index, block] of turn.content.entries()) {
    if (block.type === 'thinking') {
      events.push(
        sse('content_block_start', {
          index,
          content_block: { type: 'thinking', thinking: '', signature: '' },
        }),
      );
      for (const piece of block.thinking.match(/\S*\s*/g)!.filter(Boolean)) {
        if (failed()) return finish(true);
        events.push(
          sse('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } }),
        );
        deltas++;
      }
      events.push(
        sse('content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } }),
      );
    } else if (block.type === 'text') {
      events.push(sse('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      if (index === 0) events.push(sse('ping', {}));
      for (const piece of block.text.match(/\S*\s*/g)!.filter(Boolean)) {
        if (failed()) return finish(true);
        events.push(sse('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }));
        deltas++;
      }
    } else {
      events.push(
        sse('content_block_start', {
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        }),
      );
      const json = JSON.stringify(block.input);
      const pieces = [''];
      for (let at = 0; at < json.length; at += 8) pieces.push(json.slice(at, at + 8));
      for (const piece of pieces) {
        if (failed()) return finish(true);
        events.push(
          sse('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } }),
        );
        deltas++;
      }
    }
    events.push(sse('content_block_stop', { index }));
  }
  if (failed()) return finish(true);
  events.push(
    sse('message_delta', {
      delta: { stop_reason: stopReason(turn), stop_sequence: null },
      usage: {
        output_tokens: turn.usage.output_tokens,
        ...(turn.usage.server_tool_use ? { server_tool_use: turn.usage.server_tool_use } : {}),
      },
    }),
  );
  events.push(sse('message_stop', {}));
  return finish();
}

const isObject = (value: unknown): value is Record<string, any> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Anthropic's 400 message for a body it would refuse, or undefined. */
function bodyProblem(body: unknown): string | undefined {
  if (!isObject(body)) return 'request body must be a JSON object';
  for (const field of Object.keys(body))
    if (!TOP_LEVEL.has(field)) return `${field}: Extra inputs are not permitted`;
  if (typeof body.model !== 'string') return 'model: Field required';
  if (!Number.isSafeInteger(body.max_tokens) || body.max_tokens < 1) return 'max_tokens: Field required';
  if (body.system !== undefined && typeof body.system !== 'string' && !Array.isArray(body.system))
    return 'system: Input should be a valid string or list';
  if (body.stop_sequences !== undefined && !Array.isArray(body.stop_sequences))
    return 'stop_sequences: Input should be a valid list';
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return 'messages: at least one message is required';
  let pendingToolUses: string[] = [];
  for (const [i, message] of body.messages.entries()) {
    if (!isObject(message) || (message.role !== 'user' && message.role !== 'assistant'))
      return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    if (i > 0 && body.messages[i - 1].role === message.role)
      return `messages.${i}: roles must alternate between "user" and "assistant"`;
    const blocks =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    if (!Array.isArray(blocks) || blocks.length === 0) return `messages.${i}: content must be non-empty`;
    const results = blocks.filter((b: any) => b?.type === 'tool_result').map((b: any) => b.tool_use_id);
    if (pendingToolUses.some((id) => !results.includes(id)))
      return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${pendingToolUses.join(', ')}`;
    pendingToolUses = [];
    for (const [j, block] of blocks.entries()) {
      const at = `messages.${i}.content.${j}`;
      if (!isObject(block) || !BLOCK_TYPES.has(block.type)) return `${at}: unknown content block type`;
      if (block.type === 'text' && (typeof block.text !== 'string' || block.text === ''))
        return `${at}: text content blocks must be non-empty`;
      if (block.type === 'image') {
        const source = block.source;
        const ok =
          isObject(source) &&
          ((source.type === 'base64' &&
            /^image\/(png|jpeg|gif|webp)$/.test(source.media_type) &&
            typeof source.data === 'string') ||
            (source.type === 'url' && typeof source.url === 'string'));
        if (!ok) return `${at}.source: invalid image source`;
      }
      if (block.type === 'tool_use') {
        if (message.role !== 'assistant')
          return `${at}: tool_use blocks are only allowed in assistant messages`;
        if (typeof block.id !== 'string' || typeof block.name !== 'string' || !isObject(block.input))
          return `${at}: tool_use needs id, name and an object input`;
        pendingToolUses.push(block.id);
      }
      if (block.type === 'tool_result') {
        if (message.role !== 'user') return `${at}: tool_result blocks are only allowed in user messages`;
        if (j > 0 && blocks[j - 1].type !== 'tool_result')
          return `${at}: tool_result blocks must come first in the user message`;
      }
    }
  }
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return 'tools: Input should be a valid list';
    for (const [i, tool] of body.tools.entries())
      if (
        !isObject(tool) ||
        typeof tool.name !== 'string' ||
        ((tool.type === undefined || tool.type === 'custom') && !isObject(tool.input_schema))
      )
        return `tools.${i}: name and input_schema are required`;
  }
  if (body.tool_choice !== undefined) {
    if (!body.tools) return 'tool_choice: may only be specified while providing tools';
    if (!isObject(body.tool_choice) || !['auto', 'any', 'tool', 'none'].includes(body.tool_choice.type))
      return 'tool_choice: invalid type';
  }
  return undefined;
}
