// An OpenAI chat-completions body (as the gateway prepared it) → an Anthropic Messages request.
// The body was already validated by domain/chat/request.ts; what the Messages API cannot express
// answers 422 here, before any network call, instead of being dropped without a word.
import type { ChatContentPart, ChatMessage, ChatToolCall } from '../../domain/chat/types.js';
import { AppError } from '../../domain/errors.js';
import type {
  ContentBlock,
  ImageBlock,
  MessageParam,
  MessagesRequest,
  TextBlock,
  ToolChoice,
  ToolParam,
} from './wire.js';

export interface RequestDefaults {
  /** max_tokens when the client gave neither max_completion_tokens nor max_tokens (Anthropic requires one). */
  maxTokens: number;
}

const invalid = (param: string, rule: string) => new AppError('invalid_parameter', `${param} ${rule}`, param);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function toMessagesRequest(body: Record<string, unknown>, defaults: RequestDefaults): MessagesRequest {
  refuseInexpressible(body);
  const { system, messages } = toMessages(body.messages as ChatMessage[]);
  const request: MessagesRequest = {
    model: String(body.model),
    max_tokens: tokenLimit(body.max_completion_tokens) ?? tokenLimit(body.max_tokens) ?? defaults.maxTokens,
    messages,
  };
  if (system) request.system = system;
  if (typeof body.temperature === 'number') request.temperature = body.temperature;
  if (typeof body.top_p === 'number') request.top_p = body.top_p;
  if (typeof body.top_k === 'number') request.top_k = body.top_k;
  if (typeof body.stop === 'string') request.stop_sequences = [body.stop];
  else if (Array.isArray(body.stop) && body.stop.length > 0) request.stop_sequences = body.stop as string[];
  if (body.stream === true) request.stream = true;
  if (typeof body.user === 'string' && body.user) request.metadata = { user_id: body.user };
  const tools = toTools(body.tools);
  const choice = toToolChoice(body.tool_choice, body.parallel_tool_calls === false);
  // Anthropic refuses a tool_choice without tools; OpenAI clients send one anyway at times.
  if (tools.length > 0) {
    request.tools = tools;
    if (choice) request.tool_choice = choice;
  }
  return request;
}

/** Fields whose meaning Claude cannot honour; sampling knobs it has no equivalent for are dropped. */
function refuseInexpressible(body: Record<string, unknown>): void {
  if (body.n !== undefined && body.n !== null && body.n !== 1)
    throw invalid('n', 'must be 1 for Claude models (one choice per request)');
  const format = body.response_format;
  if (isObject(format) && format.type !== 'text') {
    throw invalid(
      'response_format',
      `type ${String(format.type)} is not supported for Claude models; describe the JSON in the prompt or use a tool`,
    );
  }
  if (body.logprobs === true) throw invalid('logprobs', 'is not supported for Claude models');
  if (Array.isArray(body.modalities) && body.modalities.some((m) => m !== 'text'))
    throw invalid('modalities', 'must be ["text"] for Claude models');
}

function tokenLimit(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

function toMessages(input: ChatMessage[]): { system: string; messages: MessageParam[] } {
  const system: string[] = [];
  const messages: MessageParam[] = [];
  const push = (role: MessageParam['role'], blocks: ContentBlock[]) => {
    const last = messages.at(-1);
    // Anthropic wants user and assistant turns to alternate: consecutive turns of one role merge,
    // which also gathers consecutive tool results into one user message.
    if (last && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  input.forEach((message, index) => {
    const at = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
        // Claude has one system prompt: every system/developer message joins it, in order.
        system.push(textOf(message.content, `${at}.content`));
        return;
      case 'user':
        push('user', userBlocks(message.content, `${at}.content`));
        return;
      case 'assistant':
        push('assistant', assistantBlocks(message, at));
        return;
      case 'tool':
        push('user', [
          {
            type: 'tool_result',
            tool_use_id: String(message.tool_call_id),
            content: textOf(message.content, `${at}.content`),
          },
        ]);
        return;
      default:
        throw invalid(`${at}.role`, `${message.role} is not supported for Claude models; use tool messages`);
    }
  });
  return { system: system.filter(Boolean).join('\n\n'), messages };
}

/** The text of a system, developer or tool message: a string, or its text parts joined. */
function textOf(content: ChatMessage['content'], at: string): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part, index) => {
      if (part.type !== 'text')
        throw invalid(`${at}[${index}]`, 'must be a text part for Claude models in this role');
      return (part as TextBlock).text;
    })
    .join('\n');
}

