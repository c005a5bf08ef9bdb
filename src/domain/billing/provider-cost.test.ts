import { describe, expect, it } from 'vitest';
import { chatProviderCost, taskProviderCost } from './provider-cost.js';

describe('provider cost', () => {
  const cost = { costMicro: 2_500_001 };
  it('is null on a route without a cost, never zero', () => {
    expect(taskProviderCost(null, { unit: 'shot', completed: true })).toBeNull();
    expect(chatProviderCost(null, { promptTokens: 10, completionTokens: 10 })).toBeNull();
  });
  it('per shot, per delivered second (rounded up), per reported token', () => {
    expect(taskProviderCost(cost, { unit: 'shot', completed: true })).toBe(2_500_001);
    expect(taskProviderCost(cost, { unit: 'sec', completed: true, seconds: 5 })).toBe(12_500_005);
    expect(taskProviderCost(cost, { unit: 'sec', completed: true, seconds: 4.2 })).toBe(12_500_005);
    expect(taskProviderCost(cost, { unit: 'mtok', completed: true, tokens: 3 })).toBe(8);
    expect(taskProviderCost(cost, { unit: 'sec', completed: true, seconds: null })).toBeNull();
  });
  it('a failed task delivered nothing: 0 on a costed route', () => {
    expect(taskProviderCost(cost, { unit: 'sec', completed: false, seconds: 10 })).toBe(0);
  });
  it('chat: input and output prices, rounded up once; output at the input price when not given', () => {
    expect(
      chatProviderCost(
        { costMicro: 10_000_000, costOutputMicro: 40_000_000 },
        { promptTokens: 3, completionTokens: 7 },
      ),
    ).toBe(310);
    expect(chatProviderCost({ costMicro: 1 }, { promptTokens: 1, completionTokens: 1 })).toBe(1);
    expect(chatProviderCost({ costMicro: 1 }, null)).toBe(0);
  });
});
