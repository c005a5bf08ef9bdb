// The end checks of a chaos run, over the database and what the load and the receiver recorded.
// Each returns violations (empty: the rule holds) and the figures the report shows.
import type pg from 'pg';
import type { Submission } from './cluster.js';
import type { TaskRequest } from './load.js';

/** The task error of a provider that never answered (domain/tasks/states.ts). */
export const TIMEOUT_ERROR = 'Timeout while waiting for provider response';

export interface CheckInput {
  db: Pick<pg.Client, 'query'>;
  tasks: TaskRequest[];
  submissions: Submission[];
  /** task_id → status of the webhook the receiver acknowledged. */
  acknowledged: Map<string, string>;
  /** Micro-rubles the run credited (admin and CLI top-ups that reported success, paid top-ups). */
  creditedMicro: number;
}

export interface CheckResult {
  name: string;
  violations: string[];
  figures: Record<string, number | string>;
}

interface TaskRow {
  id: string;
  status: string;
  error: string | null;
  params: string;
  attempts: number;
  webhook_url: string | null;
}

const num = (value: unknown) => Number(value ?? 0);
const first = <T>(items: T[], n = 5) => items.slice(0, n);

export async function runChecks(input: CheckInput): Promise<CheckResult[]> {
  const { rows: tasks } = await input.db.query<TaskRow>(
    'select id, status, error, params, attempts, webhook_url from tasks',
  );
  return [
    finalTasks(input, tasks),
    noTimeoutOfFinishedJobs(tasks),
    await money(input),
    await settlements(input),
    submittedOnce(input, tasks),
    idempotency(input, tasks),
    await webhooks(input, tasks),
    await chatHolds(input),
  ];
}

/** Every accepted task is final; so is every task in the database (some answers were lost). */
function finalTasks(input: CheckInput, tasks: TaskRow[]): CheckResult {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const accepted = new Set(
    input.tasks.flatMap((r) => r.answers.filter((a) => a.status === 202 && a.taskId).map((a) => a.taskId!)),
  );
  const violations: string[] = [];
  for (const id of accepted) {
    const task = byId.get(id);
    if (!task) violations.push(`accepted task ${id} is not in the database`);
    else if (task.status !== 'completed' && task.status !== 'failed')
      violations.push(`accepted task ${id} is ${task.status}`);
  }
  const open = tasks.filter((t) => t.status !== 'completed' && t.status !== 'failed');
  for (const t of first(open)) if (!accepted.has(t.id)) violations.push(`task ${t.id} is ${t.status}`);
  return {
    name: 'every accepted task is final',
    violations,
    figures: {
      accepted: accepted.size,
      in_database: tasks.length,
      completed: tasks.filter((t) => t.status === 'completed').length,
      failed: tasks.filter((t) => t.status === 'failed').length,
      not_final: open.length,
    },
  };
}

/** Only the jobs told never to answer ([sim:fail=timeout]) may fail as a timeout. */
function noTimeoutOfFinishedJobs(tasks: TaskRow[]): CheckResult {
  const timedOut = tasks.filter((t) => t.error === TIMEOUT_ERROR);
  const wrong = timedOut.filter((t) => !String(JSON.parse(t.params).prompt).includes('[sim:fail=timeout]'));
  return {
    name: 'no finished upstream job failed as a timeout',
    violations: first(wrong, 10).map(
      (t) => `task ${t.id} failed as a timeout: ${JSON.parse(t.params).prompt}`,
    ),
    figures: { timeouts: timedOut.length, wrongful: wrong.length },
  };
}

/** Σ balances + Σ held + Σ captured = Σ credited, and no balance below zero. */
async function money(input: CheckInput): Promise<CheckResult> {
  const keys = await input.db.query(
    'select sum(balance) as balance, sum(held) as held, min(balance) as low, min(held) as low_held from api_keys',
  );
  const ledger = await input.db.query<{ kind: string; total: string }>(
    'select kind, sum(amount) as total from ledger_entries group by kind',
  );
  const byKind = new Map(ledger.rows.map((r) => [r.kind, num(r.total)]));
  const balance = num(keys.rows[0].balance);
  const held = num(keys.rows[0].held);
  const captured = byKind.get('capture') ?? 0;
  // Money that came in: top-ups (operator and paid), adjustments, transfers, codes, refund reversals,
  // less refunds (src/domain/billing/ledger-kinds.ts).
  const credited =
    (byKind.get('topup') ?? 0) +
    (byKind.get('adjust') ?? 0) +
    (byKind.get('transfer') ?? 0) +
    (byKind.get('redeem') ?? 0) +
    (byKind.get('refund_reversal') ?? 0) -
    (byKind.get('refund') ?? 0);
  const violations: string[] = [];
  if (balance + held + captured !== credited)
    violations.push(`Σ balance ${balance} + Σ held ${held} + Σ captured ${captured} ≠ Σ top-ups ${credited}`);
  if (credited !== input.creditedMicro)
    violations.push(`the ledger's top-ups ${credited} ≠ the ${input.creditedMicro} the run credited`);
  if (num(keys.rows[0].low) < 0 || num(keys.rows[0].low_held) < 0) violations.push('a key went below zero');
  return {
    name: 'Σ balances + Σ held + Σ captured = Σ top-ups, no overdraft',
    violations,
    figures: { balance, held, captured, credited, lowest_balance: num(keys.rows[0].low) },
  };
}

