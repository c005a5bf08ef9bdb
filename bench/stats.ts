// Percentile math for latency samples. Nearest-rank, like HDR histograms report it: the p-th
// percentile is a value that was actually observed, never an interpolation between two samples.
import type { LatencySummary } from './types.js';

/** The nearest-rank percentile of ascending `sorted` values; NaN for no samples. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  if (p <= 0) return sorted[0];
  if (p >= 100) return sorted[sorted.length - 1];
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[rank - 1];
}

/** The nearest-rank median of `values`, in any order; NaN for none. */
export function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

export function summarizeLatencies(samplesMs: readonly number[], failures = 0): LatencySummary {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const sum = sorted.reduce((acc, v) => acc + v, 0);
  return {
    count: sorted.length,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    meanMs: sorted.length ? sum / sorted.length : Number.NaN,
    failures,
  };
}

/** a / b, or null when either side is missing or b is zero (a ratio that cannot be formed). */
export function ratio(a: number | null | undefined, b: number | null | undefined): number | null {
  if (a == null || b == null || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return null;
  return a / b;
}
