// Validates a POST /v1/chat/completions body. Missing required fields answer 400, wrong types or
// out-of-range values 422 (docs/chat.md). The body reaches the upstream only if every top-level
// field is on the allow-list below (chat-fields.ts): an upstream may bill for a field the gateway does
// not know, so an unknown one is refused (422 unknown_field), never passed on unpriced.
import { AppError } from '../errors.js';
import { checkChatFields, MAX_CHOICES } from './chat-fields.js';
import type { ChatContentPart, ChatFunctionTool, ChatMessage } from './types.js';

export interface ChatRequest {
  /** The client's body as sent (allow-listed fields only): forwarded upstream with only `model` (and a lowered max) rewritten. */
  body: Record<string, unknown>;
  model: string;
  messages: ChatMessage[];
  stream: boolean;
  /** stream_options.include_usage as the client asked; the gateway always asks upstream for usage. */
  includeUsage: boolean;
  /** max_completion_tokens, else max_tokens, else null. */
  maxTokens: number | null;
  imageParts: number;
  tools: ChatFunctionTool[];
  toolChoice: unknown;
  /** `n`: how many choices the upstream generates, each up to the max tokens (1 when absent). */
  choices: number;
  /** UTF-8 bytes of `prediction` (predicted outputs): its rejected tokens are billed as output. */
  predictionBytes: number;
}

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_TOKENS_LIMIT = 10_000_000;

const missing = (param: string) => new AppError('missing_parameter', `${param} is required`, param);
const invalid = (param: string, rule: string) => new AppError('invalid_parameter', `${param} ${rule}`, param);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The model id, checked first so that model errors come before parameter errors. */
export function readChatModel(body: Record<string, unknown>): string {
  const model = body.model;
  if (model === undefined || model === null || model === '')
    throw new AppError('model_name_required', 'model is required', 'model');
  if (typeof model !== 'string') throw invalid('model', 'must be a string');
  return model;
}

export function parseChatRequest(body: Record<string, unknown>): ChatRequest {
  const model = readChatModel(body);
  checkChatFields(body);
  if (body.messages === undefined || body.messages === null) throw missing('messages');
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    throw invalid('messages', 'must be a non-empty array');
  let imageParts = 0;
  const messages = body.messages.map((message, index) => {
    const counted = checkMessage(message, `messages[${index}]`);
    imageParts += counted;
    return message as ChatMessage;
  });

  const stream = optionalBoolean(body.stream, 'stream') ?? false;
  let includeUsage = false;
  if (body.stream_options !== undefined && body.stream_options !== null) {
    if (!isObject(body.stream_options)) throw invalid('stream_options', 'must be an object');
    includeUsage =
      optionalBoolean(body.stream_options.include_usage, 'stream_options.include_usage') ?? false;
  }
  const maxCompletionTokens = optionalTokenCount(body.max_completion_tokens, 'max_completion_tokens');
  const maxTokens = optionalTokenCount(body.max_tokens, 'max_tokens');
  const choices = optionalInteger(body.n, 'n', 1, MAX_CHOICES) ?? 1;

  optionalNumber(body.temperature, 'temperature', 0, 2);
  optionalNumber(body.top_p, 'top_p', 0, 1);
  checkStop(body.stop);
  if (body.response_format !== undefined && body.response_format !== null) {
    if (!isObject(body.response_format) || typeof body.response_format.type !== 'string') {
      throw invalid('response_format', 'must be an object with a string type');
    }
  }
  if (body.user !== undefined && body.user !== null && typeof body.user !== 'string')
    throw invalid('user', 'must be a string');

  return {
    body,
    model,
    messages,
    stream,
    includeUsage,
    maxTokens: maxCompletionTokens ?? maxTokens,
    imageParts,
    tools: checkTools(body.tools),
    toolChoice: checkToolChoice(body.tool_choice),
    choices,
    predictionBytes: predictionBytes(body.prediction),
  };
}

/** `prediction` is {type: "content", content: string | text parts}; its bytes bound its tokens. */
function predictionBytes(value: unknown): number {
  if (value === undefined || value === null) return 0;
  if (!isObject(value) || value.type !== 'content' || value.content === undefined)
    throw invalid('prediction', 'must be {"type": "content", "content": ...}');
  return Buffer.byteLength(JSON.stringify(value.content), 'utf8');
}

function optionalInteger(value: unknown, param: string, min: number, max: number): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw invalid(param, `must be an integer between ${min} and ${max}`);
  return value;
}

