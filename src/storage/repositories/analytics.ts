// Per-key analytics for the owner's panel: spend and request counts from the ledger, by model from
// tasks and chat usage. Every query is scoped by the owner account.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema.js';

export interface KeySpend {
  key_id: number;
  spent: number;
  requests: number;
}

export interface ModelSpend {
  key_id: number;
  model_id: string;
  requests: number;
}

/** One model's use on one UTC day (day = days since the epoch). Money in micro-rubles. */
export interface DailyModelUsage {
  day: number;
  model_id: string;
  requests: number;
  spent: number;
  input_tokens: number;
  output_tokens: number;
}

/** One (time bucket, key, model) cell of the panel's charts. Money in micro-rubles. */
export interface UsageCell {
  /** The bucket's number: floor(created_at / bucketMs). */
  bucket: number;
  key_id: number;
  model_id: string;
  requests: number;
  spent: number;
  input_tokens: number;
  output_tokens: number;
}

/** How the account's tasks ended over a range: status and, for failures, the kind of error. */
export interface TaskOutcome {
  status: string;
  /** For failed tasks: rejected, billing, overload, timeout, upstream or params; null otherwise. */
  error_kind: string | null;
  tasks: number;
}

export interface AnalyticsRange {
  from: number;
  to: number;
  /** Only this key of the account; every key when absent. */
  keyId?: number;
}

const DAY_MS = 86_400_000;

/**
 * A failed task's error message as its kind, in SQL so the grouping stays in the database. The
 * fixed texts are the spec's (TASK_FAILURE); anything else is a provider's parameter rejection.
 */
function errorKindSql(
  messages: Record<'timeout' | 'rejected' | 'billing' | 'overload' | 'upstream', string>,
) {
  return sql<string | null>`case
    when status <> 'failed' then null
    when error = ${messages.timeout} then 'timeout'
    when error = ${messages.rejected} then 'rejected'
    when error = ${messages.billing} then 'billing'
    when error = ${messages.overload} then 'overload'
    when error = ${messages.upstream} then 'upstream'
    else 'params' end`;
}

