// The scaled-out task pipeline (issue 17), PostgreSQL only: 2 API processes (`--role api`) and 2
// worker processes (`--role worker`) on one fresh schema, one hot key. N tasks with webhooks are
// POSTed, half to each API process, and timed from the first POST to the last task's webhook. Each
// task's own time from POST to webhook comes from its id: a UUIDv7 carries gengate's clock when it
// accepted the POST, and the receiver notes when the first delivery arrived (same machine clock).
// The simulator runs at 0 ms, so the p99 is all gengate's: queueing, claims, steps, settlements,
// outbox, deliveries.
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
  const { tasks, connections, taskTimeoutSec } = env.settings;
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
    let loads: LoadStats[] = [];
    let final: ReceiverStats | undefined;
    let elapsedSec = Number.NaN;
    if (!gate.skip && !gate.invalid) {
      await resetReceiver(env);
      const share = Math.ceil(tasks / apis.length);
      // A number of requests: autocannon (wrk only runs for a duration); its CPU is reported.
      loads = await Promise.all(
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
      final = await waitForFinal(env, accepted, firstPostAt + taskTimeoutSec * 1000);
      const endMs = final.tasks >= accepted && final.lastFinalAtMs ? final.lastFinalAtMs : Date.now();
      elapsedSec = (endMs - firstPostAt) / 1000;
      env.measurements.push({
        scenario,
        system: 'gengate',
        engine: 'postgres',
        extra: {
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
        },
      });
      log(
        `  · ${final.tasks.toLocaleString('en-US')} final (${final.failed} failed) in ${formatNumber(elapsedSec)} s; POST→webhook p50 ${formatNumber(final.createdToWebhookMs.p50)} ms, p99 ${formatNumber(final.createdToWebhookMs.p99)} ms`,
      );
    }
    const accepted = loads.reduce((sum, l) => sum + l.ok, 0);
    const unfinished =
      final && final.tasks < accepted
        ? `only ${final.tasks.toLocaleString('en-US')} of ${accepted.toLocaleString('en-US')} tasks reached a final state within ${formatNumber(elapsedSec)} s (the value is a lower bound)`
        : undefined;
    const failedTasks = final && final.failed > 0 ? `${final.failed} tasks failed` : undefined;
    const invalid = gate.skip
      ? undefined
      : (gate.invalid ??
        loads.map((l, i) => loadProblem(l, `POST /generate to API ${i + 1}`)).find(Boolean) ??
        (loads.length && accepted < tasks ? `only ${accepted} of ${tasks} POSTs were accepted` : undefined) ??
        unfinished ??
        failedTasks);
    const generators = loads.map((l) => describeGenerator(l)).join(' + ');
    addFigure(env, {
      id: 'pipeline-throughput',
      label: `task pipeline, 2 API + 2 worker processes, ${tasks.toLocaleString('en-US')} tasks, webhooks on`,
      engine: 'postgres',
      unit: 'tasks/s',
      target: TARGETS.pipelineTasksPerSecPg,
      value: final ? final.tasks / elapsedSec : null,
      detail: final
        ? `${final.tasks.toLocaleString('en-US')} tasks, first POST to last webhook ${formatNumber(elapsedSec)} s (${generators})`
        : '—',
      skip: gate.skip,
      invalid,
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
    if (!gate.skip)
      await ledgerFigure(env, api, 'ledger invariants after the task pipeline', 'ledger-after-pipeline');
  } finally {
    for (const instance of started.reverse()) await instance.stop();
  }
}
