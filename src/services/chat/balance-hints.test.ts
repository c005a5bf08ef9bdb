import { describe, expect, it } from 'vitest';
import { BalanceHints } from './balance-hints.js';

describe('BalanceHints', () => {
  it('covers nothing for a key it has not seen', () => {
    expect(new BalanceHints().covers(1, 10, 0)).toBe(false);
  });

  it('covers a hold that fits twice over, and counts it against the remembered balance', () => {
    const hints = new BalanceHints();
    hints.record(1, 100, 0);
    expect(hints.covers(1, 50, 0)).toBe(true); // 100 ≥ 2 × 50; 50 left
    expect(hints.covers(1, 30, 0)).toBe(false); // 50 < 2 × 30
    expect(hints.covers(1, 25, 0)).toBe(true); // 50 ≥ 2 × 25
    expect(hints.covers(2, 1, 0)).toBe(false); // another key
  });

  it('trusts a balance for five seconds, and nothing after a refused hold', () => {
    const hints = new BalanceHints();
    hints.record(1, 1_000, 0);
    expect(hints.covers(1, 1, 5_000)).toBe(true);
    expect(hints.covers(1, 1, 5_001)).toBe(false);
    hints.record(1, 1_000, 6_000);
    hints.forget(1);
    expect(hints.covers(1, 1, 6_000)).toBe(false);
  });
});
