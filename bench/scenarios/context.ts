// What every scenario gets: the settings, the load process, the helper services, and the sinks
// where it leaves its figures and measurements (each figure is printed as soon as it is known).
import type { GengateInstance } from '../gengate.js';
import type { AutocannonJob, HttpTarget, LoadGenerator } from '../load.js';
import { renderFigureLine } from '../report.js';
import type { Service } from '../services.js';
import { type FigureInput, formatNumber, makeFigure } from '../targets.js';
import type { BenchSettings, Figure, LoadStats, Measurement } from '../types.js';

export interface BenchEnvironment {
  settings: BenchSettings;
  load: LoadGenerator;
  upstream: Service;
  /** Base URL of the fake upstream as an OpenAI provider sees it (with /v1). */
  upstreamBaseUrl: string;
  baselines: Service;
  portkey: Service | null;
  /** Why Portkey is not available, when it is not. */
  portkeyProblem?: string;
  receiver: Service;
  figures: Figure[];
  measurements: Measurement[];
  /** gengate's POST /generate run per engine: PostgreSQL's target is a ratio to SQLite's. */
  generateRuns?: Partial<Record<'sqlite' | 'postgres', LoadStats>>;
}

const STARTED = Date.now();

export function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** A scenario's heading, with the time since the bench started (the quick run must stay under 2 minutes). */
export function section(title: string): void {
  log(`▸ ${title}  [+${((Date.now() - STARTED) / 1000).toFixed(1)} s]`);
}

export function addFigure(env: BenchEnvironment, input: FigureInput): Figure {
  const figure = makeFigure(input);
  env.figures.push(figure);
  log(`  ${renderFigureLine(figure)}`);
  return figure;
}

export function describeLoad(stats: LoadStats): string {
  const failed = stats.non2xx + stats.errors + stats.timeouts;
  return `${formatNumber(stats.requestsPerSec)} req/s, p50 ${formatNumber(stats.p50Ms)} ms, p99 ${formatNumber(stats.p99Ms)} ms${failed ? `, ${failed} failed` : ''}${stats.generator ? `; ${describeGenerator(stats)}` : ''}`;
}

/** "wrk, 2 threads: 41% CPU": what generated a load run and the CPU it needed for it. */
export function describeGenerator(stats: LoadStats | undefined): string {
  if (!stats?.generator) return 'generator unknown';
  const { tool, cpuPct } = stats.generator;
  return `${tool}: ${cpuPct === null ? '? ' : formatNumber(Math.round(cpuPct))}% CPU`;
}

/** A load figure's "measured" text: req/s with the generator's CPU in brackets. */
export function loadDetail(name: string, stats: LoadStats | undefined): string {
  return `${name} ${formatNumber(stats?.requestsPerSec)} req/s (${describeGenerator(stats)})`;
}

/** Warm up, then measure one system under the scenario's connections and duration. */
export async function measureLoad(
  env: BenchEnvironment,
  scenario: string,
  system: string,
  engine: Measurement['engine'],
  job: Omit<AutocannonJob, 'connections' | 'durationSec'>,
): Promise<LoadStats> {
  const full: AutocannonJob = {
    ...job,
    connections: env.settings.connections,
    durationSec: env.settings.durationSec,
    tool: env.settings.loadGenerator,
  };
  await env.load.warmup(full, env.settings.warmupSec);
  const stats = await env.load.autocannon(full);
  env.measurements.push({ scenario, system, engine, load: stats });
  log(`  · ${system}: ${describeLoad(stats)}`);
  return stats;
}

export function gengateTarget(
  gengate: GengateInstance,
  method: 'GET' | 'POST',
  path: string,
  body?: string,
): HttpTarget {
  return {
    name: 'gengate',
    origin: gengate.origin,
    method,
    path,
    headers: { ...gengate.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body,
  };
}

export function asJob(target: HttpTarget): Omit<AutocannonJob, 'connections' | 'durationSec'> {
  return {
    origin: target.origin,
    method: target.method,
    path: target.path,
    headers: target.headers,
    body: target.body,
  };
}
