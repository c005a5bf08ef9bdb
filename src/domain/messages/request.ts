// Reads a POST /v1/messages body for what the gateway needs: the model, max_tokens, stream, the
// turn order, the images (vision check), the prompt's size (the hold) and the server tools (their
// prices, or a refusal). Everything else is left as sent: on the pass-through the body reaches
// Anthropic whole. Refusals are 400s (Anthropic answers invalid_request_error for all of them).
import {
  IMAGE_TOKEN_BOUND,
  MESSAGE_TOKEN_BOUND,
  REQUEST_TOKEN_BOUND,
  TOOLS_TOKEN_BOUND,
} from '../chat/prompt-size.js';
import { AppError } from '../errors.js';

export type ServerTool = 'web_search' | 'web_fetch' | 'code_execution' | 'other';

export interface MessagesRequest {
  body: Record<string, unknown>;
  model: string;
  maxTokens: number;
  stream: boolean;
  images: number;
  /** An upper bound of the prompt tokens (cache writes and reads included). */
  promptTokenBound: number;
  /** A deterministic estimate of the prompt tokens, for a stream cut before usage was reported. */
  promptEstimate: number;
  /** Server tools offered, with their max_uses (null: none given). */
  serverTools: { kind: ServerTool; type: string; maxUses: number | null }[];
}

/** Server-tool uses held for a tool without max_uses (Anthropic pauses a turn after about 10). */
export const DEFAULT_SERVER_TOOL_USES = 20;
const MAX_TOKENS_LIMIT = 10_000_000;

const invalid = (message: string, param: string | null = null) =>
  new AppError('invalid_parameter', message, param);
const missing = (param: string) => new AppError('missing_parameter', `${param}: Field required`, param);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The model id, read first so an unknown model answers 404 before the body's other problems. */
export function readMessagesModel(body: Record<string, unknown>): string {
  if (body.model === undefined || body.model === null || body.model === '') throw missing('model');
  if (typeof body.model !== 'string') throw invalid('model: Input should be a valid string', 'model');
  return body.model;
}

/**
 * Tool types Anthropic runs itself (billed per use, or by container time) versus the
 * Anthropic-defined client tools (bash, text_editor, computer, memory: the client runs them).
 */
function serverToolKind(type: string): ServerTool | null {
  if (type === 'custom') return null;
  if (/^(bash|text_editor|computer|memory)_\d{8}$/.test(type)) return null;
  if (type.startsWith('web_search_')) return 'web_search';
  if (type.startsWith('web_fetch_')) return 'web_fetch';
  if (type.startsWith('code_execution_')) return 'code_execution';
  return 'other';
}

export function parseMessagesRequest(body: Record<string, unknown>, rawBytes: number): MessagesRequest {
  const model = readMessagesModel(body);
  if (body.max_tokens === undefined || body.max_tokens === null) throw missing('max_tokens');
  const maxTokens = body.max_tokens;
  if (typeof maxTokens !== 'number' || !Number.isSafeInteger(maxTokens) || maxTokens < 1)
    throw invalid('max_tokens: Input should be a positive integer', 'max_tokens');
  if (maxTokens > MAX_TOKENS_LIMIT)
    throw invalid(`max_tokens: must be at most ${MAX_TOKENS_LIMIT}`, 'max_tokens');
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean')
    throw invalid('stream: Input should be a valid boolean', 'stream');
  if (body.messages === undefined || body.messages === null) throw missing('messages');
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    throw invalid('messages: at least one message is required', 'messages');
  if (
    body.system !== undefined &&
    body.system !== null &&
    typeof body.system !== 'string' &&
    !Array.isArray(body.system)
  )
    throw invalid('system: Input should be a valid string or a list of text blocks', 'system');

  let images = 0;
  let imageDataBytes = 0;
  const countImage = (block: Record<string, unknown>) => {
    images++;
    const source = block.source;
    if (isObject(source) && typeof source.data === 'string') imageDataBytes += source.data.length;
  };
  for (const [i, message] of body.messages.entries()) {
    if (!isObject(message)) throw invalid(`messages.${i}: Input should be an object`, 'messages');
    const { role, content } = message;
    if (role !== 'user' && role !== 'assistant')
      throw invalid(
        `messages.${i}.role: Input should be 'user' or 'assistant'${role === 'system' ? ' (use the top-level system parameter)' : ''}`,
        'messages',
      );
    if (i === 0 && role !== 'user')
      throw invalid('messages.0: the first message must use the "user" role', 'messages');
    if (typeof content === 'string') continue;
    if (!Array.isArray(content))
      throw invalid(`messages.${i}.content: Input should be a string or a list of blocks`, 'messages');
    for (const [j, block] of content.entries()) {
      if (!isObject(block) || typeof block.type !== 'string')
        throw invalid(`messages.${i}.content.${j}: a content block needs a type`, 'messages');
      if (block.type === 'tool_use' && role !== 'assistant')
        throw invalid(
          `messages.${i}.content.${j}: tool_use blocks are only allowed in assistant messages`,
          'messages',
        );
      if (block.type === 'tool_result' && role !== 'user')
        throw invalid(
          `messages.${i}.content.${j}: tool_result blocks are only allowed in user messages`,
          'messages',
        );
      if (block.type === 'image') countImage(block);
      if (block.type === 'tool_result' && Array.isArray(block.content))
        for (const inner of block.content) if (isObject(inner) && inner.type === 'image') countImage(inner);
    }
  }

  const serverTools: MessagesRequest['serverTools'] = [];
  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools)) throw invalid('tools: Input should be a valid list', 'tools');
    for (const [i, tool] of body.tools.entries()) {
      if (!isObject(tool)) throw invalid(`tools.${i}: Input should be an object`, 'tools');
      if (tool.type === undefined || tool.type === null) continue;
      if (typeof tool.type !== 'string') throw invalid(`tools.${i}.type: Input should be a string`, 'tools');
      const kind = serverToolKind(tool.type);
      if (kind === null) continue;
      const maxUses =
        typeof tool.max_uses === 'number' && Number.isSafeInteger(tool.max_uses) && tool.max_uses >= 0
          ? tool.max_uses
          : null;
      serverTools.push({ kind, type: tool.type, maxUses });
    }
  }
  const messages = body.messages.length;
  const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
  // Every token spans at least one UTF-8 byte, so the body's bytes bound the text it carries; the
  // base64 of an image is replaced by the per-image allowance (its tokens come from its pixels).
  const promptTokenBound =
    Math.max(0, rawBytes - imageDataBytes) +
    images * IMAGE_TOKEN_BOUND +
    messages * MESSAGE_TOKEN_BOUND +
    (hasTools ? TOOLS_TOKEN_BOUND : 0) +
    REQUEST_TOKEN_BOUND;
  // 4 bytes per token of what is not image data, as the chat estimate does.
  const promptEstimate =
    Math.ceil(Math.max(0, rawBytes - imageDataBytes) / 4) + images * 85 + messages * 4 + 3;
  return {
    body,
    model,
    maxTokens,
    stream: body.stream === true,
    images,
    promptTokenBound,
    promptEstimate: Math.min(promptEstimate, promptTokenBound),
    serverTools,
  };
}
