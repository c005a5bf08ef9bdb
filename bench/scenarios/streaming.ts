// Scenario 3: streaming chat, gengate vs the direct upstream: time to the first chunk and chunks
// per second. The issue sets no target here; both figures are reported for tracking.
import type { GengateInstance } from '../gengate.js';
import { ratio } from '../stats.js';
import { formatNumber } from '../targets.js';
import type { StreamSummary } from '../types.js';
import { chatTargets } from './chat-targets.js';
import { addFigure, type BenchEnvironment, log, section } from './context.js';
import { failure, preflight } from './preflight.js';

function problem(summary: StreamSummary | undefined, system: string): string | undefined {
  if (!summary || summary.streams === 0) return `${system}: no stream completed`;
  if (summary.failures > 0) return `${system}: ${summary.failures} streams failed or ended without [DONE]`;
  return undefined;
}

export async function streaming(env: BenchEnvironment, gengate: GengateInstance): Promise<void> {
  const scenario = 'chat, streaming, 1 connection';
  section(`${scenario} [${gengate.engine}]`);
  const targets = chatTargets(env, gengate, true);
  const gate = failure(await preflight(targets.gengate!, 200));
  let summaries: Record<string, StreamSummary> = {};
  if (!gate.skip && !gate.invalid) {
    const { streamRounds: rounds, streamsPerRound: perRound } = env.settings;
    const systems = [targets['direct upstream']!, targets.gengate!];
    summaries = await env.load.streams({ targets: systems, warmup: perRound, rounds, perRound });
    for (const target of systems) {
      const s = summaries[target.name];
      env.measurements.push({ scenario, system: target.name, engine: gengate.engine, stream: s });
      log(
        `  · ${target.name}: first chunk p50 ${formatNumber(s.ttfcP50Ms)} ms, ${formatNumber(s.chunksPerSec)} chunks/s, ${formatNumber(s.chunksPerStream)} chunks per stream`,
      );
    }
  }
  const g = summaries.gengate;
  const d = summaries['direct upstream'];
  const invalid = gate.skip
    ? undefined
    : (gate.invalid ?? problem(g, 'gengate') ?? problem(d, 'direct upstream'));
  addFigure(env, {
    id: 'stream-ttfc-added',
    label: 'streaming, time to first chunk, gengate − direct',
    engine: gengate.engine,
    unit: 'ms',
    target: null,
    value: g && d ? g.ttfcP50Ms - d.ttfcP50Ms : null,
    detail: `p50 ${formatNumber(g?.ttfcP50Ms)} ms vs direct ${formatNumber(d?.ttfcP50Ms)} ms`,
    skip: gate.skip,
    invalid,
  });
  addFigure(env, {
    id: 'stream-chunks-ratio',
    label: 'streaming, chunks/s, gengate / direct',
    engine: gengate.engine,
    unit: '×',
    target: null,
    value: ratio(g?.chunksPerSec, d?.chunksPerSec),
    detail: `${formatNumber(g?.chunksPerSec)} vs ${formatNumber(d?.chunksPerSec)} chunks/s`,
    skip: gate.skip,
    invalid,
  });
}
