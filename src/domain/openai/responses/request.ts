// Translates a POST /v1/responses body into the chat-completions body that POST /v1/chat/completions
// takes, so both endpoints share one validation, hold, upstream call and settlement. Errors name the
// Responses parameter (`input[2].content[0].image_url`), not the chat field it became.
// Nothing is stored between requests: whatever needs a stored response (previous_response_id,
// item_reference, conversation, background) is refused, never silently dropped.
import { AppError } from '../../errors.js';

/** The request fields a Response object repeats back (OpenAI's response echoes its parameters). */
export interface ResponseEcho {
  instructions: string | null;
  max_output_tokens: number | null;
  metadata: Record<string, string>;
  parallel_tool_calls: boolean;
  temperature: number | null;
  top_p: number | null;
  tool_choice: unknown;
  tools: unknown[];
  text: { format: Record<string, unknown>; verbosity?: string };
  reasoning: { effort: string | null; summary: null };
  user?: string;
}

export interface ResponsesRequest {
  /** The equivalent POST /v1/chat/completions body. */
  chatBody: Record<string, unknown>;
  stream: boolean;
  echo: ResponseEcho;
}

/**
 * Invalid values answer invalid_parameter (422, the catalog's code for a well-formed request the
 * gateway will not serve), as for chat. Kept as one constant in case a 400 code is added.
 */
const UNSUPPORTED = 'unsupported_parameter' as const;
const unsupported = (param: string, message: string) => new AppError(UNSUPPORTED, message, param);
const missing = (param: string) => new AppError('missing_parameter', `${param} is required`, param);
const invalid = (param: string, rule: string) => new AppError('invalid_parameter', `${param} ${rule}`, param);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isSet = (value: unknown) => value !== undefined && value !== null;

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_TOKENS_LIMIT = 10_000_000;
const NOT_STORED =
  'gengate keeps no responses (every response is store: false), so there is nothing to refer back to; send the whole conversation in input';

/** Parameters the Responses API defines. Anything else is a typo or a newer feature: 422. */
const KNOWN_FIELDS = new Set([
  'model',
  'input',
  'instructions',
  'max_output_tokens',
  'temperature',
  'top_p',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'stream',
  'stream_options',
  'store',
  'metadata',
  'include',
  'text',
  'reasoning',
  'user',
  'safety_identifier',
  'prompt_cache_key',
  'prompt_cache_retention',
  'prompt_cache_options',
  'service_tier',
  'truncation',
  'previous_response_id',
  'conversation',
  'background',
  'prompt',
  'max_tool_calls',
  'top_logprobs',
  'context_management',
  'moderation',
]);

/** Set to anything but null/false, these need server-side state or features gengate does not run. */
const REFUSED_FIELDS: Record<string, string> = {
  previous_response_id: `previous_response_id is not supported: ${NOT_STORED}`,
  conversation: `conversation is not supported: ${NOT_STORED}`,
  background: 'background mode is not supported: send the request without background and wait, or stream it',
  prompt: 'stored prompt templates are not supported: send instructions and input instead',
  context_management: 'context_management is not supported',
  max_tool_calls: 'max_tool_calls is not supported',
  top_logprobs: 'top_logprobs is not supported on /v1/responses; use /v1/chat/completions',
  moderation: 'moderation is not supported',
};

/** Plain chat fields of the same name and meaning, forwarded upstream as given. */
const FORWARDED_FIELDS = ['user', 'safety_identifier', 'prompt_cache_key', 'service_tier'] as const;

