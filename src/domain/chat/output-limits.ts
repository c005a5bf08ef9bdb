// The completion limit of each default text model, from the vendors' model pages. It sizes the hold
// when a client gives no max_tokens (the upstream may then generate up to this many tokens), and
// bounds how far the gateway may lower the upstream max tokens to what a balance covers.
// A model outside this table (added by an operator) gets the generous default, so its hold errs on
// the high side; the hold never exceeds the balance either way.
import { ownEntry } from '../own-entry.js';

const MAX_COMPLETION_TOKENS: Record<string, number> = {
  'gpt-4o': 16_384,
  'gpt-4o-mini': 16_384,
  'gpt-4.1': 32_768,
  'gpt-4.1-mini': 32_768,
  'gpt-4.1-nano': 32_768,
  'gpt-5': 128_000,
  'gpt-5-mini': 128_000,
  'gpt-5-nano': 128_000,
  o3: 100_000,
  'o4-mini': 100_000,
  'claude-opus-4-1': 32_000,
  'claude-opus-4': 32_000,
  'claude-sonnet-4-5': 64_000,
  'claude-sonnet-4': 64_000,
  'claude-3-7-sonnet': 64_000,
  'claude-haiku-4-5': 64_000,
  'claude-3-5-haiku': 8_192,
};

export const DEFAULT_MAX_COMPLETION_TOKENS = 128_000;

export function maxCompletionTokensOf(modelId: string): number {
  return ownEntry(MAX_COMPLETION_TOKENS, modelId) ?? DEFAULT_MAX_COMPLETION_TOKENS;
}
