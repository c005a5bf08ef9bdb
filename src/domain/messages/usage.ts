// Anthropic's usage object → the counts the gateway bills. input_tokens excludes the cached parts;
// cache_creation_input_tokens and cache_read_input_tokens are billed at their own prices, and
// server_tool_use counts the per-use server tools (web_search_requests, web_fetch_requests).
import type { MessagesUsage } from '../billing/messages-cost.js';

const count = (value: unknown): number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;

/** The usage, or null when the object carries no token count at all. */
export function readMessagesUsage(usage: unknown): MessagesUsage | null {
  if (!usage || typeof usage !== 'object') return null;
  const u = usage as Record<string, unknown>;
  if (typeof u.input_tokens !== 'number' && typeof u.output_tokens !== 'number') return null;
  const tools = (
    u.server_tool_use && typeof u.server_tool_use === 'object' ? u.server_tool_use : {}
  ) as Record<string, unknown>;
  // Newer answers split the writes by cache lifetime; the 1-hour ones have their own price.
  const split = (u.cache_creation && typeof u.cache_creation === 'object' ? u.cache_creation : {}) as Record<
    string,
    unknown
  >;
  const writes = count(u.cache_creation_input_tokens);
  const oneHour = Math.min(writes, count(split.ephemeral_1h_input_tokens));
  return {
    inputTokens: count(u.input_tokens),
    cacheWriteTokens: writes - oneHour,
    cacheWrite1hTokens: oneHour,
    cacheReadTokens: count(u.cache_read_input_tokens),
    outputTokens: count(u.output_tokens),
    webSearches: count(tools.web_search_requests),
    webFetches: count(tools.web_fetch_requests),
  };
}

export function mergeMessagesUsage(usage: MessagesUsage, update: Partial<MessagesUsage>): MessagesUsage {
  return { ...usage, ...update };
}
