import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { affordableCompletionTokens, chatCost, planChatHold, type TokenPrices } from './chat-cost.js';

const GPT_4O: TokenPrices = {
  inputPerMillion: 225_000_000,
  outputPerMillion: 900_000_000,
  coefficientPpm: 1_000_000,
};

/** The reference: the same formula in exact rational arithmetic, rounded up once. */
function reference(prompt: number, completion: number, p: TokenPrices): bigint {
  const numerator =
    (BigInt(prompt) * BigInt(p.inputPerMillion) + BigInt(completion) * BigInt(p.outputPerMillion)) *
    BigInt(p.coefficientPpm);
  const denominator = 10n ** 12n;
  return numerator / denominator + (numerator % denominator === 0n ? 0n : 1n);
}

const prices = fc.record({
  inputPerMillion: fc.integer({ min: 0, max: 10_000_000_000 }),
  outputPerMillion: fc.integer({ min: 0, max: 10_000_000_000 }),
  coefficientPpm: fc.integer({ min: 1, max: 10_000_000 }),
});
const tokens = fc.integer({ min: 0, max: 2_000_000 });

describe('chatCost', () => {
  it('prices prompt and completion tokens per million, times the coefficient', () => {
    // 1000 prompt × 225 RUB/M + 500 completion × 900 RUB/M = 0.225 + 0.45 RUB
    expect(chatCost(1000, 500, GPT_4O)).toBe(675_000);
    expect(chatCost(1_000_000, 0, GPT_4O)).toBe(225_000_000);
    expect(chatCost(0, 0, GPT_4O)).toBe(0);
    expect(chatCost(1000, 500, { ...GPT_4O, coefficientPpm: 1_500_000 })).toBe(1_012_500);
  });

  it('rounds up once over the whole request, not per part', () => {
    // gpt-4o-mini: 13.5 and 54 RUB/M. 1 prompt token = 13.5 micro, 1 completion token = 54 micro.
    const mini = { inputPerMillion: 13_500_000, outputPerMillion: 54_000_000, coefficientPpm: 1_000_000 };
    expect(chatCost(1, 0, mini)).toBe(14); // 13.5 → 14
    // (13.5 + 54) × 1.333333 = 89.99997… → 90; rounding the parts first would give (14 + 54) × 1.333333 → 91.
    expect(chatCost(1, 1, { ...mini, coefficientPpm: 1_333_333 })).toBe(90);
    // 13.5 + 0.5 = 14 exactly; rounding each part up would charge 15.
    expect(chatCost(1, 1, { ...mini, outputPerMillion: 500_000 })).toBe(14);
  });

  it('equals the exact rational formula rounded up, for any tokens, prices and coefficient', () => {
    fc.assert(
      fc.property(tokens, tokens, prices, (p, c, pr) => {
        expect(BigInt(chatCost(p, c, pr))).toBe(reference(p, c, pr));
      }),
    );
  });

  it('rejects negative or fractional token counts', () => {
    expect(() => chatCost(-1, 0, GPT_4O)).toThrow(RangeError);
    expect(() => chatCost(1.5, 0, GPT_4O)).toThrow(RangeError);
  });
});

describe('affordableCompletionTokens', () => {
  it('is the largest completion that fits the balance', () => {
    fc.assert(
      fc.property(tokens, fc.integer({ min: 0, max: 10_000_000_000 }), prices, (p, balance, pr) => {
        fc.pre(pr.outputPerMillion > 0);
        const c = affordableCompletionTokens(p, balance, pr);
        if (c < 0) {
          expect(chatCost(p, 0, pr)).toBeGreaterThan(balance);
        } else {
          fc.pre(c < Number.MAX_SAFE_INTEGER); // absurdly cheap prices clamp at the safe range
          expect(chatCost(p, c, pr)).toBeLessThanOrEqual(balance);
          expect(chatCost(p, c + 1, pr)).toBeGreaterThan(balance);
        }
      }),
    );
  });
});

