// The Messages API with a Claude Code-sized request (bench/messages-body.ts: about 90 KB, 12 tools,
// streamed), on gengate's pass-through to an Anthropic route, the bare pass-through and the direct
// upstream (the fake upstream's POST /v1/messages), in one run:
//   1. throughput at N connections, gengate ÷ bare (target ≥ 0.5), with the CPU each process
//      spent per request (from /proc, over the measured run);
//   2. time to the first event at 1 connection, one stream at a time, the systems taking turns:
//      gengate − direct upstream (target ≤ 1 ms), beside the raw relay (node:http reading the bytes and
//      sending them on unparsed, baselines/raw-relay.ts): the least any gateway that reads the body
//      first pays on this machine.
import { readFileSync } from 'node:fs';
import { RAW_RELAY_PATH } from '../baselines/raw-relay.js';
import type { GengateInstance } from '../gengate.js';
import type { HttpTarget } from '../load.js';
import { MESSAGES_PATH, messagesBody } from '../messages-body.js';
import { parseProcStat } from '../proc-stat.js';
import { ratio } from '../stats.js';
import { formatNumber, loadProblem, TARGETS } from '../targets.js';
import type { LoadStats, StreamSummary } from '../types.js';
import { addFigure, asJob, type BenchEnvironment, describeLoad, log, section } from './context.js';
import { failure, preflight } from './preflight.js';

export type MessagesSystem = 'gengate' | 'bare pass-through' | 'raw relay' | 'direct upstream';

/** The same Messages request addressed to each system; gengate with its key as x-api-key. */
export function messagesTargets(
  env: BenchEnvironment,
  gengate: GengateInstance,
): Record<MessagesSystem, HttpTarget> {
  const model = env.settings.messagesModel;
  const headers = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' };
  const target = (name: MessagesSystem, origin: string, key: string, body: string): HttpTarget => ({
    name,
    origin,
    path: MESSAGES_PATH,
    method: 'POST',
    headers: { ...headers, 'x-api-key': key },
    body,
  });
  const gengateKey = gengate.auth.authorization.replace(/^Bearer /, '');
  return {
    gengate: target('gengate', gengate.origin, gengateKey, messagesBody(model)),
    'bare pass-through': target('bare pass-through', env.baselines.origin, 'sk-fake', messagesBody(model)),
    // The raw relay rewrites nothing: it is sent the body the upstream gets.
    'raw relay': {
      ...target('raw relay', env.baselines.origin, 'sk-fake', messagesBody(`${model}-upstream`)),
      path: RAW_RELAY_PATH,
    },
    // The upstream gets the id gengate would send it.
    'direct upstream': target(
      'direct upstream',
      env.upstream.origin,
      'sk-fake',
      messagesBody(`${model}-upstream`),
    ),
  };
}

/** utime + stime of a process, in ms. */
function cpuMsOf(pid: number): number {
  return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8')).cpuMs;
}

/** CPU ms per completed request of a run, or null when nothing completed. */
export function cpuPerRequest(cpuMs: number, stats: LoadStats | undefined): number | null {
  return stats && stats.ok > 0 ? cpuMs / stats.ok : null;
}

export async function messagesScenario(env: BenchEnvironment, gengate: GengateInstance): Promise<void> {
  const scenario = `messages, Claude Code-sized stream, ${env.settings.connections} connections`;
  section(`${scenario} [${gengate.engine}]`);
  const targets = messagesTargets(env, gengate);
  const gate = failure(await preflight(targets.gengate, 200));
  const measured: Partial<Record<MessagesSystem, LoadStats>> = {};
  const cpu: Partial<Record<MessagesSystem, number | null>> = {};
  const pids: Record<Exclude<MessagesSystem, 'raw relay'>, number> = {
    gengate: gengate.child.pid,
    'bare pass-through': env.baselines.child.pid,
    'direct upstream': env.upstream.child.pid,
  };
  if (!gate.skip && !gate.invalid) {
    for (const system of ['bare pass-through', 'gengate', 'direct upstream'] as const) {
      const job = {
        ...asJob(targets[system]),
        connections: env.settings.connections,
        durationSec: env.settings.durationSec,
        tool: env.settings.loadGenerator,
      };
      await env.load.warmup(job, env.settings.warmupSec);
      const before = cpuMsOf(pids[system]);
      const stats = await env.load.autocannon(job);
      cpu[system] = cpuPerRequest(cpuMsOf(pids[system]) - before, stats);
      measured[system] = stats;
      env.measurements.push({ scenario, system, engine: gengate.engine, load: stats });
      log(`  · ${system}: ${describeLoad(stats)}; ${formatNumber(cpu[system])} ms CPU per request`);
    }
  }
  const g = measured.gengate;
  const bare = measured['bare pass-through'];
  const invalid = gate.skip
    ? undefined
    : (gate.invalid ?? loadProblem(g, 'gengate') ?? loadProblem(bare, 'bare pass-through'));
  addFigure(env, {
    id: 'messages-vs-bare',
    label: 'messages throughput (90 KB, streamed), gengate / bare pass-through',
    engine: gengate.engine,
    unit: '×',
    // Issue 28's targets are `npm run bench`'s, the embedded engine's; on PostgreSQL the figures are
    // informational, as every PostgreSQL figure without a target of its own (bench/README.md).
    target: gengate.engine === 'postgres' ? null : TARGETS.messagesVsBare,
    value: ratio(g?.requestsPerSec, bare?.requestsPerSec),
    detail: `gengate ${formatNumber(g?.requestsPerSec)} vs bare ${formatNumber(bare?.requestsPerSec)} vs direct ${formatNumber(measured['direct upstream']?.requestsPerSec)} req/s`,
    skip: gate.skip,
    invalid,
  });
  addFigure(env, {
    id: 'messages-cpu-per-request',
    label: 'messages, CPU per request, gengate (bare pass-through)',
    engine: gengate.engine,
    unit: 'ms',
    target: null,
    value: cpu.gengate ?? null,
    detail: `gengate ${formatNumber(cpu.gengate)} ms, bare ${formatNumber(cpu['bare pass-through'])} ms, upstream ${formatNumber(cpu['direct upstream'])} ms of CPU per request`,
    skip: gate.skip,
    invalid,
  });
  await firstEvent(env, gengate, targets, gate);
}

