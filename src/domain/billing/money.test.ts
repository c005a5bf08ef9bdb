import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyCoefficient, coefficientToPpm, microToRub, rubToMicro, tokenCost } from './money.js';

describe('money', () => {
  it('parses rubles into integer micro-rubles without float error', () => {
    expect(rubToMicro(0.1)).toBe(100_000);
    expect(rubToMicro(0.3)).toBe(300_000);
    expect(rubToMicro('12.345678')).toBe(12_345_678);
    expect(rubToMicro(1000)).toBe(1_000_000_000);
    expect(rubToMicro(-5)).toBe(-5_000_000);
    expect(rubToMicro(1e-6)).toBe(1);
  });

  it('rejects more than 6 decimals, non-numbers and absurd amounts', () => {
    expect(() => rubToMicro(0.0000001)).toThrow(/6 decimals/);
    expect(() => rubToMicro('abc')).toThrow();
    expect(() => rubToMicro(Number.NaN)).toThrow();
    expect(() => rubToMicro(1e15)).toThrow(/too large/);
  });

  it('round-trips every micro amount through its ruble rendering', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000_000_000 }), (micro) => {
        expect(rubToMicro(microToRub(micro))).toBe(micro);
      }),
    );
  });

  it('applies the coefficient with integer arithmetic, rounding up to the micro-ruble', () => {
    expect(applyCoefficient(45_000_000, coefficientToPpm(1))).toBe(45_000_000);
    expect(applyCoefficient(45_000_000, coefficientToPpm(1.5))).toBe(67_500_000);
    expect(applyCoefficient(1, coefficientToPpm(0.5))).toBe(1);
    expect(applyCoefficient(3, coefficientToPpm(0.333333))).toBe(1);
    expect(() => coefficientToPpm(0)).toThrow(/positive/);
  });

  it('prices tokens per million, rounding up', () => {
    expect(tokenCost(225_000_000, 1_000_000)).toBe(225_000_000);
    expect(tokenCost(225_000_000, 1)).toBe(225);
    expect(tokenCost(13_500_000, 7)).toBe(95); // 94.5 rounds up
  });
});
