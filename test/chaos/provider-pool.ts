// The provider pool of a chaos run: the flux model routes to two accounts of equal weight, one the
// simulator and one an account whose upstream refuses every connection. The failing account must
// never hold a job, its breaker must open (cooling: skipped, then probed, failing again), and no
// task may fail because of it: the load's outcomes stay those the simulator scripted.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import type { CheckResult } from './checks.js';

export const FAILING_ACCOUNT = 'chaos-unreachable';
export const POOLED_MODEL = 'flux-1-1-pro';

/** Writes the PROVIDERS_FILE of the run into `dir` and returns its path. */
export function writeProvidersFile(dir: string, closedPort: number): string {
  const file = join(dir, 'providers.json');
  writeFileSync(
    file,
    JSON.stringify({
      providers: {
        // A fal account on a port nothing listens on: every submit fails to connect (nothing sent).
        [FAILING_ACCOUNT]: { type: 'fal', base_url: `http://127.0.0.1:${closedPort}`, api_key: 'chaos-key' },
        'chaos-sim': { type: 'simulator', max_concurrency: 200 },
      },
      routes: {
        [POOLED_MODEL]: [
          { provider: FAILING_ACCOUNT, weight: 1 },
          { provider: 'chaos-sim', weight: 1 },
        ],
      },
    }),
  );
  return file;
}

/** The pool's rules at the end of the run. */
export async function providerPoolCheck(db: Pick<pg.Client, 'query'>): Promise<CheckResult> {
  const violations: string[] = [];
  const jobs = await db.query<{ n: string }>(
    'select count(*) as n from tasks where provider = $1 and provider_job_id is not null',
    [FAILING_ACCOUNT],
  );
  if (Number(jobs.rows[0].n) > 0)
    violations.push(`${jobs.rows[0].n} tasks hold a job at the failing account`);
  const health = await db.query<{ name: string; state: string; last_error: string | null }>(
    'select name, state, last_error from provider_health order by name',
  );
  const failing = health.rows.find((row) => row.name === FAILING_ACCOUNT);
  if (failing?.state !== 'cooling')
    violations.push(
      `the failing account is ${failing?.state ?? 'unknown'}, not cooling (breaker never opened)`,
    );
  const sim = health.rows.find((row) => row.name === 'chaos-sim');
  if (sim?.state !== 'up') violations.push(`the simulator account is ${sim?.state ?? 'unknown'}, not up`);
  const pooled = await db.query<{ status: string; n: string }>(
    `select status, count(*) as n from tasks where params like $1 group by status`,
    [`%"model_name":"${POOLED_MODEL}"%`],
  );
  const byStatus = Object.fromEntries(pooled.rows.map((row) => [row.status, Number(row.n)]));
  // Only the simulator's scripted failures may fail a pooled task: none is left on a connection error.
  const wrongful = await db.query<{ n: string }>(
    `select count(*) as n from tasks where params like $1 and status = 'failed' and error = $2
       and params not like '%[sim:fail=%'`,
    [`%"model_name":"${POOLED_MODEL}"%`, 'Provider error: the generation failed'],
  );
  if (Number(wrongful.rows[0].n) > 0)
    violations.push(`${wrongful.rows[0].n} unscripted ${POOLED_MODEL} tasks failed as a provider error`);
  const slots = await db.query<{ n: string }>(
    `select count(*) as n from provider_slots s join tasks t on t.id = s.task_id where t.status = 'processing'`,
  );
  if (Number(slots.rows[0].n) > 0) violations.push(`${slots.rows[0].n} places still held after the drain`);
  return {
    name: 'a pool with one failing account: no job there, its breaker open, no task failed for it',
    violations,
    figures: {
      failing_state: failing?.state ?? 'unknown',
      failing_last_error: (failing?.last_error ?? '').slice(0, 80),
      pooled_completed: byStatus.completed ?? 0,
      pooled_failed: byStatus.failed ?? 0,
    },
  };
}