/** Every reference (task or chat request) has one hold, and at most one capture and one release. */
async function settlements(input: CheckInput): Promise<CheckResult> {
  const { rows } = await input.db.query<{
    task_id: string;
    holds: string;
    captures: string;
    releases: string;
  }>(
    `select task_id,
            sum(case when kind = 'hold' then 1 else 0 end) as holds,
            sum(case when kind = 'capture' then 1 else 0 end) as captures,
            sum(case when kind = 'release' then 1 else 0 end) as releases
     from ledger_entries where task_id is not null and kind in ('hold', 'capture', 'release')
     group by task_id`,
  );
  const twice = rows.filter((r) => num(r.holds) !== 1 || num(r.captures) > 1 || num(r.releases) > 1);
  return {
    name: 'no double settlement',
    violations: first(twice, 10).map(
      (r) => `${r.task_id}: ${r.holds} holds, ${r.captures} captures, ${r.releases} releases`,
    ),
    figures: { references: rows.length },
  };
}

/**
 * No task was submitted upstream twice: at most one stored submission per task (its attempts), and
 * at most one submission accepted by the provider in the workers' logs (a line is written for every
 * accepted submit, whether its job id could be stored or not). A worker killed between the
 * provider's answer and its log line leaves no line: the log count can miss a submission, never
 * invent one.
 */
function submittedOnce(input: CheckInput, tasks: TaskRow[]): CheckResult {
  const violations = tasks
    .filter((t) => num(t.attempts) > 1)
    .map((t) => `task ${t.id}: ${t.attempts} stored submissions`);
  const perTask = new Map<string, Submission[]>();
  for (const s of input.submissions) perTask.set(s.taskId, [...(perTask.get(s.taskId) ?? []), s]);
  let twice = 0;
  for (const [taskId, list] of perTask) {
    if (list.length < 2) continue;
    twice++;
    const sorted = [...list].sort((a, b) => a.time - b.time);
    const prompt = tasks.find((t) => t.id === taskId)?.params ?? '';
    violations.push(
      `task ${taskId} submitted ${list.length} times: ${sorted
        .map(
          (s) =>
            `${new Date(s.time).toISOString().slice(11, 23)} ${s.process} job ${s.jobId}${s.stored ? ' (stored)' : ' (not stored)'}`,
        )
        .join('; ')} — ${/\[sim:[^\]]*\]/.exec(prompt)?.[0] ?? ''}`,
    );
  }
  return {
    name: 'no task submitted upstream twice',
    violations: first(violations, 10),
    figures: { submissions_logged: input.submissions.length, tasks_submitted_twice: twice },
  };
}

/** One Idempotency-Key made at most one task, and every answer of one key names that task. */
function idempotency(input: CheckInput, tasks: TaskRow[]): CheckResult {
  const byNonce = new Map<string, number>();
  for (const t of tasks) {
    const nonce = /chaos (\S+)/.exec(String(JSON.parse(t.params).prompt))?.[1];
    if (nonce) byNonce.set(nonce, (byNonce.get(nonce) ?? 0) + 1);
  }
  const violations: string[] = [];
  let retried = 0;
  for (const request of input.tasks) {
    const made = byNonce.get(request.nonce) ?? 0;
    if (made > 1) violations.push(`request ${request.nonce} made ${made} tasks`);
    if (!request.idempotencyKey) continue;
    if (request.answers.length > 1) retried++;
    const ids = new Set(request.answers.filter((a) => a.taskId).map((a) => a.taskId));
    if (ids.size > 1)
      violations.push(`Idempotency-Key ${request.idempotencyKey} answered ${[...ids].join(', ')}`);
  }
  return {
    name: 'no Idempotency-Key made two tasks',
    violations: first(violations, 10),
    figures: {
      with_key: input.tasks.filter((r) => r.idempotencyKey).length,
      retried_or_replayed: retried,
    },
  };
}

/** Every final task with a webhook_url has its delivery delivered or recorded undelivered. */
async function webhooks(input: CheckInput, tasks: TaskRow[]): Promise<CheckResult> {
  const { rows } = await input.db.query<{ task_id: string; status: string }>(
    'select task_id, status from webhook_deliveries',
  );
  const byTask = new Map(rows.map((r) => [r.task_id, r.status]));
  const violations: string[] = [];
  for (const task of tasks) {
    if (!task.webhook_url || (task.status !== 'completed' && task.status !== 'failed')) continue;
    const status = byTask.get(task.id);
    if (status === undefined) violations.push(`task ${task.id} has no webhook delivery`);
    else if (status === 'pending') violations.push(`task ${task.id}: webhook still pending`);
    else if (status === 'delivered' && !input.acknowledged.has(task.id))
      violations.push(`task ${task.id}: delivered, but the receiver never acknowledged it`);
    else if (status === 'delivered' && input.acknowledged.get(task.id) !== task.status)
      violations.push(
        `task ${task.id} is ${task.status}, its webhook said ${input.acknowledged.get(task.id)}`,
      );
  }
  return {
    name: 'every final task has its webhook delivered or recorded undelivered',
    violations: first(violations, 10),
    figures: {
      delivered: rows.filter((r) => r.status === 'delivered').length,
      undelivered: rows.filter((r) => r.status === 'undelivered').length,
      pending: rows.filter((r) => r.status === 'pending').length,
    },
  };
}

/** No chat hold is open after the run. */
async function chatHolds(input: CheckInput): Promise<CheckResult> {
  const holds = await input.db.query<{ n: string }>('select count(*) as n from chat_holds');
  const open = num(holds.rows[0]?.n ?? 0);
  const { rows } = await input.db.query<{ status: string; n: string }>(
    'select status, count(*) as n from usage_records group by status',
  );
  return {
    name: 'no chat hold open after the run',
    violations: open > 0 ? [`${open} chat holds still open`] : [],
    figures: { open, ...Object.fromEntries(rows.map((r) => [r.status, num(r.n)])) },
  };
}
