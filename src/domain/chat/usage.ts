// Reading what a completion used, and the rules for when the upstream did not say.
// - Upstream `usage` is the truth whenever it is present and sane.
// - A stream cut short (client gone, upstream broke) before its usage arrived is billed from the
//   output read from the upstream (collectOutput), counted with the model family's tokenizer, and
//   the prompt counted alike (token-count.ts). One token per chunk would undercharge every upstream
//   that sends several tokens per chunk (Anthropic's text deltas, many proxies).
// - Nothing delivered: nothing billed.
import type { ChatCompletion, ChatCompletionChunk } from './types.js';

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/**
 * Set by an adapter on the usage it reports for a stream that broke before the upstream counted its
 * output (Anthropic reports output tokens only at the end): the prompt count is the upstream's, the
 * completion count is not, so the gateway counts the output itself.
 */
export const OUTPUT_UNCOUNTED = 'gengate_output_uncounted';

/** The upstream's usage, or null when absent, partial, or not a pair of non-negative integers. */
export function readUsage(usage: unknown): TokenUsage | null {
  if (!usage || typeof usage !== 'object') return null;
  const fields = usage as Record<string, unknown>;
  if (fields[OUTPUT_UNCOUNTED] === true) return null;
  const { prompt_tokens: prompt, completion_tokens: completion } = fields;
  return isCount(prompt) && isCount(completion)
    ? { promptTokens: prompt, completionTokens: completion }
    : null;
}

/** The prompt tokens an upstream reported, complete usage or not; null when it reported none. */
export function readPromptTokens(usage: unknown): number | null {
  if (!usage || typeof usage !== 'object') return null;
  const prompt = (usage as Record<string, unknown>).prompt_tokens;
  return isCount(prompt) ? prompt : null;
}

/**
 * Appends the output text of each choice of `chunk` (content, refusal, reasoning, tool-call names
 * and arguments) to `output[choice index]`: a push per piece, nothing counted until a cut stream
 * needs it.
 */
export function collectOutput(chunk: ChatCompletionChunk, output: string[][]): void {
  for (const choice of chunk.choices ?? []) {
    const delta = choice?.delta;
    if (!delta) continue;
    const index =
      Number.isSafeInteger(choice.index) && choice.index >= 0 && choice.index < MAX_CHOICE_INDEX
        ? choice.index
        : 0;
    // A module function, not a closure: no allocation per chunk (this runs on every chunk).
    addPiece(output, index, delta.content);
    addPiece(output, index, delta.refusal);
    addPiece(output, index, delta.reasoning_content);
    if (Array.isArray(delta.tool_calls)) {
      for (const call of delta.tool_calls) {
        addPiece(output, index, call?.function?.name);
        addPiece(output, index, call?.function?.arguments);
      }
    }
  }
}

function addPiece(output: string[][], index: number, piece: unknown): void {
  if (typeof piece !== 'string' || piece.length === 0) return;
  const pieces = output[index];
  if (pieces) pieces.push(piece);
  else output[index] = [piece];
}

/** Choice indexes above this are an upstream's nonsense, folded into choice 0 (n is at most 128). */
const MAX_CHOICE_INDEX = 1024;

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
  if (chunk.usage) delete chunk.usage[OUTPUT_UNCOUNTED];
  chunk.model = publicModel;
  return chunk;
}