function userBlocks(content: ChatMessage['content'], at: string): ContentBlock[] {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  const blocks: ContentBlock[] = [];
  (content ?? []).forEach((part, index) => {
    const block = partBlock(part, `${at}[${index}]`);
    if (block) blocks.push(block);
  });
  return blocks;
}

function partBlock(part: ChatContentPart, at: string): ContentBlock | undefined {
  switch (part.type) {
    case 'text': {
      const text = (part as TextBlock).text;
      // Anthropic refuses empty text blocks.
      return text ? { type: 'text', text } : undefined;
    }
    case 'image_url':
      return imageBlock((part as { image_url: { url: string } }).image_url.url);
    case 'file': {
      const file = isObject(part.file) ? part.file : {};
      const data =
        typeof file.file_data === 'string'
          ? /^data:application\/pdf;base64,(.*)$/s.exec(file.file_data)
          : null;
      if (!data)
        throw invalid(
          `${at}.file`,
          'must carry file_data as a data:application/pdf;base64 URL for Claude models',
        );
      return {
        type: 'document',
        source: { type: 'base64', media_type: 'application/pdf', data: data[1] },
        ...(typeof file.filename === 'string' ? { title: file.filename } : {}),
      };
    }
    default:
      throw invalid(`${at}.type`, `${part.type} parts are not supported for Claude models`);
  }
}

function imageBlock(url: string): ImageBlock {
  const inline = /^data:(image\/[a-z0-9.+-]+);base64,(.*)$/is.exec(url);
  if (inline)
    return {
      type: 'image',
      source: { type: 'base64', media_type: inline[1].toLowerCase(), data: inline[2] },
    };
  return { type: 'image', source: { type: 'url', url } };
}

function assistantBlocks(message: ChatMessage, at: string): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  const content = message.content;
  if (typeof content === 'string') {
    if (content) blocks.push({ type: 'text', text: content });
  } else if (Array.isArray(content)) {
    content.forEach((part, index) => {
      // An assistant part is text or a refusal; both are what Claude said.
      const text = part.type === 'refusal' ? part.refusal : (part as Partial<TextBlock>).text;
      if (part.type !== 'text' && part.type !== 'refusal')
        throw invalid(`${at}.content[${index}]`, 'must be a text part for Claude models');
      if (typeof text === 'string' && text) blocks.push({ type: 'text', text });
    });
  }
  (message.tool_calls ?? []).forEach((call, index) => {
    blocks.push({
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: toolInput(call, `${at}.tool_calls[${index}]`),
    });
  });
  return blocks;
}

function toolInput(call: ChatToolCall, at: string): unknown {
  const text = call.function.arguments.trim();
  if (!text) return {};
  try {
    const input = JSON.parse(text);
    if (isObject(input)) return input;
  } catch {
    // fall through
  }
  throw invalid(`${at}.function.arguments`, 'must be a JSON object for Claude models');
}

function toTools(value: unknown): ToolParam[] {
  if (!Array.isArray(value)) return [];
  return value.map((tool, index) => {
    if (!isObject(tool) || tool.type !== 'function' || !isObject(tool.function))
      throw invalid(`tools[${index}].type`, 'must be function for Claude models');
    const fn = tool.function;
    return {
      name: String(fn.name),
      ...(typeof fn.description === 'string' ? { description: fn.description } : {}),
      input_schema: isObject(fn.parameters) ? fn.parameters : { type: 'object', properties: {} },
    };
  });
}

function toToolChoice(value: unknown, oneCallOnly: boolean): ToolChoice | undefined {
  const single = oneCallOnly ? { disable_parallel_tool_use: true } : {};
  if (value === 'none') return { type: 'none' };
  if (value === 'required') return { type: 'any', ...single };
  if (isObject(value) && value.type === 'function' && isObject(value.function))
    return { type: 'tool', name: String(value.function.name), ...single };
  if (value === 'auto' || oneCallOnly) return { type: 'auto', ...single };
  if (value === undefined || value === null) return undefined;
  throw invalid('tool_choice', 'must be none, auto, required or a function for Claude models');
}
