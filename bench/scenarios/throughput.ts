// Scenario 6: task throughput. N tasks through the simulator at 0 ms latency with webhooks on, from
// the first POST to the last final state (the arrival of the last task's webhook at the receiver,
// which is at or after the moment the task became final: a conservative end). Also the peak RSS of
// the gengate process (VmHWM), and `gengate ledger check` on the database afterwards.
import type { GengateInstance } from '../gengate.js';
import { brief, call } from '../http.js';
import { readProcMemory, sampleRss } from '../rss.js';
import { formatNumber, loadProblem, TARGETS } from '../targets.js';
import type { LoadStats } from '../types.js';
import {
  addFigure,
  asJob,
  type BenchEnvironment,
  describeLoad,
  gengateTarget,
  log,
  section,
} from './context.js';
import { concreteBody, generateBody } from './generate.js';
import { failure, preflight, type Reasons } from './preflight.js';
import { type ReceiverStats, resetReceiver, waitForFinal, webhookUrl } from './receiver.js';

const FIRST_TASK_WAIT_MS = 15_000;

/** Runs one task end to end first, so that a missing worker or webhook sender is named, not timed. */
export async function firstTaskWorks(
  env: BenchEnvironment,
  gengate: GengateInstance,
  body: string,
): Promise<Reasons> {
  const target = gengateTarget(gengate, 'POST', '/generate', body);
  const created = await preflight(target, 202, concreteBody(body, 'preflight'));
  if (!created.ok) return failure(created);
  const taskId: string = created.answer.json.task_id;
  const stats = await waitForFinal(env, 1, Date.now() + FIRST_TASK_WAIT_MS);
  const task = await call(gengate.origin, 'GET', `/tasks/${taskId}`, { headers: gengate.auth });
  const seconds = FIRST_TASK_WAIT_MS / 1000;
  if (stats.tasks === 0) {
    if (task.status !== 200)
      return { skip: `no webhook within ${seconds} s, and GET /tasks/{id} answered ${brief(task)}` };
    if (task.json.status === 'pending' || task.json.status === 'processing') {
      return {
        skip: `the first task was still ${task.json.status} after ${seconds} s: no task worker is running yet`,
      };
    }
    return {
      invalid: `the first task is ${task.json.status}, but its webhook did not arrive within ${seconds} s`,
    };
  }
  if (stats.failed > 0) return { invalid: `the first task failed: ${task.json?.error ?? brief(task)}` };
  return {};
}

export async function ledgerFigure(
  env: BenchEnvironment,
  gengate: GengateInstance,
  label = 'ledger invariants after the task run (gengate ledger check)',
  id = 'ledger-after-tasks',
): Promise<void> {
  const check = await gengate.ledgerCheck();
  const violations = check.ok ? 0 : Number(/(\d+) violation/.exec(check.output)?.[1] ?? Number.NaN);
  addFigure(env, {
    id,
    label,
    engine: gengate.engine,
    unit: 'violations',
    target: TARGETS.ledgerViolations,
    value: violations,
    detail: check.ok ? 'ledger ok' : check.output.split('\n').slice(0, 4).join(' '),
    invalid: Number.isNaN(violations) ? `ledger check failed: ${check.output.slice(0, 300)}` : undefined,
  });
}

