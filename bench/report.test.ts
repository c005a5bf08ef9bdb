import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseOptions } from './options.js';
import { renderFigureLine, renderMarkdown, writeReport } from './report.js';
import { makeFigure, TARGETS } from './targets.js';
import type { BenchReport } from './types.js';

function report(): BenchReport {
  return {
    meta: {
      startedAt: '2026-01-01T00:00:00.000Z',
      finishedAt: '2026-01-01T00:03:00.000Z',
      commit: 'abc1234',
      node: 'v20.20.2',
      cpus: 2,
      cpuModel: 'Test CPU',
      platform: 'linux',
      totalMemMb: 4096,
      loadAverageAtStart: [0.5, 0.25, 0.125],
      portkeyVersion: '1.15.2',
    },
    settings: parseOptions(['--quick']).settings,
    figures: [
      makeFigure({
        id: 'chat-vs-bare',
        label: 'chat throughput, gengate / bare pass-through',
        engine: 'sqlite',
        unit: '×',
        target: TARGETS.chatVsBare,
        value: 0.62,
        detail: 'gengate 6,200 req/s vs bare 10,000 req/s',
      }),
      makeFigure({
        id: 'generate-vs-bare',
        label: 'POST /generate, gengate / bare POST',
        engine: 'postgres',
        unit: '×',
        target: TARGETS.generateVsBare,
        value: null,
        detail: '—',
        skip: 'POST /generate is not built yet | really',
      }),
    ],
    measurements: [
      {
        scenario: 'chat, non-streaming, 32 connections',
        system: 'gengate',
        engine: 'sqlite',
        load: {
          requestsPerSec: 6200,
          p50Ms: 4,
          p99Ms: 11,
          ok: 62_000,
          non2xx: 3,
          errors: 0,
          timeouts: 1,
          durationSec: 10,
          statusCodes: { '200': 62_000, '500': 3 },
          startedAtMs: 0,
        },
      },
      {
        scenario: 'chat, 1 connection',
        system: 'direct upstream',
        engine: 'sqlite',
        latency: { count: 400, p50Ms: 0.25, p99Ms: 1.5, meanMs: 0.3, failures: 0 },
      },
      {
        scenario: 'task throughput',
        system: 'gengate',
        engine: 'sqlite',
        extra: { 'tasks/s': 1234.5, note: 'x' },
      },
    ],
  };
}

describe('renderMarkdown', () => {
  it('states the machine and settings the figures come from', () => {
    const md = renderMarkdown(report());
    expect(md).toContain('# gengate benchmark (quick run)');
    expect(md).toContain('commit `abc1234`, Node v20.20.2, 2 CPU(s) (Test CPU)');
    expect(md).toContain('load average at start: 0.50 / 0.25 / 0.13');
    expect(md).toContain('1,000 tasks');
    expect(md).toContain(
      'latency 4×100 sequential requests per system (interleaved) after 100 of warm-up each',
    );
    expect(md).toContain('verdicts: 1 PASS, 0 MISS, 1 SKIP, 0 informational');
  });

  it('puts each figure next to its target and verdict, engine by engine', () => {
    const md = renderMarkdown(report());
    expect(md).toContain(
      '| chat throughput, gengate / bare pass-through | SQLite | gengate 6,200 req/s vs bare 10,000 req/s | 0.620× | ≥ 0.5 | **PASS** |',
    );
    expect(md).toContain(
      '| POST /generate, gengate / bare POST | PostgreSQL + Redis | — | — | ≥ 0.25 | **SKIP** |',
    );
  });

  it('lists measurements with their failures, and escapes table pipes in notes', () => {
    const md = renderMarkdown(report());
    expect(md).toContain(
      '| chat, non-streaming, 32 connections | gengate | SQLite | 6,200 req/s | 4 | 11 | 62,000 | 4 |',
    );
    expect(md).toContain(
      '| chat, 1 connection | direct upstream | SQLite | 1 connection, sequential | 0.250 | 1.50 | 400 | 0 |',
    );
    expect(md).toContain('tasks/s 1,235, note x');
    expect(md).not.toContain('## Task runs');
    expect(md).toContain(
      '- **SKIP** POST /generate, gengate / bare POST [PostgreSQL + Redis]: POST /generate is not built yet | really',
    );
  });
});

describe('task runs', () => {
  it('shows a load run with scenario numbers in the table and its numbers under Task runs', () => {
    const withTaskRun = report();
    const load = withTaskRun.measurements[0].load;
    withTaskRun.measurements.push({
      scenario: 'task throughput, 1,000 tasks',
      system: 'gengate',
      engine: 'sqlite',
      load,
      extra: { 'tasks final': 1000, 'tasks/s': 1500.4, 'peak RSS MB (VmHWM)': 181.25 },
    });
    const md = renderMarkdown(withTaskRun);
    expect(md).toContain('| task throughput, 1,000 tasks | gengate | SQLite | 6,200 req/s |');
    expect(md).toContain(
      '## Task runs\n\n- task throughput, 1,000 tasks [SQLite]: tasks final 1,000, tasks/s 1,500, peak RSS MB (VmHWM) 181.3',
    );
  });
});

describe('renderFigureLine', () => {
  it('prints the verdict first, then the value against its target', () => {
    expect(renderFigureLine(report().figures[0])).toBe(
      'PASS  chat throughput, gengate / bare pass-through [SQLite]: 0.620×, target ≥ 0.5',
    );
  });
});

describe('writeReport', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('writes latest.md and a latest.json that reads back to the same report', () => {
    dir = mkdtempSync(join(tmpdir(), 'bench-report-'));
    const written = writeReport(report(), dir);
    expect(readFileSync(written.markdown, 'utf8')).toBe(renderMarkdown(report()));
    expect(JSON.parse(readFileSync(written.json, 'utf8'))).toEqual(JSON.parse(JSON.stringify(report())));
  });
});
