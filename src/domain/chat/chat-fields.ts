// The top-level fields of a chat-completions body that may reach an upstream, and the ones refused
// because the upstream would bill for them at prices the catalog does not have. An allow-list, not a
// deny-list: a field added to OpenAI's API tomorrow may carry a cost (audio, search, a faster tier),
// so until it is listed here it answers 422 unknown_field (as on /v1/responses and POST /generate)
// instead of being passed on unpriced. docs/DECISIONS.md lists each field and why.
import { AppError } from '../errors.js';

/** OpenAI's own limit on `n`. */
export const MAX_CHOICES = 128;

/** Fields the gateway passes upstream. Those that change the bill are priced (see chat-cost.ts). */
export const CHAT_FIELDS: ReadonlySet<string> = new Set([
  // read and priced by the gateway
  'model',
  'messages',
  'max_tokens',
  'max_completion_tokens',
  'n',
  'prediction',
  'stream',
  'stream_options',
  // generation controls: no effect on the price of a token, only on which tokens
  'temperature',
  'top_p',
  'top_k',
  'frequency_penalty',
  'presence_penalty',
  'logit_bias',
  'logprobs',
  'top_logprobs',
  'stop',
  'seed',
  'response_format',
  'reasoning_effort',
  'verbosity',
  // tools the client runs: their definitions are prompt tokens, their calls output tokens
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'functions',
  'function_call',
  // identifiers and caching hints: no cost of their own
  'user',
  'safety_identifier',
  'prompt_cache_key',
  'prompt_cache_retention',
  'metadata',
  'store',
  // checked below: allowed only at values that cost what the catalog price covers
  'service_tier',
  'modalities',
  'audio',
]);

/** Known fields that always bill beyond the token prices: refused when set. */
const REFUSED: Record<string, string> = {
  best_of:
    'best_of is not supported: the upstream would generate and bill every candidate; use n, which is priced per choice',
  web_search_options:
    'web_search_options is not supported: the upstream bills each web search on top of tokens, and this gateway does not price searches',
};

/** service_tier values billed at (or below) the standard price the catalog is set from. */
const STANDARD_TIERS = new Set(['auto', 'default', 'flex']);

const isSet = (value: unknown) => value !== undefined && value !== null;
const unsupported = (param: string, message: string) => new AppError('unsupported_parameter', message, param);

/** Throws for a field that is unknown or would be billed beyond the catalog's token prices. */
export function checkChatFields(body: Record<string, unknown>): void {
  for (const field of Object.keys(body)) {
    if (CHAT_FIELDS.has(field)) continue;
    if (Object.hasOwn(REFUSED, field)) {
      if (!isSet(body[field]) || (field === 'best_of' && body[field] === 1)) continue;
      throw unsupported(field, REFUSED[field]);
    }
    throw new AppError('unknown_field', `Unrecognized request argument supplied: ${field}`, field);
  }
  if (isSet(body.audio) || (Array.isArray(body.modalities) && body.modalities.some((m) => m !== 'text'))) {
    throw unsupported(
      isSet(body.audio) ? 'audio' : 'modalities',
      'audio output is not supported: the upstream bills audio tokens at audio prices, which this gateway does not price; ask for modalities ["text"]',
    );
  }
  if (isSet(body.modalities) && !Array.isArray(body.modalities))
    throw new AppError('invalid_parameter', 'modalities must be an array such as ["text"]', 'modalities');
  const tier = body.service_tier;
  if (isSet(tier) && !(typeof tier === 'string' && STANDARD_TIERS.has(tier))) {
    throw unsupported(
      'service_tier',
      'service_tier must be auto, default or flex: other tiers are billed above the standard price this gateway charges',
    );
  }
}
