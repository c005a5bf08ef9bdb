import { describe, expect, it } from 'vitest';
import { formatNumber, formatTarget, judge, loadProblem, makeFigure, TARGETS } from './targets.js';
import type { LoadStats } from './types.js';

const stats = (over: Partial<LoadStats> = {}): LoadStats => ({
  requestsPerSec: 1000,
  p50Ms: 3,
  p99Ms: 9,
  ok: 10_000,
  non2xx: 0,
  errors: 0,
  timeouts: 0,
  durationSec: 10,
  statusCodes: { '200': 10_000 },
  startedAtMs: 0,
  ...over,
});

describe('judge', () => {
  it('compares against ≥ and ≤ targets, the boundary included', () => {
    expect(judge({ value: 0.5, target: TARGETS.chatVsBare })).toBe('PASS');
    expect(judge({ value: 0.49, target: TARGETS.chatVsBare })).toBe('MISS');
    expect(judge({ value: 0.3, target: TARGETS.addedLatencyMs })).toBe('PASS');
    expect(judge({ value: 0.31, target: TARGETS.addedLatencyMs })).toBe('MISS');
  });

  it('never passes a skipped figure, even with a value that would pass', () => {
    expect(judge({ value: 10, target: TARGETS.chatVsPortkey, skip: 'route not built' })).toBe('SKIP');
  });

  it('misses a figure whose run cannot be trusted, even with a value that would pass', () => {
    expect(judge({ value: 2000, target: TARGETS.taskThroughputSqlite, invalid: '3 tasks failed' })).toBe(
      'MISS',
    );
  });

  it('misses a target without a value, and marks a figure without a target as informational', () => {
    expect(judge({ value: null, target: TARGETS.generateVsBare })).toBe('MISS');
    expect(judge({ value: 1.5, target: null })).toBe('INFO');
  });
});

describe('makeFigure', () => {
  it('drops the value of a skipped figure and explains why', () => {
    const figure = makeFigure({
      id: 'x',
      label: 'x',
      engine: 'sqlite',
      unit: '×',
      target: TARGETS.chatVsBare,
      value: 3,
      detail: '',
      skip: 'POST /v1/chat/completions is not built yet',
    });
    expect(figure).toMatchObject({
      verdict: 'SKIP',
      value: null,
      note: 'POST /v1/chat/completions is not built yet',
    });
  });

  it('keeps the value of a miss and joins the reasons', () => {
    const figure = makeFigure({
      id: 'x',
      label: 'x',
      engine: null,
      unit: 'ms',
      target: null,
      value: 1,
      detail: '',
      invalid: 'a',
      note: 'b',
    });
    expect(figure).toMatchObject({ verdict: 'MISS', value: 1, note: 'a; b' });
  });
});

describe('loadProblem', () => {
  it('accepts a run where every request succeeded', () => {
    expect(loadProblem(stats(), 'gengate')).toBeUndefined();
  });

  it('names failed answers by status, socket errors and timeouts', () => {
    const problem = loadProblem(
      stats({ ok: 90, non2xx: 8, errors: 1, timeouts: 1, statusCodes: { '200': 90, '402': 8 } }),
      'gengate',
    );
    expect(problem).toBe('gengate: 10 of 100 requests failed (8× HTTP 402, 1 socket errors, 1 timeouts)');
  });

  it('reports a run with no success and a run that never happened', () => {
    expect(loadProblem(stats({ ok: 0, non2xx: 5, statusCodes: { '404': 5 } }), 'bare')).toBe(
      'bare: no request succeeded (5× HTTP 404)',
    );
    expect(loadProblem(undefined, 'portkey')).toBe('portkey: not measured');
  });
});

describe('formatting', () => {
  it('prints targets as the issue writes them', () => {
    expect(formatTarget(TARGETS.chatVsBare, '×')).toBe('≥ 0.5');
    expect(formatTarget(TARGETS.taskThroughputSqlite, 'tasks/s')).toBe('≥ 1,000 tasks/s');
    expect(formatTarget(TARGETS.addedLatencyMs, 'ms')).toBe('≤ 0.3 ms');
    expect(formatTarget(null, 'ms')).toBe('—');
  });

  it('picks a precision that suits the magnitude', () => {
    expect(formatNumber(12345.6)).toBe('12,346');
    expect(formatNumber(123.45)).toBe('123.5');
    expect(formatNumber(1.234)).toBe('1.23');
    expect(formatNumber(0.1234)).toBe('0.123');
    expect(formatNumber(4)).toBe('4');
    expect(formatNumber(0)).toBe('0');
    expect(formatNumber(null)).toBe('—');
    expect(formatNumber(Number.NaN)).toBe('—');
  });
});
