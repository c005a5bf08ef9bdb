// The scaled-out task pipeline (issue 17), PostgreSQL only: 2 API processes (`--role api`) and 2
// worker processes (`--role worker`) on one fresh schema, one hot key. N tasks with webhooks are
// POSTed, half to each API process, and timed from the first POST to the last task's webhook. Each
// task's own time from POST to webhook comes from its id: a UUIDv7 carries gengate's clock when it
// accepted the POST, and the receiver notes when the first delivery arrived (same machine clock).
// The simulator runs at 0 ms, so the p99 is all gengate's: queueing, claims, steps, settlements,
// outbox, deliveries.
import { type CpuPerUnit, type CpuSnapshot, cpuPerUnit, cpuSnapshot } from '../cpu-snapshot.js';
import type { GengateInstance, GengateOptions } from '../gengate.js';
import { formatNumber, loadProblem, TARGETS } from '../targets.js';
import type { LoadStats } from '../types.js';
import {
  addFigure,
  asJob,
  type BenchEnvironment,
  describeGenerator,
  describeLoad,
  gengateTarget,
  log,
  section,
} from './context.js';
import { generateBody } from './generate.js';
import { type ReceiverStats, resetReceiver, waitForFinal, webhookUrl } from './receiver.js';
import { firstTaskWorks, ledgerFigure } from './throughput.js';

type Start = (
  role: GengateOptions['role'],
  purpose: string,
  joining?: GengateInstance,
) => Promise<GengateInstance>;

