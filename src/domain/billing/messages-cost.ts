// Exact billing of a Messages API request passed through to Anthropic. Anthropic reports the prompt
// in three parts (uncached input, cache writes, cache reads) and server-tool uses beside the tokens;
// each part has its own catalog price, and the whole request is rounded up once, like chatCost:
//   ceil((input×in + cacheWrite×cw + cacheRead×cr + output×out + uses×perThousand×1000) × k / 10^12)
// A model without cache prices pays 1.25× (writes) and 0.1× (reads) its input price, Anthropic's
// own ratios for a 5-minute cache write and a cache hit. Writes to the 1-hour cache, which Anthropic
// reports apart (usage.cache_creation.ephemeral_1h_input_tokens), cost 2× the input price, its ratio.
import type { CatalogModel } from '../catalog/model.js';
import type { TokenPrices } from './chat-cost.js';
import type { Micro } from './money.js';

export interface MessagesPrices {
  inputPerMillion: Micro;
  outputPerMillion: Micro;
  cacheWritePerMillion: Micro;
  cacheReadPerMillion: Micro;
  /** 1-hour cache writes: 2× the input price. */
  cacheWrite1hPerMillion: Micro;
  /** Per 1,000 uses; null: the tool is not priced (a request offering it is refused). */
  webSearchPerThousand: Micro | null;
  webFetchPerThousand: Micro | null;
  coefficientPpm: number;
}

export interface MessagesUsage {
  inputTokens: number;
  /** 5-minute cache writes (all writes when the upstream does not split them). */
  cacheWriteTokens: number;
  cacheWrite1hTokens: number;
  cacheReadTokens: number;
  outputTokens: number;
  webSearches: number;
  webFetches: number;
}

export const EMPTY_MESSAGES_USAGE: MessagesUsage = {
  inputTokens: 0,
  cacheWriteTokens: 0,
  cacheWrite1hTokens: 0,
  cacheReadTokens: 0,
  outputTokens: 0,
  webSearches: 0,
  webFetches: 0,
};

const SCALE = 10n ** 12n;
/** Uses are priced per 1,000 and tokens per 1,000,000: a use weighs 1,000 token units. */
const USE_WEIGHT = 1_000n;

/** The model's Messages prices (for a key's coefficient); the model must have its token prices. */
export function messagesPrices(model: CatalogModel, coefficientPpm: number): MessagesPrices {
  const input = model.priceMicro ?? 0;
  return {
    inputPerMillion: input,
    outputPerMillion: model.priceOutputMicro ?? 0,
    cacheWritePerMillion: model.priceCacheWriteMicro ?? Math.ceil((input * 5) / 4),
    cacheReadPerMillion: model.priceCacheReadMicro ?? Math.ceil(input / 10),
    cacheWrite1hPerMillion: input * 2,
    webSearchPerThousand: model.priceWebSearchMicro ?? null,
    webFetchPerThousand: model.priceWebFetchMicro ?? null,
    coefficientPpm,
  };
}

function count(value: number, name: string): bigint {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${name} must be a non-negative safe integer, got ${value}`);
  return BigInt(value);
}

/** The exact cost in micro-rubles, rounded up once. A use of an unpriced tool costs nothing here. */
export function messagesCost(usage: MessagesUsage, prices: MessagesPrices): Micro {
  const scaled =
    (count(usage.inputTokens, 'inputTokens') * count(prices.inputPerMillion, 'input price') +
      count(usage.cacheWriteTokens, 'cacheWriteTokens') * count(prices.cacheWritePerMillion, 'cache write') +
      count(usage.cacheWrite1hTokens, 'cacheWrite1hTokens') *
        count(prices.cacheWrite1hPerMillion, 'cache write 1h') +
      count(usage.cacheReadTokens, 'cacheReadTokens') * count(prices.cacheReadPerMillion, 'cache read') +
      count(usage.outputTokens, 'outputTokens') * count(prices.outputPerMillion, 'output price') +
      count(usage.webSearches, 'webSearches') *
        count(prices.webSearchPerThousand ?? 0, 'search') *
        USE_WEIGHT +
      count(usage.webFetches, 'webFetches') * count(prices.webFetchPerThousand ?? 0, 'fetch') * USE_WEIGHT) *
    count(prices.coefficientPpm, 'coefficientPpm');
  const cost = (scaled + SCALE - 1n) / SCALE;
  if (cost > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('cost exceeds the safe integer range');
  return Number(cost);
}

export interface MessagesHoldSizing {
  /** The prompt bound, with the server-tool allowance folded in as prompt tokens. */
  promptTokenBound: number;
  /** What the hold planner prices those tokens at. */
  prices: TokenPrices;
}

/**
 * Expresses the worst case of a Messages request in the chat hold's terms (prompt tokens × one price
 * plus completion tokens × the output price), so the chat hold planner sizes and lowers it: every
 * prompt token at the dearest of input, cache writes and cache read, plus the allowed server-tool
 * uses converted to prompt tokens at that price (rounded up). The hold is therefore never below the
 * cost of any usage within those bounds.
 */
export function messagesHoldSizing(
  promptTokenBound: number,
  toolUses: { webSearches: number; webFetches: number },
  prices: MessagesPrices,
): MessagesHoldSizing {
  const toolScaled =
    BigInt(toolUses.webSearches) * BigInt(prices.webSearchPerThousand ?? 0) * USE_WEIGHT +
    BigInt(toolUses.webFetches) * BigInt(prices.webFetchPerThousand ?? 0) * USE_WEIGHT;
  let perToken = Math.max(
    prices.inputPerMillion,
    prices.cacheWritePerMillion,
    prices.cacheWrite1hPerMillion,
    prices.cacheReadPerMillion,
  );
  if (perToken === 0 && toolScaled > 0n) perToken = 1;
  const toolTokens = toolScaled === 0n ? 0 : Number((toolScaled + BigInt(perToken) - 1n) / BigInt(perToken));
  return {
    promptTokenBound: promptTokenBound + toolTokens,
    prices: {
      inputPerMillion: perToken,
      outputPerMillion: prices.outputPerMillion,
      coefficientPpm: prices.coefficientPpm,
    },
  };
}