export async function taskThroughput(env: BenchEnvironment, gengate: GengateInstance): Promise<void> {
  const { tasks, connections, taskTimeoutSec } = env.settings;
  const scenario = `task throughput, ${tasks.toLocaleString('en-US')} tasks, webhooks on`;
  section(`${scenario} [${gengate.engine}]`);
  // One prompt for every task (each POST still creates its own task: there is no Idempotency-Key).
  // The simulator stands in for an upstream, whose rendering is not gengate's work: with one prompt
  // it renders once, and the run measures gengate's own pipeline (see NOTES.md).
  const body = generateBody(env.settings.taskModel, webhookUrl(env), { samePrompt: true });
  await resetReceiver(env);
  const gate = await firstTaskWorks(env, gengate, body);

  let load: LoadStats | undefined;
  let final: ReceiverStats | undefined;
  let elapsedSec = Number.NaN;
  let peakMb: number | null = null;
  let sampledMb: number | null = null;
  if (!gate.skip && !gate.invalid) {
    await resetReceiver(env);
    const sampler = sampleRss(gengate.child.pid);
    const target = gengateTarget(gengate, 'POST', '/generate', body);
    load = await env.load.autocannon({
      ...asJob(target),
      connections,
      amount: tasks,
      uniqueBodies: true,
      maxSec: taskTimeoutSec,
    });
    log(`  · POST /generate: ${load.ok.toLocaleString('en-US')} accepted, ${describeLoad(load)}`);
    final = await waitForFinal(env, load.ok, load.startedAtMs + taskTimeoutSec * 1000);
    const sampledKb = sampler.stop();
    const memory = readProcMemory(gengate.child.pid);
    peakMb = memory?.peakRssKb == null ? null : memory.peakRssKb / 1024;
    sampledMb = sampledKb == null ? null : sampledKb / 1024;
    const endMs = final.tasks >= load.ok && final.lastFinalAtMs ? final.lastFinalAtMs : Date.now();
    elapsedSec = (endMs - load.startedAtMs) / 1000;
    env.measurements.push({
      scenario,
      system: 'gengate',
      engine: gengate.engine,
      load,
      extra: {
        'tasks accepted': load.ok,
        'tasks final': final.tasks,
        'tasks failed': final.failed,
        'webhook deliveries': final.deliveries,
        'first POST to last final state, s': elapsedSec,
        'tasks/s': final.tasks / elapsedSec,
        'peak RSS MB (VmHWM)': peakMb ?? 'n/a',
        'max sampled RSS MB': sampledMb ?? 'n/a',
      },
    });
    log(
      `  · ${final.tasks.toLocaleString('en-US')} final (${final.failed} failed) in ${formatNumber(elapsedSec)} s; peak RSS ${formatNumber(peakMb)} MB`,
    );
  }

  const unsent =
    load && load.ok + load.non2xx + load.errors < tasks
      ? `only ${load.ok.toLocaleString('en-US')} of ${tasks.toLocaleString('en-US')} POSTs were answered within ${taskTimeoutSec} s`
      : undefined;
  const unfinished =
    load && final && final.tasks < load.ok
      ? `only ${final.tasks.toLocaleString('en-US')} of ${load.ok.toLocaleString('en-US')} tasks reached a final state within ${formatNumber(elapsedSec)} s (the value is a lower bound)`
      : undefined;
  const incomplete = [unsent, unfinished].filter(Boolean).join('; ') || undefined;
  const failedTasks = final && final.failed > 0 ? `${final.failed} tasks failed` : undefined;
  const invalid = gate.skip
    ? undefined
    : (gate.invalid ?? loadProblem(load, 'POST /generate') ?? incomplete ?? failedTasks);
  addFigure(env, {
    id: 'task-throughput',
    label: `task throughput, ${tasks.toLocaleString('en-US')} tasks, webhooks on`,
    engine: gengate.engine,
    unit: 'tasks/s',
    // The issue sets this target on SQLite; on PostgreSQL the figure is tracked without one.
    target: gengate.engine === 'sqlite' ? TARGETS.taskThroughputSqlite : null,
    value: final ? final.tasks / elapsedSec : null,
    detail: final
      ? `${final.tasks.toLocaleString('en-US')} tasks, first POST to last webhook ${formatNumber(elapsedSec)} s`
      : '—',
    skip: gate.skip,
    invalid,
  });
  addFigure(env, {
    id: 'peak-rss',
    label: `peak RSS of gengate at ${tasks.toLocaleString('en-US')} tasks`,
    engine: gengate.engine,
    unit: 'MB',
    target: TARGETS.peakRssMb,
    value: peakMb,
    detail: `VmHWM ${formatNumber(peakMb)} MB (max sampled VmRSS ${formatNumber(sampledMb)} MB)`,
    skip: gate.skip,
    invalid: gate.skip
      ? undefined
      : (gate.invalid ??
        incomplete ??
        (peakMb === null ? 'no /proc/PID/status to read (not Linux?)' : undefined)),
  });
  if (!gate.skip) await ledgerFigure(env, gengate);
}
