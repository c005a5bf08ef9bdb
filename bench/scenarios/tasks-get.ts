// Scenario 5: GET /tasks/{id} against a bare Fastify GET, on an idle gengate that first completes a
// few hundred real tasks (webhooks tell when), so the reads are of completed tasks with results, as
// a client polling for its video would see them. Requests rotate over those ids.
import type { GengateInstance } from '../gengate.js';
import { ratio } from '../stats.js';
import { loadProblem, TARGETS } from '../targets.js';
import type { LoadStats } from '../types.js';
import {
  addFigure,
  asJob,
  type BenchEnvironment,
  gengateTarget,
  loadDetail,
  log,
  measureLoad,
  section,
} from './context.js';
import { concreteBody, generateBody } from './generate.js';
import { failure, preflight, type Reasons } from './preflight.js';
import { completedIds, resetReceiver, waitForFinal, webhookUrl } from './receiver.js';

const COMPLETION_WAIT_MS = 30_000;

async function tasksToRead(
  env: BenchEnvironment,
  gengate: GengateInstance,
): Promise<{ ids: string[]; gate: Reasons; note?: string }> {
  const count = env.settings.readTasks;
  await resetReceiver(env);
  const body = generateBody(env.settings.taskModel, webhookUrl(env));
  const target = gengateTarget(gengate, 'POST', '/generate', body);
  const created = await preflight(target, 202, concreteBody(body, 'read-preflight'));
  if (!created.ok) return { ids: [], gate: failure(created) };
  if (count > 1)
    await env.load.autocannon({
      ...asJob(target),
      connections: 8,
      amount: count - 1,
      uniqueBodies: true,
      maxSec: 30,
    });
  await waitForFinal(env, count, Date.now() + COMPLETION_WAIT_MS);
  const ids = await completedIds(env, count);
  if (ids.length > 0) return { ids, gate: {} };
  const note = `no task completed within ${COMPLETION_WAIT_MS / 1000} s, so a pending task is read`;
  return { ids: [created.answer.json.task_id], gate: {}, note };
}

export async function taskGet(env: BenchEnvironment, gengate: GengateInstance): Promise<void> {
  const scenario = `GET /tasks/{id}, ${env.settings.connections} connections`;
  section(`${scenario} [${gengate.engine}]`);
  const read = await tasksToRead(env, gengate);
  let gate = read.gate;
  let mine: LoadStats | undefined;
  let bare: LoadStats | undefined;
  if (!gate.skip && !gate.invalid) {
    const paths = read.ids.map((id) => `/tasks/${id}`);
    const target = gengateTarget(gengate, 'GET', paths[0]);
    gate = failure(await preflight(target, 200));
    if (!gate.skip && !gate.invalid) {
      log(`  · reading ${read.ids.length} task(s) in turn${read.note ? ` (${read.note})` : ''}`);
      bare = await measureLoad(env, scenario, 'bare GET', gengate.engine, {
        origin: env.baselines.origin,
        method: 'GET',
        path: paths[0],
        headers: {},
        paths,
      });
      mine = await measureLoad(env, scenario, 'gengate', gengate.engine, {
        origin: gengate.origin,
        method: 'GET',
        path: paths[0],
        headers: target.headers,
        paths,
      });
    }
  }
  addFigure(env, {
    id: 'tasks-get-vs-bare',
    label: 'GET /tasks/{id}, gengate / bare GET',
    engine: gengate.engine,
    unit: '×',
    target: TARGETS.tasksGetVsBare,
    value: ratio(mine?.requestsPerSec, bare?.requestsPerSec),
    detail: `${loadDetail('gengate', mine)} vs ${loadDetail('bare', bare)}`,
    skip: gate.skip,
    invalid: gate.skip
      ? undefined
      : (gate.invalid ?? loadProblem(mine, 'gengate') ?? loadProblem(bare, 'bare GET')),
    note: read.note,
  });
}
