// Scenario 4: POST /generate on its 202 path (auth, rate limit, idempotency check, validation, hold,
// task insert), N connections, against a bare Fastify POST that parses the same JSON. gengate runs
// with --role api here, so no worker consumes the tasks the load creates while it is measured.
// Every body carries a unique prompt and no Idempotency-Key: each request creates a new task.
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
  measureLoad,
  section,
} from './context.js';
import { failure, preflight } from './preflight.js';

/** The load replaces `[<id>]` with a unique id per request; `samePrompt` leaves it out. */
export function generateBody(
  model: string,
  webhookUrl?: string,
  options: { samePrompt?: boolean } = {},
): string {
  return JSON.stringify({
    params: {
      model_name: model,
      prompt: `A lighthouse on a cliff at dusk, waves below, bench${options.samePrompt ? '' : ' [<id>]'}`,
      aspect_ratio: '16:9',
      ...(webhookUrl ? { webhook_url: webhookUrl } : {}),
    },
  });
}

export function concreteBody(body: string, id: string): string {
  return body.replaceAll('[<id>]', id);
}

export async function generateThroughput(env: BenchEnvironment, gengate: GengateInstance): Promise<void> {
  const scenario = `POST /generate (202 path), ${env.settings.connections} connections`;
  section(`${scenario} [${gengate.engine}]`);
  const body = generateBody(env.settings.taskModel);
  const target = gengateTarget(gengate, 'POST', '/generate', body);
  const gate = failure(await preflight(target, 202, concreteBody(body, 'preflight')));
  let mine: LoadStats | undefined;
  let bare: LoadStats | undefined;
  if (!gate.skip && !gate.invalid) {
    const bareTarget = {
      ...target,
      name: 'bare POST',
      origin: env.baselines.origin,
      headers: { 'content-type': 'application/json' },
    };
    bare = await measureLoad(env, scenario, 'bare POST', gengate.engine, {
      ...asJob(bareTarget),
      uniqueBodies: true,
    });
    mine = await measureLoad(env, scenario, 'gengate', gengate.engine, {
      ...asJob(target),
      uniqueBodies: true,
    });
  }
  const invalid = gate.skip
    ? undefined
    : (gate.invalid ?? loadProblem(mine, 'gengate') ?? loadProblem(bare, 'bare POST'));
  addFigure(env, {
    id: 'generate-vs-bare',
    label: 'POST /generate, gengate / bare POST',
    engine: gengate.engine,
    unit: '×',
    // Issue 17 sets PostgreSQL's target against gengate on SQLite (below).
    target: gengate.engine === 'postgres' ? null : TARGETS.generateVsBare,
    value: ratio(mine?.requestsPerSec, bare?.requestsPerSec),
    detail: `${loadDetail('gengate', mine)} vs ${loadDetail('bare', bare)}`,
    skip: gate.skip,
    invalid,
  });
  env.generateRuns ??= {};
  if (mine && !invalid) env.generateRuns[gengate.engine] = mine;
  if (gengate.engine !== 'postgres') return;
  const sqlite = env.generateRuns.sqlite;
  addFigure(env, {
    id: 'generate-pg-vs-sqlite',
    label: 'POST /generate, one hot key, gengate on PostgreSQL / gengate on SQLite',
    engine: 'postgres',
    unit: '×',
    target: TARGETS.generatePgVsSqlite,
    value: ratio(mine?.requestsPerSec, sqlite?.requestsPerSec),
    detail: `${loadDetail('PostgreSQL', mine)} vs ${loadDetail('SQLite', sqlite)}`,
    skip: gate.skip ?? (sqlite ? undefined : 'no valid SQLite run of POST /generate in this run'),
    invalid,
  });
}
