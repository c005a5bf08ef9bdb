// A Messages request → the chat-completions body it means, for models served by chat upstreams
// (GPT models, Claude on an openai-type route, the simulator):
//   system (string or text blocks)  → a leading system message
//   user text / image blocks         → content parts (base64 → a data: URL)
//   user tool_result blocks          → tool messages, before the rest of that user turn
//   assistant text / tool_use        → content / tool_calls (input → JSON arguments)
//   thinking, redacted_thinking      → dropped (a chat upstream cannot take them back)
//   tools (custom) / tool_choice     → function tools / auto, required, a named function, none
//   stop_sequences → stop; temperature, top_p as is; max_tokens → max_completion_tokens (at most the
//   model's own limit: Claude Code asks for 32,000, more than some GPT models accept); metadata dropped
// Blocks or tools a chat upstream cannot take (documents, server tools) are refused with 400.
import { AppError } from '../errors.js';

const isObject = (value: unknown): value is Record<string, any> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const refuse = (message: string) => new AppError('invalid_parameter', message);

type ChatPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

function imagePart(block: Record<string, any>, at: string): ChatPart {
  const source = block.source;
  if (isObject(source) && source.type === 'base64' && typeof source.data === 'string')
    return { type: 'image_url', image_url: { url: `data:${source.media_type};base64,${source.data}` } };
  if (isObject(source) && source.type === 'url' && typeof source.url === 'string')
    return { type: 'image_url', image_url: { url: source.url } };
  throw refuse(`${at}.source: an image needs a base64 or url source`);
}

function blocksOf(content: unknown): Record<string, any>[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : (content as Record<string, any>[]);
}

function toolResultContent(block: Record<string, any>, at: string): string | ChatPart[] {
  const content = block.content;
  let result: string | ChatPart[];
  if (content === undefined || content === null) result = '';
  else if (typeof content === 'string') result = content;
  else if (Array.isArray(content))
    result = content.map((inner, k) => {
      if (inner?.type === 'text') return { type: 'text', text: String(inner.text ?? '') } as ChatPart;
      if (inner?.type === 'image') return imagePart(inner, `${at}.content.${k}`);
      throw refuse(
        `${at}.content.${k}: ${inner?.type} blocks are not supported in a tool result on this model`,
      );
    });
  else throw refuse(`${at}.content: Input should be a string or a list of blocks`);
  if (block.is_error === true) {
    const text =
      typeof result === 'string' ? result : result.map((p) => (p.type === 'text' ? p.text : '')).join('');
    return `Error: ${text}`;
  }
  return result;
}

function userMessages(content: unknown, at: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const parts: ChatPart[] = [];
  for (const [j, block] of blocksOf(content).entries()) {
    const where = `${at}.content.${j}`;
    switch (block.type) {
      case 'text':
        parts.push({ type: 'text', text: String(block.text ?? '') });
        break;
      case 'image':
        parts.push(imagePart(block, where));
        break;
      case 'tool_result':
        out.push({
          role: 'tool',
          tool_call_id: String(block.tool_use_id),
          content: toolResultContent(block, where),
        });
        break;
      default:
        throw refuse(
          `${where}: ${block.type} blocks are only supported on Claude models routed to Anthropic`,
        );
    }
  }
  if (parts.length > 0)
    out.push({
      role: 'user',
      content: parts.every((p) => p.type === 'text')
        ? parts.map((p) => (p as { text: string }).text).join('\n')
        : parts,
    });
  return out;
}

function assistantMessage(content: unknown, at: string): Record<string, unknown> {
  const texts: string[] = [];
  const toolCalls: Record<string, unknown>[] = [];
  for (const [j, block] of blocksOf(content).entries()) {
    if (block.type === 'text') texts.push(String(block.text ?? ''));
    else if (block.type === 'tool_use')
      toolCalls.push({
        id: String(block.id),
        type: 'function',
        function: { name: String(block.name), arguments: JSON.stringify(block.input ?? {}) },
      });
    else if (block.type === 'thinking' || block.type === 'redacted_thinking') continue;
    else
      throw refuse(
        `${at}.content.${j}: ${block.type} blocks are only supported on Claude models routed to Anthropic`,
      );
  }
  return {
    role: 'assistant',
    content: texts.length > 0 ? texts.join('') : null,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  };
}

function systemText(system: unknown): string | null {
  if (system === undefined || system === null) return null;
  if (typeof system === 'string') return system;
  return (system as Record<string, any>[])
    .map((block, i) => {
      if (block?.type !== 'text') throw refuse(`system.${i}: only text blocks are supported`);
      return String(block.text ?? '');
    })
    .join('\n');
}

function toolChoice(choice: unknown): { tool_choice?: unknown; parallel_tool_calls?: boolean } {
  if (!isObject(choice)) return {};
  const parallel = choice.disable_parallel_tool_use === true ? { parallel_tool_calls: false } : {};
  switch (choice.type) {
    case 'auto':
      return { tool_choice: 'auto', ...parallel };
    case 'any':
      return { tool_choice: 'required', ...parallel };
    case 'none':
      return { tool_choice: 'none' };
    case 'tool':
      return { tool_choice: { type: 'function', function: { name: String(choice.name) } }, ...parallel };
    default:
      throw refuse('tool_choice.type: Input should be auto, any, tool or none');
  }
}

/** The chat body for `body` (already checked by parseMessagesRequest). */
export function messagesToChatBody(
  body: Record<string, any>,
  maxCompletionTokens: number,
): Record<string, unknown> {
  const messages: Record<string, unknown>[] = [];
  const system = systemText(body.system);
  if (system !== null && system !== '') messages.push({ role: 'system', content: system });
  for (const [i, message] of (body.messages as Record<string, any>[]).entries()) {
    if (message.role === 'user') messages.push(...userMessages(message.content, `messages.${i}`));
    else messages.push(assistantMessage(message.content, `messages.${i}`));
  }
  const chat: Record<string, unknown> = {
    model: body.model,
    messages,
    max_completion_tokens: Math.min(body.max_tokens, maxCompletionTokens),
  };
  if (body.stream === true) {
    chat.stream = true;
    chat.stream_options = { include_usage: true };
  }
  if (typeof body.temperature === 'number') chat.temperature = body.temperature;
  if (typeof body.top_p === 'number') chat.top_p = body.top_p;
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.length > 0) chat.stop = body.stop_sequences;
  if (Array.isArray(body.tools) && body.tools.length > 0) {
    chat.tools = body.tools.map((tool: Record<string, any>, i: number) => {
      if (tool.type !== undefined && tool.type !== null && tool.type !== 'custom')
        throw refuse(`tools.${i}: ${tool.type} is only supported on Claude models routed to Anthropic`);
      if (typeof tool.name !== 'string' || !isObject(tool.input_schema))
        throw refuse(`tools.${i}: name and input_schema are required`);
      return {
        type: 'function',
        function: {
          name: tool.name,
          ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
          parameters: tool.input_schema,
        },
      };
    });
    Object.assign(chat, toolChoice(body.tool_choice));
  }
  return chat;
}