/** Returns the number of image parts in the message. */
function checkMessage(message: unknown, path: string): number {
  if (!isObject(message)) throw invalid(path, 'must be an object with role and content');
  if (message.role === undefined || message.role === null) throw missing(`${path}.role`);
  if (typeof message.role !== 'string' || !ROLES.has(message.role)) {
    throw invalid(`${path}.role`, `must be one of ${[...ROLES].join(', ')}`);
  }
  const role = message.role;
  if (message.name !== undefined && typeof message.name !== 'string')
    throw invalid(`${path}.name`, 'must be a string');
  if (role === 'tool' && typeof message.tool_call_id !== 'string') {
    if (message.tool_call_id === undefined || message.tool_call_id === null)
      throw missing(`${path}.tool_call_id`);
    throw invalid(`${path}.tool_call_id`, 'must be a string');
  }
  if (role === 'assistant' && message.tool_calls !== undefined && message.tool_calls !== null)
    checkToolCalls(message.tool_calls, `${path}.tool_calls`);

  const content = message.content;
  if (content === undefined || content === null) {
    // An assistant turn may carry only tool calls (or a legacy function_call).
    if (role === 'assistant' && (message.tool_calls || message.function_call)) return 0;
    throw missing(`${path}.content`);
  }
  if (typeof content === 'string') return 0;
  if (!Array.isArray(content))
    throw invalid(`${path}.content`, 'must be a string or an array of content parts');
  let images = 0;
  content.forEach((part, index) => {
    if (checkPart(part, `${path}.content[${index}]`, role)) images++;
  });
  return images;
}

/** Returns true for an image part. */
function checkPart(part: unknown, path: string, role: string): boolean {
  if (!isObject(part) || typeof part.type !== 'string')
    throw invalid(path, 'must be an object with a string type');
  const typed = part as ChatContentPart;
  if (typed.type === 'text') {
    if (typeof (typed as { text?: unknown }).text !== 'string')
      throw invalid(`${path}.text`, 'must be a string');
    return false;
  }
  if (typed.type === 'image_url') {
    if (role !== 'user') throw invalid(path, 'image parts are only allowed in user messages');
    const image = (typed as { image_url?: unknown }).image_url;
    const url = isObject(image) ? image.url : undefined;
    if (typeof url !== 'string') throw invalid(`${path}.image_url.url`, 'must be a string');
    if (!/^https:\/\/\S+$/i.test(url) && !/^data:image\/[a-z0-9.+-]+;base64,/i.test(url)) {
      throw invalid(`${path}.image_url.url`, 'must be an https URL or a data:image/...;base64 URL');
    }
    return true;
  }
  if (typed.type === 'input_audio')
    throw new AppError(
      'unsupported_parameter',
      `${path}: audio input is not supported: the upstream bills audio tokens at audio prices, which this gateway does not price`,
      path,
    );
  return false;
}

function checkToolCalls(value: unknown, path: string): void {
  if (!Array.isArray(value)) throw invalid(path, 'must be an array');
  value.forEach((call, index) => {
    const at = `${path}[${index}]`;
    if (!isObject(call) || typeof call.id !== 'string' || !isObject(call.function)) {
      throw invalid(at, 'must be {id, type: "function", function: {name, arguments}}');
    }
    if (typeof call.function.name !== 'string' || typeof call.function.arguments !== 'string') {
      throw invalid(`${at}.function`, 'must have a string name and string arguments');
    }
  });
}

function checkTools(value: unknown): ChatFunctionTool[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid('tools', 'must be an array');
  const functions: ChatFunctionTool[] = [];
  value.forEach((tool, index) => {
    const at = `tools[${index}]`;
    if (!isObject(tool) || typeof tool.type !== 'string')
      throw invalid(at, 'must be an object with a string type');
    if (tool.type !== 'function') return;
    const fn = tool.function;
    if (!isObject(fn) || typeof fn.name !== 'string' || !TOOL_NAME.test(fn.name)) {
      throw invalid(`${at}.function.name`, 'must be 1-64 characters of a-z, A-Z, 0-9, _ and -');
    }
    if (fn.parameters !== undefined && !isObject(fn.parameters))
      throw invalid(`${at}.function.parameters`, 'must be a JSON Schema object');
    functions.push(tool as unknown as ChatFunctionTool);
  });
  return functions;
}

function checkToolChoice(value: unknown): unknown {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') {
    if (!['none', 'auto', 'required'].includes(value))
      throw invalid('tool_choice', 'must be none, auto, required or an object');
    return value;
  }
  if (!isObject(value) || typeof value.type !== 'string')
    throw invalid('tool_choice', 'must be none, auto, required or an object');
  if (value.type === 'function' && !(isObject(value.function) && typeof value.function.name === 'string')) {
    throw invalid('tool_choice.function.name', 'must be a string');
  }
  return value;
}

function checkStop(value: unknown): void {
  if (value === undefined || value === null || typeof value === 'string') return;
  if (!Array.isArray(value) || value.length > 4 || !value.every((s) => typeof s === 'string')) {
    throw invalid('stop', 'must be a string or an array of at most 4 strings');
  }
}

function optionalBoolean(value: unknown, param: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw invalid(param, 'must be a boolean');
  return value;
}

function optionalNumber(value: unknown, param: string, min: number, max: number): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw invalid(param, `must be a number between ${min} and ${max}`);
  }
}

function optionalTokenCount(value: unknown, param: string): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_TOKENS_LIMIT) {
    throw invalid(param, `must be an integer between 1 and ${MAX_TOKENS_LIMIT}`);
  }
  return value;
}