export function parseResponsesRequest(body: Record<string, unknown>): ResponsesRequest {
  for (const field of Object.keys(body)) {
    if (!KNOWN_FIELDS.has(field)) throw new AppError('unknown_field', `Unknown parameter: ${field}`, field);
  }
  for (const [field, message] of Object.entries(REFUSED_FIELDS)) {
    if (isSet(body[field]) && body[field] !== false) throw unsupported(field, message);
  }
  if (isSet(body.truncation) && body.truncation !== 'disabled')
    throw unsupported('truncation', 'only truncation "disabled" is supported: the input is never cut');

  const stream = optionalBoolean(body.stream, 'stream') ?? false;
  optionalBoolean(body.store, 'store');
  optionalBoolean(body.parallel_tool_calls, 'parallel_tool_calls');
  if (isSet(body.stream_options) && !isObject(body.stream_options))
    throw invalid('stream_options', 'must be an object');
  if (
    isSet(body.include) &&
    !(Array.isArray(body.include) && body.include.every((v) => typeof v === 'string'))
  )
    throw invalid('include', 'must be an array of strings');
  const instructions = optionalString(body.instructions, 'instructions');
  const metadata = readMetadata(body.metadata);
  const maxOutputTokens = optionalTokenCount(body.max_output_tokens, 'max_output_tokens');
  const temperature = optionalNumber(body.temperature, 'temperature', 0, 2);
  const topP = optionalNumber(body.top_p, 'top_p', 0, 1);
  const tools = readTools(body.tools);
  const toolChoice = readToolChoice(body.tool_choice);
  const text = readText(body.text);
  const effort = readReasoning(body.reasoning);

  const messages: Record<string, unknown>[] = [];
  if (instructions !== null) messages.push({ role: 'system', content: instructions });
  messages.push(...readInput(body.input));

  const chatBody: Record<string, unknown> = { model: body.model, messages };
  if (stream) {
    chatBody.stream = true;
    // The usage chunk becomes response.completed's usage.
    chatBody.stream_options = { include_usage: true };
  }
  if (maxOutputTokens !== null) chatBody.max_completion_tokens = maxOutputTokens;
  if (temperature !== null) chatBody.temperature = temperature;
  if (topP !== null) chatBody.top_p = topP;
  if (tools.length > 0) chatBody.tools = tools.map((tool) => tool.chat);
  if (toolChoice !== undefined) chatBody.tool_choice = toolChoice.chat;
  if (isSet(body.parallel_tool_calls)) chatBody.parallel_tool_calls = body.parallel_tool_calls;
  if (text.responseFormat) chatBody.response_format = text.responseFormat;
  if (text.verbosity) chatBody.verbosity = text.verbosity;
  if (effort !== null) chatBody.reasoning_effort = effort;
  for (const field of FORWARDED_FIELDS) {
    if (!isSet(body[field])) continue;
    if (typeof body[field] !== 'string') throw invalid(field, 'must be a string');
    chatBody[field] = body[field];
  }

  return {
    chatBody,
    stream,
    echo: {
      instructions,
      max_output_tokens: maxOutputTokens,
      metadata,
      parallel_tool_calls: (body.parallel_tool_calls as boolean | null | undefined) ?? true,
      temperature,
      top_p: topP,
      tool_choice: toolChoice?.echo ?? 'auto',
      tools: tools.map((tool) => tool.echo),
      text: { format: text.format, ...(text.verbosity ? { verbosity: text.verbosity } : {}) },
      reasoning: { effort, summary: null },
      ...(typeof body.user === 'string' ? { user: body.user } : {}),
    },
  };
}

function readInput(input: unknown): Record<string, unknown>[] {
  if (input === undefined || input === null) throw missing('input');
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  if (!Array.isArray(input) || input.length === 0)
    throw invalid('input', 'must be a string or a non-empty array of input items');
  const messages: Record<string, unknown>[] = [];
  const callIds = new Set<string>();
  input.forEach((item, index) => {
    const at = `input[${index}]`;
    if (!isObject(item)) throw invalid(at, 'must be an object');
    const type = item.type ?? 'message';
    if (type === 'message') {
      messages.push(readMessage(item, at));
    } else if (type === 'function_call') {
      const call = readFunctionCall(item, at);
      callIds.add(call.id);
      // Calls that follow an assistant turn (or each other) belong to that one turn, as in chat.
      const last = messages.at(-1);
      if (last?.role === 'assistant') {
        last.tool_calls = [...((last.tool_calls as unknown[]) ?? []), call];
      } else {
        messages.push({ role: 'assistant', content: null, tool_calls: [call] });
      }
    } else if (type === 'function_call_output') {
      messages.push(readFunctionCallOutput(item, at, callIds));
    } else if (type === 'item_reference') {
      throw unsupported(
        at,
        `item_reference is not supported: ${NOT_STORED}. With the AI SDK, set providerOptions.openai.store = false so it sends the items themselves`,
      );
    } else if (type === 'reasoning') {
      throw unsupported(`${at}.type`, 'reasoning items are not supported: leave them out of input');
    } else {
      throw unsupported(
        `${at}.type`,
        `input items of type ${String(type)} are not supported; use message, function_call and function_call_output`,
      );
    }
  });
  return messages;
}

const MESSAGE_ROLES = new Set(['user', 'assistant', 'system', 'developer']);

