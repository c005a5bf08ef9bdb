import { describe, expect, it } from 'vitest';
import type { CatalogModel } from '../catalog/model.js';
import { affordableCompletionTokens, chatCost, fullChatHold } from './chat-cost.js';
import {
  EMPTY_MESSAGES_USAGE,
  type MessagesUsage,
  messagesCost,
  messagesHoldSizing,
  messagesPrices,
} from './messages-cost.js';

const sonnet = {
  priceMicro: 270_000_000,
  priceOutputMicro: 1_350_000_000,
  priceCacheWriteMicro: 337_500_000,
  priceCacheReadMicro: 27_000_000,
  priceWebSearchMicro: 900_000_000,
  priceWebFetchMicro: 0,
} as CatalogModel;
const usage = (u: Partial<MessagesUsage>): MessagesUsage => ({ ...EMPTY_MESSAGES_USAGE, ...u });

describe('messagesCost', () => {
  it('prices each part at its own price and rounds up once', () => {
    const prices = messagesPrices(sonnet, 1_000_000);
    // 100×270 + 2000×337.5 + 5000×27 + 50×1350 = 904,500 (×10^-6 RUB) exactly.
    expect(
      messagesCost(
        usage({ inputTokens: 100, cacheWriteTokens: 2000, cacheReadTokens: 5000, outputTokens: 50 }),
        prices,
      ),
    ).toBe(904_500);
    // One token of input: 270 micro-rubles; one cache read: 27; one search: 900,000.
    expect(messagesCost(usage({ inputTokens: 1 }), prices)).toBe(270);
    expect(messagesCost(usage({ cacheReadTokens: 1 }), prices)).toBe(27);
    expect(messagesCost(usage({ webSearches: 1 }), prices)).toBe(900_000);
    expect(messagesCost(usage({ webFetches: 50 }), prices)).toBe(0);
    // A coefficient of 1.333333 applies to the whole sum, rounded up once: 1,206,000 × 1.333333.
    expect(
      messagesCost(
        usage({
          inputTokens: 100,
          cacheWriteTokens: 2000,
          cacheReadTokens: 5000,
          outputTokens: 50,
          webSearches: 1,
        }),
        messagesPrices(sonnet, 1_333_333),
      ),
    ).toBe(Math.ceil((1_804_500 * 1_333_333) / 1_000_000));
  });

  it('defaults: cache writes 1.25× and reads 0.1× the input price, 1-hour writes 2×; unpriced tools null', () => {
    const prices = messagesPrices(
      { priceMicro: 100_000_001, priceOutputMicro: 5 } as CatalogModel,
      1_000_000,
    );
    expect(prices).toMatchObject({
      cacheWritePerMillion: 125_000_002,
      cacheReadPerMillion: 10_000_001,
      cacheWrite1hPerMillion: 200_000_002,
      webSearchPerThousand: null,
      webFetchPerThousand: null,
    });
    expect(messagesCost(usage({ cacheWrite1hTokens: 1_000_000 }), prices)).toBe(200_000_002);
  });

  it('the hold sizing never undercharges: any usage within the bounds costs at most the planned hold', () => {
    const prices = messagesPrices(sonnet, 1_250_000);
    const sizing = messagesHoldSizing(10_000, { webSearches: 5, webFetches: 3 }, prices);
    const hold = fullChatHold({
      promptTokenBound: sizing.promptTokenBound,
      requestedMaxTokens: 2_000,
      modelMaxCompletionTokens: 64_000,
      prices: sizing.prices,
    }).amount;
    for (const split of [
      { inputTokens: 10_000 },
      { cacheWriteTokens: 10_000 },
      { cacheWrite1hTokens: 10_000 },
      { cacheReadTokens: 10_000 },
      { inputTokens: 3_000, cacheWriteTokens: 3_000, cacheWrite1hTokens: 2_000, cacheReadTokens: 2_000 },
    ])
      expect(
        messagesCost(usage({ ...split, outputTokens: 2_000, webSearches: 5, webFetches: 3 }), prices),
      ).toBeLessThanOrEqual(hold);
    // The worst case (all 1-hour writes, every search) is within one rounding of the hold.
    const worst = messagesCost(
      usage({ cacheWrite1hTokens: 10_000, outputTokens: 2_000, webSearches: 5 }),
      prices,
    );
    expect(hold - worst).toBeLessThan(chatCost(1, 0, sizing.prices) + 1);
    // The chat planner's lowering still applies: what a small balance affords is a positive count.
    expect(affordableCompletionTokens(sizing.promptTokenBound, hold, sizing.prices)).toBeGreaterThanOrEqual(
      2_000,
    );
  });
});