describe('planChatHold', () => {
  const base = {
    promptTokenBound: 1000,
    requestedMaxTokens: 500,
    modelMaxCompletionTokens: 16_384,
    prices: GPT_4O,
  };

  it('holds the prompt bound plus max_tokens when the balance covers it, and lowers nothing', () => {
    expect(planChatHold({ ...base, balance: 10_000_000 })).toEqual({
      amount: 675_000,
      maxCompletionTokens: 500,
      lowered: false,
    });
  });

  it('uses the model limit when the client gave no max_tokens', () => {
    const plan = planChatHold({ ...base, requestedMaxTokens: null, balance: 1_000_000_000 });
    expect(plan).toEqual({
      amount: chatCost(1000, 16_384, GPT_4O),
      maxCompletionTokens: 16_384,
      lowered: false,
    });
  });

  it('lowers the completion budget to what the balance covers, never holding more than the balance', () => {
    // 1 RUB: prompt costs 0.225, leaving 0.775 RUB = 861 completion tokens at 900 RUB/M.
    const plan = planChatHold({ ...base, requestedMaxTokens: null, balance: 1_000_000 });
    expect(plan.lowered).toBe(true);
    expect(plan.maxCompletionTokens).toBe(861);
    expect(plan.amount).toBe(chatCost(1000, 861, GPT_4O));
    expect(plan.amount).toBeLessThanOrEqual(1_000_000);
  });

  it('answers 402 when the balance cannot cover the prompt bound plus one completion token', () => {
    const justEnough = chatCost(1000, 1, GPT_4O);
    expect(planChatHold({ ...base, balance: justEnough }).maxCompletionTokens).toBe(1);
    const error = (() => {
      try {
        planChatHold({ ...base, balance: justEnough - 1 });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(402);
    expect((error as AppError).code).toBe('insufficient_balance');
  });

  it('holds every choice of n (and a prediction bound) and lowers each choice alike', () => {
    // n = 16 × 1000 max tokens: the upstream may bill 16,000 completion tokens.
    const wide = { ...base, requestedMaxTokens: 1000, choices: 16 };
    expect(planChatHold({ ...wide, balance: 100_000_000 })).toEqual({
      amount: chatCost(1000, 16_000, GPT_4O),
      maxCompletionTokens: 1000,
      lowered: false,
    });
    expect(planChatHold({ ...wide, extraCompletionTokens: 40, balance: 100_000_000 }).amount).toBe(
      chatCost(1000, 16_040, GPT_4O),
    );
    // 1 RUB covers 861 completion tokens: 53 per choice.
    const lowered = planChatHold({ ...wide, balance: 1_000_000 });
    expect(lowered).toEqual({
      amount: chatCost(1000, 16 * 53, GPT_4O),
      maxCompletionTokens: 53,
      lowered: true,
    });
    // Less than one token per choice: 402, whatever one choice alone would cost.
    expect(() => planChatHold({ ...wide, balance: chatCost(1000, 15, GPT_4O) })).toThrow(
      expect.objectContaining({ code: 'insufficient_balance' }),
    );
    expect(planChatHold({ ...wide, balance: chatCost(1000, 16, GPT_4O) }).maxCompletionTokens).toBe(1);
  });

  it('never holds more than the balance, and the hold always covers the bound at the planned budget', () => {
    fc.assert(
      fc.property(
        tokens,
        fc.option(fc.integer({ min: 1, max: 200_000 }), { nil: null }),
        fc.integer({ min: 0, max: 100_000_000_000 }),
        prices,
        fc.integer({ min: 1, max: 128 }),
        (bound, requested, balance, pr, choices) => {
          let plan: ReturnType<typeof planChatHold>;
          try {
            plan = planChatHold({
              promptTokenBound: bound,
              requestedMaxTokens: requested,
              modelMaxCompletionTokens: 32_768,
              choices,
              balance,
              prices: pr,
            });
          } catch (e) {
            expect((e as AppError).code).toBe('insufficient_balance');
            expect(chatCost(bound, choices, pr)).toBeGreaterThan(balance);
            return;
          }
          expect(plan.amount).toBeLessThanOrEqual(balance);
          expect(plan.amount).toBe(chatCost(bound, choices * plan.maxCompletionTokens, pr));
          expect(plan.maxCompletionTokens).toBeGreaterThanOrEqual(1);
          expect(plan.maxCompletionTokens).toBeLessThanOrEqual(requested ?? 32_768);
        },
      ),
    );
  });
});
