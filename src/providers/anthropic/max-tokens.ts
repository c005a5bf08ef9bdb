// Anthropic requires max_tokens; OpenAI clients often send none and expect the model's own limit.
// The default is the limit of the catalog's model the upstream id names (the same table that sizes
// the hold, so the upstream never generates more than the hold covers). Dated and -latest ids
// ("claude-sonnet-4-5-20250929") are read without their suffix; an id not in the table falls back to
// its nearest known family ("claude-opus-4-5" → claude-opus-4), else to 4096, which every Claude
// model accepts. The operator can set the default per provider (`max_tokens`).
import { DEFAULT_MAX_COMPLETION_TOKENS, maxCompletionTokensOf } from '../../domain/chat/output-limits.js';

export const FALLBACK_MAX_TOKENS = 4096;

export function defaultMaxTokens(upstreamModel: string): number {
  const parts = upstreamModel
    .toLowerCase()
    .replace(/@.*$/, '')
    .replace(/-(\d{8}|latest)$/, '')
    .split('-');
  for (let length = parts.length; length >= 3; length--) {
    const limit = maxCompletionTokensOf(parts.slice(0, length).join('-'));
    if (limit !== DEFAULT_MAX_COMPLETION_TOKENS) return limit;
  }
  return FALLBACK_MAX_TOKENS;
}
