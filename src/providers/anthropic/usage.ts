// Anthropic usage → OpenAI usage. Anthropic counts the prompt in three parts (uncached input, cache
// reads, cache writes); the gateway bills the whole prompt at the input price, so prompt_tokens is
// their sum. The parts are reported as OpenAI does: prompt_tokens_details.cached_tokens holds the
// tokens read from the cache, cache_write_tokens those written to it.
import type { ChatUsage } from '../../domain/chat/types.js';
import type { AnthropicUsage } from './wire.js';

const count = (value: unknown): number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;

export function toChatUsage(usage: AnthropicUsage): ChatUsage {
  const read = count(usage.cache_read_input_tokens);
  const written = count(usage.cache_creation_input_tokens);
  const prompt = count(usage.input_tokens) + read + written;
  const completion = count(usage.output_tokens);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: read, cache_write_tokens: written },
  };
}

/** Later usage (message_delta) overrides earlier (message_start) field by field; counts are cumulative. */
export function mergeUsage(seen: AnthropicUsage, update: AnthropicUsage | undefined): AnthropicUsage {
  const merged = { ...seen };
  for (const field of [
    'input_tokens',
    'output_tokens',
    'cache_creation_input_tokens',
    'cache_read_input_tokens',
  ] as const) {
    if (typeof update?.[field] === 'number') merged[field] = update[field];
  }
  return merged;
}
