// How big a chat prompt is, without a tokenizer. Two numbers come from one measurement:
// - the BOUND (sizes the hold): every byte-level BPE token (OpenAI, Anthropic) spans at least one
//   UTF-8 byte, so the bytes of all text plus the tool definitions never undercount; fixed
//   allowances cover the per-message framing, the hidden tool-use preamble and each image;
// - the ESTIMATE (bills a stream cut before upstream reported usage, and is the simulator's
//   prompt_tokens): the common rule of thumb of 4 bytes per token, plus the per-message framing.
import type { ChatRequest } from './request.js';
import type { ChatMessage } from './types.js';

/** Tokens held per image part: above the worst case of every default vision model but gpt-4o-mini. */
export const IMAGE_TOKEN_BOUND = 4_000;
/**
 * gpt-4o-mini counts an image at an inflated rate (so that it costs about what gpt-4o charges):
 * 2,833 tokens plus 5,667 per 512-pixel tile, up to 8 tiles for a high-detail image = 48,169.
 */
const IMAGE_TOKEN_BOUNDS: Record<string, number> = { 'gpt-4o-mini': 48_169 };

/** The per-image bound of `modelId` (its catalog id). */
export function imageTokenBoundOf(modelId: string): number {
  return IMAGE_TOKEN_BOUNDS[modelId] ?? IMAGE_TOKEN_BOUND;
}
/** Role markers and separators around each message (OpenAI counts 3-4). */
export const MESSAGE_TOKEN_BOUND = 8;
/** Reply priming and request framing. */
export const REQUEST_TOKEN_BOUND = 16;
/** The tool-use system prompt some upstreams add when tools are present (Anthropic's is about 350). */
export const TOOLS_TOKEN_BOUND = 1_000;

/** The estimate's per-image figure: a low-detail image on OpenAI's tile pricing. */
export const IMAGE_TOKEN_ESTIMATE = 85;
export const MESSAGE_TOKEN_ESTIMATE = 4;
export const REQUEST_TOKEN_ESTIMATE = 3;

export interface PromptSize {
  /** UTF-8 bytes of every message's role, name, text, tool calls and other non-image parts. */
  messageBytes: number;
  /** UTF-8 bytes of the JSON of tools, functions, tool_choice and response_format. */
  definitionBytes: number;
  messages: number;
  images: number;
  hasTools: boolean;
}

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const jsonBytes = (value: unknown) =>
  value === undefined || value === null ? 0 : bytes(JSON.stringify(value));

function messageBytes(message: ChatMessage): { bytes: number; images: number } {
  let total = bytes(message.role) + (typeof message.name === 'string' ? bytes(message.name) : 0);
  let images = 0;
  const content = message.content;
  if (typeof content === 'string') total += bytes(content);
  else if (Array.isArray(content)) {
    for (const part of content) {
      if (part.type === 'text' && typeof (part as { text?: unknown }).text === 'string')
        total += bytes((part as { text: string }).text);
      else if (part.type === 'image_url') images++;
      else total += jsonBytes(part);
    }
  }
  if (typeof message.tool_call_id === 'string') total += bytes(message.tool_call_id);
  total +=
    jsonBytes(message.tool_calls) +
    jsonBytes(message.function_call) +
    (typeof message.refusal === 'string' ? bytes(message.refusal) : 0);
  return { bytes: total, images };
}

export function measurePrompt(request: Pick<ChatRequest, 'messages' | 'body'>): PromptSize {
  let total = 0;
  let images = 0;
  for (const message of request.messages) {
    const measured = messageBytes(message);
    total += measured.bytes;
    images += measured.images;
  }
  const { tools, functions, tool_choice, response_format } = request.body;
  const toolChoiceBytes = typeof tool_choice === 'object' ? jsonBytes(tool_choice) : 0;
  return {
    messageBytes: total,
    definitionBytes: jsonBytes(tools) + jsonBytes(functions) + toolChoiceBytes + jsonBytes(response_format),
    messages: request.messages.length,
    images,
    hasTools:
      (Array.isArray(tools) && tools.length > 0) || (Array.isArray(functions) && functions.length > 0),
  };
}

/** An upper bound of the prompt's tokens on any byte-level BPE tokenizer. */
export function promptTokenBound(size: PromptSize, imageTokens = IMAGE_TOKEN_BOUND): number {
  return (
    size.messageBytes +
    size.definitionBytes +
    size.messages * MESSAGE_TOKEN_BOUND +
    size.images * imageTokens +
    (size.hasTools ? TOOLS_TOKEN_BOUND : 0) +
    REQUEST_TOKEN_BOUND
  );
}

/** A deterministic estimate of the prompt's tokens; never above the bound. */
export function estimatePromptTokens(size: PromptSize): number {
  return (
    Math.ceil((size.messageBytes + size.definitionBytes) / 4) +
    size.messages * MESSAGE_TOKEN_ESTIMATE +
    size.images * IMAGE_TOKEN_ESTIMATE +
    REQUEST_TOKEN_ESTIMATE
  );
}
