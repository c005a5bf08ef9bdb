// Scenario 1: the chat proxy, non-streaming, N connections. gengate does auth, rate limit, hold,
// settle and a usage row per request; the bare pass-through does none of it; Portkey is a peer.
import type { GengateInstance } from '../gengate.js';
import { ratio } from '../stats.js';
import { loadProblem, TARGETS } from '../targets.js';
import type { LoadStats } from '../types.js';
import { type ChatSystem, chatTargets } from './chat-targets.js';
import { addFigure, asJob, type BenchEnvironment, loadDetail, measureLoad, section } from './context.js';
import { failure, preflight, type Reasons } from './preflight.js';

export async function chatThroughput(env: BenchEnvironment, gengate: GengateInstance): Promise<void> {
  const scenario = `chat, non-streaming, ${env.settings.connections} connections`;
  section(`${scenario} [${gengate.engine}]`);
  const targets = chatTargets(env, gengate, false);
  const gate = failure(await preflight(targets.gengate!, 200));
  const portkeyGate: Reasons = targets.portkey
    ? failure(await preflight(targets.portkey, 200))
    : { skip: `Portkey not available: ${env.portkeyProblem}` };
  const measured: Partial<Record<ChatSystem, LoadStats>> = {};
  if (!gate.skip && !gate.invalid) {
    for (const system of ['bare pass-through', 'gengate', 'portkey', 'direct upstream'] as const) {
      const target = targets[system];
      if (!target || (system === 'portkey' && (portkeyGate.skip || portkeyGate.invalid))) continue;
      measured[system] = await measureLoad(env, scenario, system, gengate.engine, asJob(target));
    }
  }
  const g = measured.gengate;
  const versus = (other: LoadStats | undefined, otherName: string, otherGate: Reasons = {}): Reasons => {
    const skip = gate.skip ?? otherGate.skip;
    if (skip) return { skip };
    return {
      invalid:
        gate.invalid ?? otherGate.invalid ?? loadProblem(g, 'gengate') ?? loadProblem(other, otherName),
    };
  };
  addFigure(env, {
    id: 'chat-vs-bare',
    label: 'chat throughput, gengate / bare pass-through',
    engine: gengate.engine,
    unit: '×',
    // Issue 17 sets PostgreSQL's chat target against Portkey only.
    target: gengate.engine === 'postgres' ? null : TARGETS.chatVsBare,
    value: ratio(g?.requestsPerSec, measured['bare pass-through']?.requestsPerSec),
    detail: `${loadDetail('gengate', g)} vs ${loadDetail('bare', measured['bare pass-through'])}`,
    ...versus(measured['bare pass-through'], 'bare pass-through'),
  });
  addFigure(env, {
    id: 'chat-vs-portkey',
    label: 'chat throughput, gengate / Portkey',
    engine: gengate.engine,
    unit: '×',
    target: gengate.engine === 'postgres' ? TARGETS.chatVsPortkeyPg : TARGETS.chatVsPortkey,
    value: ratio(g?.requestsPerSec, measured.portkey?.requestsPerSec),
    detail: `${loadDetail('gengate', g)} vs ${loadDetail('Portkey', measured.portkey)}`,
    ...versus(measured.portkey, 'portkey', portkeyGate),
  });
}
