// Scenario 2: added latency at 1 connection, p50 of a system minus p50 of the direct upstream, from
// sequential requests timed in µs and interleaved round by round across the systems.
import type { GengateInstance } from '../gengate.js';
import type { HttpTarget } from '../load.js';
import { formatNumber, TARGETS } from '../targets.js';
import type { LatencySummary } from '../types.js';
import { chatTargets } from './chat-targets.js';
import { addFigure, type BenchEnvironment, log, section } from './context.js';
import { failure, preflight } from './preflight.js';

function problem(summary: LatencySummary | undefined, system: string): string | undefined {
  if (!summary || summary.count === 0) return `${system}: no request succeeded`;
  if (summary.failures > 0) return `${system}: ${summary.failures} requests failed`;
  return undefined;
}

/** Issue 17 allows PostgreSQL up to 1 ms (two committed statements per request). */
function targetOf(engine: GengateInstance['engine']) {
  return engine === 'postgres' ? TARGETS.addedLatencyMsPg : TARGETS.addedLatencyMs;
}

export async function addedLatency(env: BenchEnvironment, gengate: GengateInstance): Promise<void> {
  const scenario = 'chat, 1 connection, sequential';
  section(`${scenario} [${gengate.engine}]`);
  const targets = chatTargets(env, gengate, false);
  const gate = failure(await preflight(targets.gengate!, 200));
  const figure = (
    system: string,
    summaries: Record<string, LatencySummary>,
    isTarget: boolean,
    skip?: string,
  ) => {
    const direct = summaries['direct upstream'];
    const mine = summaries[system];
    const value = mine && direct ? mine.p50Ms - direct.p50Ms : null;
    addFigure(env, {
      id: `added-latency-${system.replace(/\W+/g, '-')}`,
      label: `added latency at 1 connection, ${system}`,
      engine: gengate.engine,
      unit: 'ms',
      target: isTarget ? targetOf(gengate.engine) : null,
      value,
      detail: `p50 ${formatNumber(mine?.p50Ms)} ms − direct p50 ${formatNumber(direct?.p50Ms)} ms`,
      skip,
      invalid: skip ? undefined : (problem(mine, system) ?? problem(direct, 'direct upstream')),
    });
  };
  if (gate.skip || gate.invalid) {
    addFigure(env, {
      id: 'added-latency-gengate',
      label: 'added latency at 1 connection, gengate',
      engine: gengate.engine,
      unit: 'ms',
      target: targetOf(gengate.engine),
      value: null,
      detail: '—',
      ...gate,
    });
    return;
  }
  const systems: HttpTarget[] = [
    targets['direct upstream']!,
    targets.gengate!,
    targets['bare pass-through']!,
  ];
  if (targets.portkey && !failure(await preflight(targets.portkey, 200)).invalid)
    systems.push(targets.portkey);
  const { latencyWarmup: warmup, latencyRounds: rounds, latencyPerRound: perRound } = env.settings;
  const summaries = await env.load.latency({ targets: systems, warmup, rounds, perRound });
  for (const target of systems) {
    const summary = summaries[target.name];
    env.measurements.push({ scenario, system: target.name, engine: gengate.engine, latency: summary });
    log(
      `  · ${target.name}: p50 ${formatNumber(summary.p50Ms)} ms, p99 ${formatNumber(summary.p99Ms)} ms (${summary.count} requests)`,
    );
  }
  figure('gengate', summaries, true);
  figure('bare pass-through', summaries, false);
  if (summaries.portkey) figure('portkey', summaries, false);
}
