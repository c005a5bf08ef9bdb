// Reading what a completion used, and the rules for when the upstream did not say.
// - Upstream `usage` is the truth whenever it is present and sane.
// - A stream cut short (client gone, upstream broke) before its usage arrived is billed from what was
//   delivered: the prompt ESTIMATE (prompt-size.ts) plus one completion token per delivered chunk
//   that carried output (content, refusal, reasoning or a tool-call delta). OpenAI-type upstreams
//   and the simulator send one token per such chunk.
// - Nothing delivered: nothing billed.
import type { ChatCompletion, ChatCompletionChunk } from './types.js';

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** The upstream's usage, or null when absent or not a pair of non-negative integers. */
export function readUsage(usage: unknown): TokenUsage | null {
  if (!usage || typeof usage !== 'object') return null;
  const { prompt_tokens: prompt, completion_tokens: completion } = usage as Record<string, unknown>;
  return isCount(prompt) && isCount(completion)
    ? { promptTokens: prompt, completionTokens: completion }
    : null;
}

/** 1 per choice of the chunk whose delta carries output. */
export function outputTokensInChunk(chunk: ChatCompletionChunk): number {
  let tokens = 0;
  for (const choice of chunk.choices ?? []) {
    const delta = choice?.delta;
    if (!delta) continue;
    if (
      (typeof delta.content === 'string' && delta.content.length > 0) ||
      (typeof delta.refusal === 'string' && delta.refusal.length > 0) ||
      (typeof delta.reasoning_content === 'string' && delta.reasoning_content.length > 0) ||
      (Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0)
    ) {
      tokens++;
    }
  }
  return tokens;
}

/** A non-streaming answer without usage: 4 UTF-8 bytes per token of everything it generated. */
export function estimateCompletionTokens(completion: ChatCompletion): number {
  let bytes = 0;
  for (const choice of completion.choices ?? []) {
    const message = choice?.message;
    if (!message) continue;
    if (typeof message.content === 'string') bytes += Buffer.byteLength(message.content);
    if (typeof message.refusal === 'string') bytes += Buffer.byteLength(message.refusal);
    for (const call of message.tool_calls ?? [])
      bytes += Buffer.byteLength(JSON.stringify(call.function ?? {}));
  }
  return Math.ceil(bytes / 4);
}

/**
 * A chunk as the client receives it: the public model id instead of the upstream's, and without the
 * usage the gateway asked for on its own behalf (null when the whole chunk is that usage).
 */
export function presentChunk(
  chunk: ChatCompletionChunk,
  publicModel: string,
  clientAskedForUsage: boolean,
): ChatCompletionChunk | null {
  if (!clientAskedForUsage && 'usage' in chunk) {
    if (Array.isArray(chunk.choices) && chunk.choices.length === 0) return null;
    delete chunk.usage;
  }
  chunk.model = publicModel;
  return chunk;
}