function readMessage(item: Record<string, unknown>, at: string): Record<string, unknown> {
  if (!isSet(item.role)) throw missing(`${at}.role`);
  if (typeof item.role !== 'string' || !MESSAGE_ROLES.has(item.role))
    throw invalid(`${at}.role`, 'must be one of user, assistant, system, developer');
  const role = item.role;
  const content = item.content;
  if (!isSet(content)) throw missing(`${at}.content`);
  if (typeof content === 'string') return { role, content };
  if (!Array.isArray(content))
    throw invalid(`${at}.content`, 'must be a string or an array of content parts');
  if (role === 'assistant') {
    // An assistant turn replayed from an earlier response: its text (and refusals) as one string.
    const texts = content.map((part, index) => assistantText(part, `${at}.content[${index}]`));
    return { role, content: texts.join('') };
  }
  return { role, content: content.map((part, index) => inputPart(part, `${at}.content[${index}]`, role)) };
}

function assistantText(part: unknown, at: string): string {
  if (!isObject(part) || typeof part.type !== 'string')
    throw invalid(at, 'must be an object with a string type');
  if ((part.type === 'output_text' || part.type === 'input_text') && typeof part.text === 'string')
    return part.text;
  if (part.type === 'refusal' && typeof part.refusal === 'string') return part.refusal;
  throw invalid(at, 'must be an output_text part with text (or a refusal) in an assistant message');
}

function inputPart(part: unknown, at: string, role: string): Record<string, unknown> {
  if (!isObject(part) || typeof part.type !== 'string')
    throw invalid(at, 'must be an object with a string type');
  if (part.type === 'input_text') {
    if (typeof part.text !== 'string') throw invalid(`${at}.text`, 'must be a string');
    return { type: 'text', text: part.text };
  }
  if (part.type === 'input_image') {
    if (role !== 'user') throw invalid(at, 'image parts are only allowed in user messages');
    if (isSet(part.file_id))
      throw unsupported(`${at}.file_id`, 'file_id is not supported (there is no Files API): send image_url');
    const url = part.image_url;
    if (typeof url !== 'string') throw missing(`${at}.image_url`);
    if (!/^https:\/\/\S+$/i.test(url) && !/^data:image\/[a-z0-9.+-]+;base64,/i.test(url))
      throw invalid(`${at}.image_url`, 'must be an https URL or a data:image/...;base64 URL');
    const detail = part.detail;
    if (isSet(detail) && !['low', 'high', 'auto'].includes(detail as string))
      throw invalid(`${at}.detail`, 'must be low, high or auto');
    return { type: 'image_url', image_url: { url, ...(isSet(detail) ? { detail } : {}) } };
  }
  throw unsupported(
    `${at}.type`,
    `content parts of type ${part.type} are not supported; use input_text and input_image`,
  );
}

function readFunctionCall(item: Record<string, unknown>, at: string) {
  for (const field of ['call_id', 'name', 'arguments']) {
    if (!isSet(item[field])) throw missing(`${at}.${field}`);
    if (typeof item[field] !== 'string') throw invalid(`${at}.${field}`, 'must be a string');
  }
  return {
    id: item.call_id as string,
    type: 'function',
    function: { name: item.name as string, arguments: item.arguments as string },
  };
}

function readFunctionCallOutput(
  item: Record<string, unknown>,
  at: string,
  callIds: Set<string>,
): Record<string, unknown> {
  if (!isSet(item.call_id)) throw missing(`${at}.call_id`);
  if (typeof item.call_id !== 'string') throw invalid(`${at}.call_id`, 'must be a string');
  if (!callIds.has(item.call_id))
    throw invalid(`${at}.call_id`, `matches no earlier function_call item (${item.call_id})`);
  const output = item.output;
  if (!isSet(output)) throw missing(`${at}.output`);
  let content: unknown;
  if (typeof output === 'string') content = output;
  else if (Array.isArray(output)) {
    content = output.map((part, index) => {
      const partAt = `${at}.output[${index}]`;
      if (isObject(part) && part.type === 'input_text' && typeof part.text === 'string')
        return { type: 'text', text: part.text };
      throw unsupported(partAt, 'a function_call_output carries text only (a string or input_text parts)');
    });
  } else throw invalid(`${at}.output`, 'must be a string or an array of input_text parts');
  return { role: 'tool', tool_call_id: item.call_id, content };
}

interface MappedTool {
  chat: Record<string, unknown>;
  echo: Record<string, unknown>;
}

