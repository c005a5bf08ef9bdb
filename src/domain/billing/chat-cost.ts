// Exact token billing of chat requests (DESIGN.md section 3, unit mtok). Prices are integer
// micro-rubles per 1M tokens, the coefficient is in millionths, so one request's cost is
//   ceil((prompt × inPrice + completion × outPrice) × coefficientPpm / 10^12)
// computed once over the whole request with BigInt: no per-part rounding, no float, no drift.
import { AppError } from '../errors.js';
import { type Micro, microToRub } from './money.js';

export interface TokenPrices {
  /** Micro-rubles per 1M prompt tokens. */
  inputPerMillion: Micro;
  /** Micro-rubles per 1M completion tokens. */
  outputPerMillion: Micro;
  /** The account coefficient in millionths (1.25 → 1_250_000). */
  coefficientPpm: number;
}

const SCALE = 10n ** 12n;

function nonNegativeInteger(value: number, name: string): bigint {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${name} must be a non-negative safe integer, got ${value}`);
  return BigInt(value);
}

function units(prices: TokenPrices) {
  return {
    input: nonNegativeInteger(prices.inputPerMillion, 'inputPerMillion'),
    output: nonNegativeInteger(prices.outputPerMillion, 'outputPerMillion'),
    coefficient: nonNegativeInteger(prices.coefficientPpm, 'coefficientPpm'),
  };
}

/** The exact cost of a request in micro-rubles, rounded up once. */
export function chatCost(promptTokens: number, completionTokens: number, prices: TokenPrices): Micro {
  const { input, output, coefficient } = units(prices);
  const scaled =
    (nonNegativeInteger(promptTokens, 'promptTokens') * input +
      nonNegativeInteger(completionTokens, 'completionTokens') * output) *
    coefficient;
  const cost = (scaled + SCALE - 1n) / SCALE;
  if (cost > BigInt(Number.MAX_SAFE_INTEGER))
    throw new RangeError('chat cost exceeds the safe integer range');
  return Number(cost);
}

/**
 * The largest number of completion tokens whose cost, together with `promptTokens`, fits in
 * `balance`; -1 when not even the prompt fits. ceil(X·k/10^12) ≤ B ⟺ X ≤ floor(B·10^12/k).
 */
export function affordableCompletionTokens(
  promptTokens: number,
  balance: Micro,
  prices: TokenPrices,
): number {
  const { input, output, coefficient } = units(prices);
  if (coefficient === 0n) return Number.MAX_SAFE_INTEGER;
  const budget =
    (nonNegativeInteger(balance, 'balance') * SCALE) / coefficient -
    nonNegativeInteger(promptTokens, 'promptTokens') * input;
  if (budget < 0n) return -1;
  if (output === 0n) return Number.MAX_SAFE_INTEGER;
  const tokens = budget / output;
  return tokens > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(tokens);
}

export interface ChatHoldPlan {
  /**
   * Micro-rubles to hold: the cost of the prompt bound plus every choice's `maxCompletionTokens`
   * (and the predicted output's bound); never above the balance.
   */
  amount: Micro;
  /** The completion budget of EACH choice: the upstream max tokens. */
  maxCompletionTokens: number;
  /** True when the balance, not the client or the model, limits the completion: the upstream cap must be lowered. */
  lowered: boolean;
}

export interface ChatHoldInput {
  /** An upper bound of the prompt's tokens. */
  promptTokenBound: number;
  /** max_completion_tokens / max_tokens of the request, or null when the client gave none. */
  requestedMaxTokens: number | null;
  /** The model's own completion limit, used when the client gave none. */
  modelMaxCompletionTokens: number;
  /** `n`: the upstream generates (and bills) this many choices, each up to the max tokens. Default 1. */
  choices?: number;
  /** Output tokens billed on top of the choices: a bound of the predicted output's rejected tokens. */
  extraCompletionTokens?: number;
  /** The key's available balance. */
  balance: Micro;
  prices: TokenPrices;
}

/**
 * The hold of a request whose whole completion budget the balance covers: what planChatHold
 * returns whenever the balance is at least its amount. Callers may try this hold first and read the
 * balance only when it is refused.
 */
export function fullChatHold(input: Omit<ChatHoldInput, 'balance'>): ChatHoldPlan {
  const wanted = input.requestedMaxTokens ?? input.modelMaxCompletionTokens;
  return {
    amount: chatCost(input.promptTokenBound, completionBudget(input, wanted), input.prices),
    maxCompletionTokens: wanted,
    lowered: false,
  };
}

/**
 * Sizes the hold taken before calling upstream. The hold covers the prompt bound plus the completion
 * budget; when the balance cannot cover that budget, the budget is lowered to what the balance
 * covers (the caller then lowers the upstream max tokens, so the cost can never exceed the hold).
 * With `n` choices each gets the same lowered budget. 402 when the balance cannot cover the prompt
 * bound plus one completion token per choice.
 */
export function planChatHold(input: ChatHoldInput): ChatHoldPlan {
  const full = fullChatHold(input);
  if (full.amount <= input.balance) return full;
  const total = affordableCompletionTokens(input.promptTokenBound, input.balance, input.prices);
  const choices = input.choices ?? 1;
  const extra = input.extraCompletionTokens ?? 0;
  const affordable = total < extra ? -1 : Math.floor((total - extra) / choices);
  if (affordable < 1) {
    const needed = chatCost(input.promptTokenBound, completionBudget(input, 1), input.prices);
    throw new AppError(
      'insufficient_balance',
      `Balance ${microToRub(input.balance)} RUB does not cover this request: its prompt (up to ${input.promptTokenBound} tokens) ` +
        `and one completion token per choice cost up to ${microToRub(needed)} RUB`,
    );
  }
  return {
    amount: chatCost(input.promptTokenBound, completionBudget(input, affordable), input.prices),
    maxCompletionTokens: affordable,
    lowered: true,
  };
}

/** Every choice's budget plus the extra output: what the upstream may bill as completion tokens. */
function completionBudget(input: Omit<ChatHoldInput, 'balance'>, perChoice: number): number {
  const total = (input.choices ?? 1) * perChoice + (input.extraCompletionTokens ?? 0);
  return Math.min(total, Number.MAX_SAFE_INTEGER);
}
