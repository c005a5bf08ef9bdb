import { describe, expect, it } from 'vitest';
import { kopeckAmount, topupAmount, validEmail } from './topup-amount.js';

describe('top-up amounts', () => {
  it('reads whole kopecks exactly, from numbers and strings', () => {
    expect(kopeckAmount(500)).toBe(500_000_000);
    expect(kopeckAmount(0.1 + 0.2)).toBeUndefined(); // 0.30000000000000004 has more than 2 decimals
    expect(kopeckAmount('150.5')).toBe(150_500_000);
    expect(kopeckAmount(' 99.99 ')).toBe(99_990_000);
    for (const bad of ['1.001', '1e3', '-5', '', '1,5', null, {}, Number.NaN, Number.POSITIVE_INFINITY])
      expect(kopeckAmount(bad), String(bad)).toBeUndefined();
  });

  it('keeps to the bounds with invalid_amount', () => {
    expect(topupAmount(100, 100_000_000, 1_000_000_000)).toBe(100_000_000);
    expect(() => topupAmount(99.99, 100_000_000, 1_000_000_000)).toThrow(/from 100 to 1000/);
    expect(() => topupAmount(1000.01, 100_000_000, 1_000_000_000)).toThrow(
      expect.objectContaining({ code: 'invalid_amount', param: 'amount_rub' }),
    );
  });

  it('accepts plausible emails only', () => {
    expect(validEmail(' payer@example.com ')).toBe('payer@example.com');
    for (const bad of ['payer', 'a@b', 'a b@c.d', 5, `${'x'.repeat(250)}@e.com`])
      expect(validEmail(bad)).toBeUndefined();
  });
});