export async function taskPipeline(env: BenchEnvironment, start: Start): Promise<void> {
  const { tasks } = env.settings;
  const scenario = `task pipeline, 2 API + 2 worker processes, ${tasks.toLocaleString('en-US')} tasks, webhooks on`;
  section(`${scenario} [postgres]`);
  const started: GengateInstance[] = [];
  try {
    const api = await start('api', 'pipeline API 1');
    started.push(api);
    started.push(await start('api', 'pipeline API 2', api));
    started.push(await start('worker', 'pipeline worker 1', api));
    started.push(await start('worker', 'pipeline worker 2', api));
    const apis = started.slice(0, 2);
    log(`  · API processes at ${apis.map((a) => a.origin).join(', ')}; 2 worker processes`);

    const body = generateBody(env.settings.taskModel, webhookUrl(env), { samePrompt: true });
    await resetReceiver(env);
    const gate = await firstTaskWorks(env, api, body);
    let round: Round | undefined;
    let warmUp: Round | undefined;
    let warmUpProblem: string | undefined;
    if (!gate.skip && !gate.invalid) {
      // The same N tasks once untimed first: fresh processes spend the first seconds of load
      // compiling their hot code (a third of their CPU in the first 8 s of a cold 10,000-task run,
      // bench/NOTES.md round 9), which a server that has been up for a minute no longer pays. Its
      // figure is reported beside the timed one.
      warmUp = await runRound(env, apis, body, tasks);
      warmUpProblem = roundProblem(warmUp, tasks, 'warm-up');
      log(`  · warm-up (cold processes, untimed): ${describeRound(warmUp)}`);
      if (!warmUpProblem) {
        round = await runRound(env, apis, body, tasks);
        log(`  · timed: ${describeRound(round)}`);
        env.measurements.push({
          scenario,
          system: 'gengate',
          engine: 'postgres',
          extra: {
            ...roundFigures(round),
            'warm-up round (cold processes), tasks/s': warmUp.final.tasks / warmUp.elapsedSec,
            'warm-up round, POST→webhook p99 ms': warmUp.final.createdToWebhookMs.p99 ?? 'n/a',
          },
        });
      }
    }
    const loads = round?.loads ?? [];
    const final = round?.final;
    const elapsedSec = round?.elapsedSec ?? Number.NaN;
    const invalid = gate.skip
      ? undefined
      : (gate.invalid ?? warmUpProblem ?? (round && roundProblem(round, tasks, 'timed round')));
    const generators = loads.map((l) => describeGenerator(l)).join(' + ');
    addFigure(env, {
      id: 'pipeline-throughput',
      label: `task pipeline, 2 API + 2 worker processes, ${tasks.toLocaleString('en-US')} tasks, webhooks on`,
      engine: 'postgres',
      unit: 'tasks/s',
      target: TARGETS.pipelineTasksPerSecPg,
      value: final ? final.tasks / elapsedSec : null,
      detail: final
        ? `${final.tasks.toLocaleString('en-US')} tasks, first POST to last webhook ${formatNumber(elapsedSec)} s (${generators}), after an untimed warm-up round`
        : '—',
      skip: gate.skip,
      invalid,
    });
    // The warm-up round's own figures, no target: what the first seconds after a start deliver.
    addFigure(env, {
      id: 'pipeline-cold-round',
      label: 'task pipeline, untimed warm-up round on cold processes',
      engine: 'postgres',
      unit: 'tasks/s',
      target: null,
      value: warmUp ? warmUp.final.tasks / warmUp.elapsedSec : null,
      detail: warmUp
        ? `${warmUp.final.tasks.toLocaleString('en-US')} tasks in ${formatNumber(warmUp.elapsedSec)} s, POST→webhook p99 ${formatNumber(warmUp.final.createdToWebhookMs.p99)} ms, on processes that had run one task each`
        : '—',
      skip: gate.skip,
      invalid: gate.skip ? undefined : (gate.invalid ?? warmUpProblem),
    });
    addFigure(env, {
      id: 'pipeline-p99',
      label: 'task pipeline, p99 from POST to webhook (simulated latency 0 ms)',
      engine: 'postgres',
      unit: 'ms',
      target: TARGETS.pipelineP99Ms,
      value: final?.createdToWebhookMs.p99 ?? null,
      detail: final
        ? `p50 ${formatNumber(final.createdToWebhookMs.p50)} ms, p99 ${formatNumber(final.createdToWebhookMs.p99)} ms, max ${formatNumber(final.createdToWebhookMs.max)} ms over ${final.tasks.toLocaleString('en-US')} tasks`
        : '—',
      skip: gate.skip,
      invalid,
    });
    // No target: where the timed round's CPU went, per task (gengate by role, PostgreSQL, the bench).
    addFigure(env, {
      id: 'pipeline-cpu-per-task',
      label: 'task pipeline, machine CPU per task (timed round)',
      engine: 'postgres',
      unit: 'ms',
      target: null,
      value: round?.cpuPerTaskMs?.machine ?? null,
      detail: round?.cpuPerTaskMs ? describeCpu(round.cpuPerTaskMs) : '—',
      skip: gate.skip,
      invalid,
    });
    if (!gate.skip)
      await ledgerFigure(env, api, 'ledger invariants after the task pipeline', 'ledger-after-pipeline');
  } finally {
    for (const instance of started.reverse()) await instance.stop();
  }
}

interface Round {
  loads: LoadStats[];
  /** POSTs answered 202. */
  accepted: number;
  final: ReceiverStats;
  elapsedSec: number;
  /** CPU ms per final task over the round (Linux only). It also counts the wait for the last webhook. */
  cpuPerTaskMs?: CpuPerUnit;
}

