// The request-path counters and histograms: their exposition is prom-client's, byte for byte the
// same as prom-client's own Counter and Histogram given the same observations.
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CounterFamily, HistogramFamily } from './metrics-series.js';

describe('metrics series', () => {
  it('a counter family renders as a prom-client Counter with the same increments', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const family = new CounterFamily({
      name: 'x_total',
      help: 'h',
      labelNames: ['a', 'b'],
      registers: [ours],
    });
    const counter = new Counter({ name: 'x_total', help: 'h', labelNames: ['a', 'b'], registers: [theirs] });
    for (const [a, b, n] of [
      ['p', 'q', 1],
      ['p', 'r', 2],
      ['p', 'q', 3],
      ['s"\\\n', 'q', 4],
    ] as const) {
      family.labels(a, b).inc(n);
      counter.inc({ a, b }, n);
    }
    expect(family.labels('p', 'q')).toBe(family.labels('p', 'q'));
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
  });

  it('a histogram family renders as a prom-client Histogram: cumulative buckets, +Inf, sum and count', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    // Sorted: prom-client keeps buckets in the order given (ours sorts them, see the last test).
    const buckets = [0.1, 0.5, 1];
    const family = new HistogramFamily({
      name: 'd_seconds',
      help: 'h',
      labelNames: ['r'],
      buckets,
      registers: [ours],
    });
    const histogram = new Histogram({
      name: 'd_seconds',
      help: 'h',
      labelNames: ['r'],
      buckets,
      registers: [theirs],
    });
    for (const [r, v] of [
      ['a', 0.05],
      ['a', 0.1],
      ['a', 0.7],
      ['a', 3],
      ['b', 0.5],
    ] as const) {
      family.labels(r).observe(v);
      histogram.observe({ r }, v);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).toContain('d_seconds_bucket{le="0.5",r="a"} 2');
  });

  it('reset zeroes series in place, so series held by callers keep counting', async () => {
    const registry = new Registry();
    const family = new CounterFamily({
      name: 'y_total',
      help: 'h',
      labelNames: ['a'],
      registers: [registry],
    });
    const held = family.labels('k');
    held.inc(5);
    registry.resetMetrics();
    held.inc();
    expect(await registry.metrics()).toContain('y_total{a="k"} 1');
  });

  it('refuses a wrong number of label names or repeated buckets; sorts buckets', () => {
    expect(() => new CounterFamily({ name: 'z', help: 'h', labelNames: [] })).toThrow();
    expect(() => new HistogramFamily({ name: 'z', help: 'h', labelNames: ['a'], buckets: [1, 1] })).toThrow();
    expect(
      new HistogramFamily({ name: 'z', help: 'h', labelNames: ['a'], buckets: [1, 0.1] }).buckets,
    ).toEqual([0.1, 1]);
    const family = new CounterFamily({ name: 'z', help: 'h', labelNames: ['a', 'b'] });
    expect(() => family.labels('only-one')).toThrow(/label b/);
  });
});
