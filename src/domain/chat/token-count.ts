// Counting the tokens of a stream that ended without the upstream's usage (the client left and the
// upstream was stopped, or the upstream broke): the output text read from the upstream, counted with
// the tokenizer of the model's family, and the prompt counted the same way. Only that path calls it,
// so the tokenizer's tables (about 150 ms to load) are imported on the first cut stream, never at
// start-up nor on a stream that completes.
//   o200k / cl100k: OpenAI's own encodings (gpt-tokenizer): the text an upstream streamed re-encodes to
//                   the tokens it generated (measured in bench/cut-stream-count.ts);
//   bound:          Claude and any model of unknown family, whose tokenizer is not public: an UPPER
//                   bound, the larger of the two OpenAI counts × BOUND_FACTOR, and never above the
//                   UTF-8 bytes (every byte-level BPE token spans at least one byte).
import { IMAGE_TOKEN_ESTIMATE } from './prompt-size.js';
import type { ChatMessage } from './types.js';

export type TokenizerFamily = 'o200k' | 'cl100k' | 'bound';

/**
 * Claude's tokenizer produces 16 % (English prose) to 30 % (code) more tokens than GPT-4o's o200k for
 * the same text, in published comparisons; the bound takes the worse of o200k and cl100k (cl100k is
 * the worse one on Cyrillic) with a margin above the worst published figure.
 */
export const BOUND_FACTOR = 1.35;

/** Per message, and once for the reply: OpenAI's framing of a chat (role markers, separators). */
const MESSAGE_FRAMING = 3;
const REPLY_PRIMING = 3;

const O200K = /^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o1|o3|o4)/;
const CL100K = /^(gpt-4|gpt-3\.5)/;

/** The family of the first id that names one (the upstream model first: an alias hides nothing). */
export function tokenizerFamily(...modelIds: string[]): TokenizerFamily {
  for (const id of modelIds) {
    const name = id.toLowerCase().replace(/^openai\//, '');
    if (O200K.test(name)) return 'o200k';
    if (CL100K.test(name)) return 'cl100k';
  }
  return 'bound';
}

type Count = (text: string) => number;
const encoders: Partial<Record<'o200k' | 'cl100k', Promise<Count>>> = {};
/** Text that looks like a special token (<|endoftext|>) is counted as the plain text it is. */
const PLAIN = { disallowedSpecial: new Set<string>() };

function encoder(name: 'o200k' | 'cl100k'): Promise<Count> {
  encoders[name] ??= (
    name === 'o200k'
      ? import('gpt-tokenizer/encoding/o200k_base')
      : import('gpt-tokenizer/encoding/cl100k_base')
  ).then((module) => (text: string) => module.countTokens(text, PLAIN));
  return encoders[name];
}

/**
 * The UTF-8 bytes of `texts`: never fewer than their tokens, so what a settlement bills for output
 * when no tokenizer could be loaded.
 */
export function utf8Bytes(texts: readonly string[]): number {
  return texts.reduce((sum, text) => sum + Buffer.byteLength(text, 'utf8'), 0);
}

/** Tokens of `texts` (each counted on its own, as separate messages or choices are). */
export async function countTokens(family: TokenizerFamily, texts: readonly string[]): Promise<number> {
  if (family !== 'bound') {
    const count = await encoder(family);
    return texts.reduce((sum, text) => sum + (text ? count(text) : 0), 0);
  }
  const [o200k, cl100k] = await Promise.all([encoder('o200k'), encoder('cl100k')]);
  let total = 0;
  for (const text of texts) {
    if (!text) continue;
    const estimate = Math.ceil(Math.max(o200k(text), cl100k(text)) * BOUND_FACTOR);
    total += Math.min(estimate, Buffer.byteLength(text, 'utf8'));
  }
  return total;
}

/**
 * The prompt's tokens: each message's role, name and text (tool calls and non-text parts as their
 * JSON) with OpenAI's per-message framing, the tool definitions as JSON, each image at the estimate
 * of prompt-size.ts, and the reply priming.
 */
export async function countPromptTokens(
  family: TokenizerFamily,
  messages: readonly ChatMessage[],
  definitions: readonly unknown[],
): Promise<number> {
  const texts: string[] = [];
  let fixed = REPLY_PRIMING;
  for (const message of messages) {
    fixed += MESSAGE_FRAMING;
    texts.push(message.role);
    if (typeof message.name === 'string') texts.push(message.name);
    const content = message.content;
    if (typeof content === 'string') texts.push(content);
    else if (Array.isArray(content)) {
      for (const part of content) {
        if (part.type === 'text' && typeof (part as { text?: unknown }).text === 'string')
          texts.push((part as { text: string }).text);
        else if (part.type === 'image_url') fixed += IMAGE_TOKEN_ESTIMATE;
        else texts.push(JSON.stringify(part));
      }
    }
    if (message.tool_calls) texts.push(JSON.stringify(message.tool_calls));
    if (typeof message.tool_call_id === 'string') texts.push(message.tool_call_id);
  }
  for (const definition of definitions)
    if (definition !== undefined && definition !== null) texts.push(JSON.stringify(definition));
  return fixed + (await countTokens(family, texts));
}
