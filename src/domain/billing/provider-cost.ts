// What a request cost the operator at the upstream, beside what it charged the client: the route's
// cost (PROVIDERS_FILE `cost_rub`, `cost_output_rub`) × what was delivered. Integer micro-rubles, no
// float. A route without a cost gives null ("unknown"), never zero: a margin report must not read
// an unpriced route as free.
import { chatCost } from './chat-cost.js';
import { type Micro, tokenCost } from './money.js';

export interface RouteCost {
  /** Per shot, per second, or per 1M (input) tokens, by the model's unit. */
  costMicro: Micro;
  /** Per 1M output tokens; absent: output tokens cost costMicro as well. */
  costOutputMicro?: Micro;
}

export interface DeliveredTask {
  unit: 'shot' | 'sec' | 'mtok';
  completed: boolean;
  /** Seconds of video delivered (sec unit). */
  seconds?: number | null;
  /** Tokens the upstream reported (token-billed video); else the worst case that was quoted. */
  tokens?: number | null;
}

/**
 * A task's provider cost. A failed task delivered nothing and costs 0 (upstreams bill results);
 * a `sec` task costs per second of the duration delivered (whole seconds, rounded up).
 */
export function taskProviderCost(cost: RouteCost | null, task: DeliveredTask): Micro | null {
  if (!cost) return null;
  if (!task.completed) return 0;
  switch (task.unit) {
    case 'shot':
      return cost.costMicro;
    case 'sec': {
      const seconds = task.seconds;
      if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return null;
      return cost.costMicro * Math.ceil(seconds);
    }
    case 'mtok': {
      const tokens = task.tokens;
      if (tokens === null || tokens === undefined || !Number.isFinite(tokens) || tokens < 0) return null;
      return tokenCost(cost.costMicro, Math.ceil(tokens));
    }
  }
}

/** A chat request's provider cost from the tokens the upstream reported (none: nothing billed). */
export function chatProviderCost(
  cost: RouteCost | null,
  usage: { promptTokens: number; completionTokens: number } | null,
): Micro | null {
  if (!cost) return null;
  if (!usage) return 0;
  return chatCost(usage.promptTokens, usage.completionTokens, {
    inputPerMillion: cost.costMicro,
    outputPerMillion: cost.costOutputMicro ?? cost.costMicro,
    coefficientPpm: 1_000_000,
  });
}