export class AnalyticsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * The account's requests, spend and tokens per (time bucket, key, model) for requests created in
   * [from, to): chat usage rows (tokens, captured cost) and tasks (their final cost; a failed task
   * is a request that spent nothing). Both read off (account_id, created_at, …) covering indexes
   * (migration 008), so a range of a million rows is one index scan per table, never a row lookup.
   */
  async usageCells(accountId: number, range: AnalyticsRange, bucketMs: number): Promise<UsageCell[]> {
    const bucket = (column: string) => sql<number>`${sql.ref(column)} / ${sql.lit(bucketMs)}`;
    let chats = this.db
      .selectFrom('usage_records')
      .select([
        bucket('created_at').as('bucket'),
        'key_id',
        'model_id',
        sql<number>`count(*)`.as('requests'),
        sql<number>`coalesce(sum(cost), 0)`.as('spent'),
        sql<number>`coalesce(sum(input_tokens), 0)`.as('input_tokens'),
        sql<number>`coalesce(sum(output_tokens), 0)`.as('output_tokens'),
      ])
      .where('account_id', '=', accountId)
      .where('created_at', '>=', range.from)
      .where('created_at', '<', range.to);
    let tasks = this.db
      .selectFrom('tasks')
      .select([
        bucket('created_at').as('bucket'),
        'key_id',
        'model_id',
        sql<number>`count(*)`.as('requests'),
        sql<number>`coalesce(sum(cost), 0)`.as('spent'),
        sql<number>`0`.as('input_tokens'),
        sql<number>`0`.as('output_tokens'),
      ])
      .where('account_id', '=', accountId)
      .where('created_at', '>=', range.from)
      .where('created_at', '<', range.to);
    if (range.keyId !== undefined) {
      chats = chats.where('key_id', '=', range.keyId);
      tasks = tasks.where('key_id', '=', range.keyId);
    }
    const groups = [sql`1`, sql`2`, sql`3`];
    const [chatRows, taskRows] = await Promise.all([
      chats.groupBy(groups).execute(),
      tasks.groupBy(groups).execute(),
    ]);
    return [...chatRows, ...taskRows].map((r) => ({
      bucket: Number(r.bucket),
      key_id: Number(r.key_id),
      model_id: r.model_id,
      requests: Number(r.requests),
      spent: Number(r.spent),
      input_tokens: Number(r.input_tokens),
      output_tokens: Number(r.output_tokens),
    }));
  }

  /** The account's tasks created in [from, to) by status and, for failures, error kind. */
  async taskOutcomes(
    accountId: number,
    range: AnalyticsRange,
    messages: Parameters<typeof errorKindSql>[0],
  ): Promise<TaskOutcome[]> {
    const kind = errorKindSql(messages);
    let query = this.db
      .selectFrom('tasks')
      .select(['status', kind.as('error_kind'), sql<number>`count(*)`.as('tasks')])
      .where('account_id', '=', accountId)
      .where('created_at', '>=', range.from)
      .where('created_at', '<', range.to);
    if (range.keyId !== undefined) query = query.where('key_id', '=', range.keyId);
    const rows = await query.groupBy([sql`1`, sql`2`]).execute();
    return rows
      .map((r) => ({ status: r.status, error_kind: r.error_kind, tasks: Number(r.tasks) }))
      .sort((a, b) => b.tasks - a.tasks);
  }

  async spendByKey(accountId: number, since: number): Promise<KeySpend[]> {
    const rows = await this.db
      .selectFrom('ledger_entries')
      .select([
        'key_id',
        sql<number>`coalesce(sum(case when kind = 'capture' then amount else 0 end), 0)`.as('spent'),
        sql<number>`sum(case when kind = 'hold' then 1 else 0 end)`.as('requests'),
      ])
      .where('account_id', '=', accountId)
      .where('created_at', '>=', since)
      .groupBy('key_id')
      .execute();
    return rows.map((r) => ({
      key_id: Number(r.key_id),
      spent: Number(r.spent),
      requests: Number(r.requests),
    }));
  }

  async requestsByModel(accountId: number, since: number): Promise<ModelSpend[]> {
    const tasks = await this.db
      .selectFrom('tasks')
      .select(['key_id', 'model_id', sql<number>`count(*)`.as('requests')])
      .where('account_id', '=', accountId)
      .where('created_at', '>=', since)
      .groupBy(['key_id', 'model_id'])
      .execute();
    const chats = await this.db
      .selectFrom('usage_records')
      .select(['key_id', 'model_id', sql<number>`count(*)`.as('requests')])
      .where('account_id', '=', accountId)
      .where('created_at', '>=', since)
      .groupBy(['key_id', 'model_id'])
      .execute();
    return [...tasks, ...chats].map((r) => ({
      key_id: Number(r.key_id),
      model_id: r.model_id,
      requests: Number(r.requests),
    }));
  }

  /**
   * One key's use per model and UTC day of the request's creation, for requests created in
   * [from, to) (epoch ms): tasks (spend = their ledger capture, none for a failed task) and chat
   * requests (their usage rows: tokens and captured cost). Read off the (account_id, created_at)
   * indexes of both tables; the capture through the ledger's (task_id, kind) key. Sorted by day,
   * then model.
   */
  async dailyUsageOfKey(
    accountId: number,
    keyId: number,
    from: number,
    to: number,
  ): Promise<DailyModelUsage[]> {
    const tasks = await this.db
      .selectFrom('tasks')
      .leftJoin('ledger_entries as capture', (join) =>
        join.onRef('capture.task_id', '=', 'tasks.id').on('capture.kind', '=', 'capture'),
      )
      .select([
        sql<number>`tasks.created_at / ${sql.lit(DAY_MS)}`.as('day'),
        'tasks.model_id',
        sql<number>`count(*)`.as('requests'),
        sql<number>`coalesce(sum(capture.amount), 0)`.as('spent'),
        sql<number>`0`.as('input_tokens'),
        sql<number>`0`.as('output_tokens'),
      ])
      .where('tasks.account_id', '=', accountId)
      .where('tasks.key_id', '=', keyId)
      .where('tasks.created_at', '>=', from)
      .where('tasks.created_at', '<', to)
      .groupBy([sql`tasks.created_at / ${sql.lit(DAY_MS)}`, 'tasks.model_id'])
      .execute();
    const chats = await this.db
      .selectFrom('usage_records')
      .select([
        sql<number>`created_at / ${sql.lit(DAY_MS)}`.as('day'),
        'model_id',
        sql<number>`count(*)`.as('requests'),
        sql<number>`coalesce(sum(cost), 0)`.as('spent'),
        sql<number>`coalesce(sum(input_tokens), 0)`.as('input_tokens'),
        sql<number>`coalesce(sum(output_tokens), 0)`.as('output_tokens'),
      ])
      .where('account_id', '=', accountId)
      .where('key_id', '=', keyId)
      .where('created_at', '>=', from)
      .where('created_at', '<', to)
      .groupBy([sql`created_at / ${sql.lit(DAY_MS)}`, 'model_id'])
      .execute();
    // A model may be both (in principle): add its rows up.
    const merged = new Map<string, DailyModelUsage>();
    for (const r of [...tasks, ...chats]) {
      const day = Number(r.day);
      const key = `${day}\u0000${r.model_id}`;
      const into = merged.get(key) ?? {
        day,
        model_id: r.model_id,
        requests: 0,
        spent: 0,
        input_tokens: 0,
        output_tokens: 0,
      };
      into.requests += Number(r.requests);
      into.spent += Number(r.spent);
      into.input_tokens += Number(r.input_tokens);
      into.output_tokens += Number(r.output_tokens);
      merged.set(key, into);
    }
    return [...merged.values()].sort((a, b) =>
      a.day !== b.day ? a.day - b.day : a.model_id < b.model_id ? -1 : a.model_id > b.model_id ? 1 : 0,
    );
  }
}
