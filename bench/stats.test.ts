import { describe, expect, it } from 'vitest';
import { median, percentile, ratio, summarizeLatencies } from './stats.js';

describe('percentile (nearest rank)', () => {
  it('returns an observed value, never an interpolation', () => {
    const sorted = [1, 2, 3, 4];
    expect(percentile(sorted, 50)).toBe(2);
    expect(percentile(sorted, 75)).toBe(3);
    expect(percentile(sorted, 76)).toBe(4);
    expect(percentile(sorted, 99)).toBe(4);
  });

  it('takes the 99th percentile of 100 samples as the 99th value, and of 1,000 as the 990th', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 50)).toBe(50);
    const thousand = Array.from({ length: 1000 }, (_, i) => i + 1);
    expect(percentile(thousand, 99)).toBe(990);
  });

  it('handles the edges: one sample, p0, p100, no samples', () => {
    expect(percentile([7], 50)).toBe(7);
    expect(percentile([1, 5, 9], 0)).toBe(1);
    expect(percentile([1, 5, 9], 100)).toBe(9);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('summarizeLatencies', () => {
  it('sorts unsorted samples and keeps the failure count', () => {
    const summary = summarizeLatencies([0.9, 0.1, 0.5, 0.3, 0.7], 2);
    expect(summary).toEqual({
      count: 5,
      p50Ms: 0.5,
      p99Ms: 0.9,
      meanMs: expect.closeTo(0.5, 10),
      failures: 2,
    });
  });

  it('does not reorder the caller’s array', () => {
    const samples = [3, 1, 2];
    summarizeLatencies(samples);
    expect(samples).toEqual([3, 1, 2]);
  });
});

describe('ratio', () => {
  it('divides, and gives null when a side is missing or the divisor is zero', () => {
    expect(ratio(50, 200)).toBe(0.25);
    expect(ratio(undefined, 200)).toBeNull();
    expect(ratio(50, null)).toBeNull();
    expect(ratio(50, 0)).toBeNull();
    expect(ratio(Number.NaN, 1)).toBeNull();
  });
});

describe('median', () => {
  it('is the nearest-rank middle of values in any order', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([40, 10, 30, 20])).toBe(20);
    expect(median([])).toBeNaN();
  });
});