async function firstEvent(
  env: BenchEnvironment,
  gengate: GengateInstance,
  targets: Record<MessagesSystem, HttpTarget>,
  gate: { skip?: string; invalid?: string },
): Promise<void> {
  const scenario = 'messages, Claude Code-sized stream, 1 connection';
  section(`${scenario} [${gengate.engine}]`);
  let summaries: Record<string, StreamSummary> = {};
  if (!gate.skip && !gate.invalid) {
    const { streamRounds: rounds, messagesStreamsPerRound: perRound } = env.settings;
    const systems = [
      targets['direct upstream'],
      targets['raw relay'],
      targets['bare pass-through'],
      targets.gengate,
    ];
    summaries = await env.load.streams({ targets: systems, warmup: perRound * 4, rounds, perRound });
    for (const target of systems) {
      const s = summaries[target.name];
      env.measurements.push({ scenario, system: target.name, engine: gengate.engine, stream: s });
      log(
        `  · ${target.name}: first event p50 ${formatNumber(s.ttfcP50Ms)} ms, ${formatNumber(s.chunksPerStream)} events per stream`,
      );
    }
  }
  const g = summaries.gengate;
  const d = summaries['direct upstream'];
  const b = summaries['bare pass-through'];
  const r = summaries['raw relay'];
  const broken = [g, d, b, r].some((s) => !s || s.streams === 0 || s.failures > 0);
  const invalid = gate.skip
    ? undefined
    : (gate.invalid ?? (broken ? 'a stream failed or ended without message_stop' : undefined));
  const added = g && d ? g.ttfcP50Ms - d.ttfcP50Ms : null;
  addFigure(env, {
    id: 'messages-ttfb-added',
    label: 'messages, time to first event at 1 connection, gengate − direct',
    engine: gengate.engine,
    unit: 'ms',
    target: gengate.engine === 'postgres' ? null : TARGETS.messagesAddedTtfbMs,
    value: added,
    detail: `p50 ${formatNumber(g?.ttfcP50Ms)} ms vs direct ${formatNumber(d?.ttfcP50Ms)} ms (bare ${formatNumber(b?.ttfcP50Ms)} ms)`,
    skip: gate.skip,
    invalid,
  });
  addFigure(env, {
    id: 'messages-ttfb-raw-relay',
    label: 'messages, time to first event at 1 connection, raw relay − direct',
    engine: gengate.engine,
    unit: 'ms',
    target: null,
    value: r && d ? r.ttfcP50Ms - d.ttfcP50Ms : null,
    detail: `p50 ${formatNumber(r?.ttfcP50Ms)} ms vs direct ${formatNumber(d?.ttfcP50Ms)} ms: node:http relaying the 90 KB unparsed, the floor of a gateway that reads the body first`,
    skip: gate.skip,
    invalid,
  });
  addFigure(env, {
    id: 'messages-ttfb-vs-bare',
    label: 'messages, time to first event at 1 connection, gengate − bare pass-through',
    engine: gengate.engine,
    unit: 'ms',
    target: null,
    value: g && b ? g.ttfcP50Ms - b.ttfcP50Ms : null,
    detail: `p50 ${formatNumber(g?.ttfcP50Ms)} ms vs bare ${formatNumber(b?.ttfcP50Ms)} ms: what gengate adds beyond reading and forwarding the 90 KB`,
    skip: gate.skip,
    invalid,
  });
  addFigure(env, {
    id: 'messages-ttfb-gateway-share',
    label: 'messages, gengate’s own share of the time to first event at 1 connection (Server-Timing)',
    engine: gengate.engine,
    unit: 'ms',
    target: null,
    value: g?.gatewayP50Ms ?? null,
    detail: `p50 of the gateway;dur gengate reports on each answer (request in to first event out, less the upstream's time to its answer); the rest of the ${formatNumber(added)} ms of gengate − direct is the two extra hops between processes`,
    skip: gate.skip,
    invalid,
  });
}
