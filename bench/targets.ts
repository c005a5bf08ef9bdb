// The targets of issue 7 and how a figure is judged against them. Ratios, not absolute times, are
// the figures we track; an absolute figure only where the issue sets one (added latency, tasks/s, RSS).
import type { Engine, Figure, LoadStats, Target, Verdict } from './types.js';

export const TARGETS = {
  chatVsBare: { op: '>=', value: 0.5 },
  chatVsPortkey: { op: '>=', value: 5 },
  addedLatencyMs: { op: '<=', value: 0.3 },
  generateVsBare: { op: '>=', value: 0.25 },
  tasksGetVsBare: { op: '>=', value: 0.5 },
  /** The issue sets tasks/s for SQLite only; on PostgreSQL the figure is reported without a target. */
  taskThroughputSqlite: { op: '>=', value: 1000 },
  peakRssMb: { op: '<=', value: 300 },
  ledgerViolations: { op: '<=', value: 0 },
  /** Issue 17, PostgreSQL + Redis: chat on one hot key, 32 connections, against Portkey. */
  chatVsPortkeyPg: { op: '>=', value: 3 },
  /** Issue 17: added p50 latency of a chat request at 1 connection on PostgreSQL. */
  addedLatencyMsPg: { op: '<=', value: 1 },
  /** Issue 17: POST /generate on PostgreSQL against gengate on SQLite in the same run. */
  generatePgVsSqlite: { op: '>=', value: 0.5 },
  /** Issue 17: the task pipeline, 2 API + 2 worker processes on PostgreSQL. */
  pipelineTasksPerSecPg: { op: '>=', value: 1000 },
  /** Issue 17: p99 from POST to webhook, above the simulated latency (0 ms in the bench). */
  pipelineP99Ms: { op: '<=', value: 2000 },
  /** Issue 16: a restart serves within a second of exec. */
  startTimeMs: { op: '<=', value: 1000 },
  /** Issue 31: a fresh clone's `npm start` (install, build, serve) answers within 25 s. */
  firstStartMs: { op: '<=', value: 25_000 },
  /**
   * Issue 28: POST /v1/messages, a Claude Code-sized streamed body, against the bare pass-through.
   * This and the next are SQLite's (`npm run bench`); on PostgreSQL both figures are reported only.
   */
  messagesVsBare: { op: '>=', value: 0.5 },
  /** Issue 28: added time to the first event of that stream at 1 connection. */
  messagesAddedTtfbMs: { op: '<=', value: 1 },
} as const satisfies Record<string, Target>;

export function meets(value: number, target: Target): boolean {
  return target.op === '>=' ? value >= target.value : value <= target.value;
}

export interface FigureInput {
  id: string;
  label: string;
  engine: Engine | null;
  unit: string;
  target: Target | null;
  value: number | null;
  detail: string;
  /** The figure could not be measured because something it needs does not exist yet. */
  skip?: string;
  /** The figure was measured but cannot be trusted (failed requests, failed tasks, a timeout). */
  invalid?: string;
  note?: string;
}

/** SKIP wins (nothing was measured), then an invalid run is a MISS, then the comparison decides. */
export function judge(input: Pick<FigureInput, 'value' | 'target' | 'skip' | 'invalid'>): Verdict {
  if (input.skip) return 'SKIP';
  if (input.invalid) return 'MISS';
  if (input.value === null || !Number.isFinite(input.value)) return input.target ? 'MISS' : 'INFO';
  if (!input.target) return 'INFO';
  return meets(input.value, input.target) ? 'PASS' : 'MISS';
}

export function makeFigure(input: FigureInput): Figure {
  const verdict = judge(input);
  const note = [input.skip, input.invalid, input.note].filter(Boolean).join('; ') || undefined;
  return {
    id: input.id,
    label: input.label,
    engine: input.engine,
    value: input.skip ? null : input.value,
    unit: input.unit,
    detail: input.detail,
    target: input.target,
    verdict,
    ...(note ? { note } : {}),
  };
}

/** Why a load run cannot be trusted, or undefined when every request succeeded. */
export function loadProblem(stats: LoadStats | undefined, system: string): string | undefined {
  if (!stats) return `${system}: not measured`;
  const failed = stats.non2xx + stats.errors + stats.timeouts;
  if (stats.ok === 0) return `${system}: no request succeeded (${describeStatuses(stats)})`;
  if (failed > 0)
    return `${system}: ${failed} of ${stats.ok + failed} requests failed (${describeStatuses(stats)})`;
  return undefined;
}

function describeStatuses(stats: LoadStats): string {
  const codes = Object.entries(stats.statusCodes)
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, count]) => `${count}× HTTP ${code}`);
  if (stats.errors) codes.push(`${stats.errors} socket errors`);
  if (stats.timeouts) codes.push(`${stats.timeouts} timeouts`);
  return codes.join(', ') || 'no answers';
}

export function formatTarget(target: Target | null, unit: string): string {
  if (!target) return '—';
  const op = target.op === '>=' ? '≥' : '≤';
  return `${op} ${target.value.toLocaleString('en-US')}${unit === '×' ? '' : ` ${unit}`}`;
}

/** Thousands separators and a precision that suits the magnitude: 12,345 · 123.4 · 1.23 · 0.123 · 4. */
export function formatNumber(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  const abs = Math.abs(value);
  const digits = Number.isInteger(value) || abs >= 1000 ? 0 : abs >= 100 ? 1 : abs >= 1 ? 2 : 3;
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