function readTools(value: unknown): MappedTool[] {
  if (!isSet(value)) return [];
  if (!Array.isArray(value)) throw invalid('tools', 'must be an array');
  return value.map((tool, index) => {
    const at = `tools[${index}]`;
    if (!isObject(tool) || typeof tool.type !== 'string')
      throw invalid(at, 'must be an object with a string type');
    if (tool.type !== 'function') {
      throw unsupported(
        `${at}.type`,
        `built-in tools (${tool.type}) are not supported: only function tools, which your code runs`,
      );
    }
    if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name))
      throw invalid(`${at}.name`, 'must be 1-64 characters of a-z, A-Z, 0-9, _ and -');
    if (isSet(tool.parameters) && !isObject(tool.parameters))
      throw invalid(`${at}.parameters`, 'must be a JSON Schema object');
    if (isSet(tool.description) && typeof tool.description !== 'string')
      throw invalid(`${at}.description`, 'must be a string');
    const strict = optionalBoolean(tool.strict, `${at}.strict`);
    const fn: Record<string, unknown> = { name: tool.name };
    if (isSet(tool.description)) fn.description = tool.description;
    if (isSet(tool.parameters)) fn.parameters = tool.parameters;
    if (strict !== undefined) fn.strict = strict;
    return {
      chat: { type: 'function', function: fn },
      echo: {
        type: 'function',
        name: tool.name,
        description: tool.description ?? null,
        parameters: tool.parameters ?? null,
        strict: strict ?? null,
      },
    };
  });
}

function readToolChoice(value: unknown): { chat: unknown; echo: unknown } | undefined {
  if (!isSet(value)) return undefined;
  if (typeof value === 'string') {
    if (!['none', 'auto', 'required'].includes(value))
      throw invalid('tool_choice', 'must be none, auto, required or {type: "function", name}');
    return { chat: value, echo: value };
  }
  if (isObject(value) && value.type === 'function') {
    if (typeof value.name !== 'string') throw invalid('tool_choice.name', 'must be a string');
    return {
      chat: { type: 'function', function: { name: value.name } },
      echo: { type: 'function', name: value.name },
    };
  }
  throw unsupported('tool_choice', 'tool_choice must be none, auto, required or {type: "function", name}');
}

function readText(value: unknown): {
  format: Record<string, unknown>;
  responseFormat?: Record<string, unknown>;
  verbosity?: string;
} {
  if (!isSet(value)) return { format: { type: 'text' } };
  if (!isObject(value)) throw invalid('text', 'must be an object');
  const verbosity = optionalString(value.verbosity, 'text.verbosity') ?? undefined;
  const format = value.format;
  if (!isSet(format)) return { format: { type: 'text' }, verbosity };
  if (!isObject(format) || typeof format.type !== 'string')
    throw invalid('text.format', 'must be an object with a string type');
  if (format.type === 'text') return { format: { type: 'text' }, verbosity };
  if (format.type === 'json_object') return { format, responseFormat: { type: 'json_object' }, verbosity };
  if (format.type === 'json_schema') {
    if (typeof format.name !== 'string') throw invalid('text.format.name', 'must be a string');
    if (!isObject(format.schema)) throw invalid('text.format.schema', 'must be a JSON Schema object');
    const { type: _type, ...schema } = format;
    return { format, responseFormat: { type: 'json_schema', json_schema: schema }, verbosity };
  }
  throw invalid('text.format.type', 'must be text, json_object or json_schema');
}

function readReasoning(value: unknown): string | null {
  if (!isSet(value)) return null;
  if (!isObject(value)) throw invalid('reasoning', 'must be an object');
  for (const field of ['summary', 'generate_summary']) {
    if (isSet(value[field])) throw unsupported(`reasoning.${field}`, 'reasoning summaries are not supported');
  }
  return optionalString(value.effort, 'reasoning.effort');
}

function readMetadata(value: unknown): Record<string, string> {
  if (!isSet(value)) return {};
  if (!isObject(value) || !Object.values(value).every((v) => typeof v === 'string'))
    throw invalid('metadata', 'must be an object of string values');
  return value as Record<string, string>;
}

function optionalBoolean(value: unknown, param: string): boolean | undefined {
  if (!isSet(value)) return undefined;
  if (typeof value !== 'boolean') throw invalid(param, 'must be a boolean');
  return value;
}

function optionalString(value: unknown, param: string): string | null {
  if (!isSet(value)) return null;
  if (typeof value !== 'string') throw invalid(param, 'must be a string');
  return value;
}

function optionalNumber(value: unknown, param: string, min: number, max: number): number | null {
  if (!isSet(value)) return null;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max)
    throw invalid(param, `must be a number between ${min} and ${max}`);
  return value;
}

function optionalTokenCount(value: unknown, param: string): number | null {
  if (!isSet(value)) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_TOKENS_LIMIT)
    throw invalid(param, `must be an integer between 1 and ${MAX_TOKENS_LIMIT}`);
  return value;
}