/** N tasks POSTed, half to each API process, timed from the first POST to the last webhook. */
async function runRound(
  env: BenchEnvironment,
  apis: GengateInstance[],
  body: ReturnType<typeof generateBody>,
  tasks: number,
): Promise<Round> {
  const { connections, taskTimeoutSec } = env.settings;
  await resetReceiver(env);
  const share = Math.ceil(tasks / apis.length);
  const cpuBefore = tryCpuSnapshot();
  // A number of requests: autocannon (wrk only runs for a duration); its CPU is reported.
  const loads = await Promise.all(
    apis.map((instance) =>
      env.load.autocannon({
        ...asJob(gengateTarget(instance, 'POST', '/generate', body)),
        connections: Math.max(1, Math.floor(connections / apis.length)),
        amount: share,
        uniqueBodies: true,
        maxSec: taskTimeoutSec,
      }),
    ),
  );
  const accepted = loads.reduce((sum, l) => sum + l.ok, 0);
  const firstPostAt = Math.min(...loads.map((l) => l.startedAtMs));
  for (const [i, l] of loads.entries()) log(`  · POST /generate to API ${i + 1}: ${describeLoad(l)}`);
  const final = await waitForFinal(env, accepted, firstPostAt + taskTimeoutSec * 1000);
  const endMs = final.tasks >= accepted && final.lastFinalAtMs ? final.lastFinalAtMs : Date.now();
  const cpuAfter = tryCpuSnapshot();
  return {
    loads,
    accepted,
    final,
    elapsedSec: (endMs - firstPostAt) / 1000,
    cpuPerTaskMs: cpuBefore && cpuAfter ? cpuPerUnit(cpuBefore, cpuAfter, final.tasks) : undefined,
  };
}

/** /proc is Linux's: elsewhere the rounds go without CPU figures. */
function tryCpuSnapshot(): CpuSnapshot | undefined {
  try {
    return cpuSnapshot();
  } catch {
    return undefined;
  }
}

function describeCpu(cpu: CpuPerUnit): string {
  const groups = cpu.groups.map(([group, ms]) => `${group} ${formatNumber(ms)}`).join(', ');
  return `machine ${formatNumber(cpu.machine)} ms (${groups})`;
}

/** Why a round's figure would not be valid, if it would not. */
function roundProblem(round: Round, tasks: number, name: string): string | undefined {
  const { accepted } = round;
  const problem =
    round.loads.map((l, i) => loadProblem(l, `POST /generate to API ${i + 1}`)).find(Boolean) ??
    (accepted < tasks ? `only ${accepted} of ${tasks} POSTs were accepted` : undefined) ??
    (round.final.tasks < accepted
      ? `only ${round.final.tasks} of ${accepted} tasks reached a final state within ${formatNumber(round.elapsedSec)} s`
      : undefined) ??
    (round.final.failed > 0 ? `${round.final.failed} tasks failed` : undefined);
  return problem && `${name}: ${problem}`;
}

function roundFigures({
  loads,
  accepted,
  final,
  elapsedSec,
  cpuPerTaskMs,
}: Round): Record<string, string | number> {
  const cpu: Record<string, number> = {};
  if (cpuPerTaskMs) {
    cpu['CPU per task, machine, ms'] = cpuPerTaskMs.machine;
    for (const [group, ms] of cpuPerTaskMs.groups) cpu[`CPU per task, ${group}, ms`] = ms;
  }
  return {
    'tasks accepted': accepted,
    'tasks final': final.tasks,
    'tasks failed': final.failed,
    'webhook deliveries': final.deliveries,
    'first POST to last webhook, s': elapsedSec,
    'tasks/s': final.tasks / elapsedSec,
    'POST→webhook p50 ms': final.createdToWebhookMs.p50 ?? 'n/a',
    'POST→webhook p99 ms': final.createdToWebhookMs.p99 ?? 'n/a',
    'POST→webhook max ms': final.createdToWebhookMs.max ?? 'n/a',
    'POST rate, req/s': loads.reduce((sum, l) => sum + l.requestsPerSec, 0),
    generator: loads.map((l) => describeGenerator(l)).join(' + '),
    ...cpu,
  };
}

function describeRound({ final, elapsedSec, cpuPerTaskMs }: Round): string {
  const cpu = cpuPerTaskMs ? `; CPU per task: ${describeCpu(cpuPerTaskMs)}` : '';
  return `${final.tasks.toLocaleString('en-US')} final (${final.failed} failed) in ${formatNumber(elapsedSec)} s, ${formatNumber(final.tasks / elapsedSec)} tasks/s; POST→webhook p50 ${formatNumber(final.createdToWebhookMs.p50)} ms, p99 ${formatNumber(final.createdToWebhookMs.p99)} ms${cpu}`;
}
