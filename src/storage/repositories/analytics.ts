// Per-key analytics for the owner's panel: spend and request counts from the ledger, by model from
// tasks and chat usage. Every query is scoped by the owner account.
import { type Kysely, sql } from 'kysely';
import { TASK_FAILURE } from '../../domain/tasks/states.js';
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
 * A day is sealed (its totals kept in usage_daily) this long after it ended: by then every task of
 * the day has finished (PROVIDER_TIMEOUT_MS is minutes) and every chat request has settled (the
 * abandoned-hold sweep runs within hours).
 */
export const SEAL_AFTER_MS = 2 * DAY_MS;

function toCell(r: {
  bucket: number;
  key_id: number;
  model_id: string;
  requests: number;
  spent: number;
  input_tokens: number;
  output_tokens: number;
}): UsageCell {
  return {
    bucket: Number(r.bucket),
    key_id: Number(r.key_id),
    model_id: r.model_id,
    requests: Number(r.requests),
    spent: Number(r.spent),
    input_tokens: Number(r.input_tokens),
    output_tokens: Number(r.output_tokens),
  };
}

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
   * [from, to). Daily buckets of days that can no longer change (SEAL_AFTER_MS past their end) come
   * from usage_daily, filled on first use (sealDays); the rest is aggregated live (liveCells). Pass
   * `now` to use the daily totals; without it everything is aggregated live.
   */
  async usageCells(
    accountId: number,
    range: AnalyticsRange,
    bucketMs: number,
    now?: number,
  ): Promise<UsageCell[]> {
    if (now === undefined || bucketMs !== DAY_MS || range.from % DAY_MS !== 0)
      return this.liveCells(accountId, range, bucketMs);
    const sealedEnd = Math.floor((now - SEAL_AFTER_MS) / DAY_MS) * DAY_MS;
    const split = Math.max(range.from, Math.min(range.to, sealedEnd));
    const cells: UsageCell[] = [];
    if (split > range.from) cells.push(...(await this.sealedCells(accountId, { ...range, to: split }, now)));
    if (range.to > split)
      cells.push(...(await this.liveCells(accountId, { ...range, from: split }, bucketMs)));
    return cells;
  }

  /**
   * The aggregation itself, over the requests: chat usage rows (tokens, captured cost) and tasks
   * (their final cost; a failed task is a request that spent nothing). Both read off (account_id,
   * created_at, …) indexes, the usage one covering every column it reads (migration 008).
   */
  async liveCells(accountId: number, range: AnalyticsRange, bucketMs: number): Promise<UsageCell[]> {
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
    return [...chatRows, ...taskRows].map(toCell);
  }

  /**
   * Seals every account's finished days of the last `days` (the janitor, hourly), so that even the
   * first view of a long range reads daily totals instead of aggregating every row. Returns how many
   * accounts were looked at; an account whose days are all sealed costs one indexed count.
   */
  async sealFinishedDays(now: number, days: number): Promise<number> {
    const sealedEnd = Math.floor((now - SEAL_AFTER_MS) / DAY_MS);
    const accounts = await this.db.selectFrom('accounts').select('id').orderBy('id').execute();
    for (const account of accounts)
      await this.ensureSealed(Number(account.id), sealedEnd - days, sealedEnd, now);
    return accounts.length;
  }

  /**
   * Seals [fromDay, toDay) for every account that has a day of it not sealed yet (the margin report
   * reads every account's rollups). One query finds them; a fully sealed range costs only that.
   */
  async ensureAllSealed(fromDay: number, toDay: number, now: number): Promise<void> {
    if (toDay <= fromDay) return;
    const missing = await this.db
      .selectFrom('accounts as a')
      .select('a.id')
      .where(
        (eb) =>
          eb
            .selectFrom('usage_days_sealed as s')
            .select(sql<number>`count(*)`.as('n'))
            .whereRef('s.account_id', '=', 'a.id')
            .where('s.day', '>=', fromDay)
            .where('s.day', '<', toDay),
        '<',
        toDay - fromDay,
      )
      .execute();
    for (const account of missing) await this.ensureSealed(Number(account.id), fromDay, toDay, now);
  }

  /** Seals the days of [fromDay, toDay) that are not sealed yet. */
  private async ensureSealed(accountId: number, fromDay: number, toDay: number, now: number): Promise<void> {
    const sealed = await this.db
      .selectFrom('usage_days_sealed')
      .select('day')
      .where('account_id', '=', accountId)
      .where('day', '>=', fromDay)
      .where('day', '<', toDay)
      .execute();
    if (sealed.length < toDay - fromDay)
      await this.sealDays(accountId, fromDay, toDay, new Set(sealed.map((r) => Number(r.day))), now);
  }

  private async sealedCells(accountId: number, range: AnalyticsRange, now: number): Promise<UsageCell[]> {
    const fromDay = range.from / DAY_MS;
    const toDay = range.to / DAY_MS;
    await this.ensureSealed(accountId, fromDay, toDay, now);
    let query = this.db
      .selectFrom('usage_daily')
      .select(['day as bucket', 'key_id', 'model_id', 'requests', 'spent', 'input_tokens', 'output_tokens'])
      .where('account_id', '=', accountId)
      .where('day', '>=', fromDay)
      .where('day', '<', toDay);
    if (range.keyId !== undefined) query = query.where('key_id', '=', range.keyId);
    return (await query.execute()).map(toCell);
  }

  /**
   * Writes the daily totals of the days in [fromDay, toDay) not in `done`, for every key of the
   * account, and marks them sealed. Idempotent: two pages sealing the same days at once write the
   * same rows, and the second's inserts do nothing.
   */
  private async sealDays(accountId: number, fromDay: number, toDay: number, done: Set<number>, now: number) {
    const missing: number[] = [];
    for (let day = fromDay; day < toDay; day++) if (!done.has(day)) missing.push(day);
    const first = missing[0];
    const last = missing[missing.length - 1] + 1;
    const wanted = new Set(missing);
    const merged = new Map<string, UsageCell>();
    for (const cell of await this.liveCells(accountId, { from: first * DAY_MS, to: last * DAY_MS }, DAY_MS)) {
      if (!wanted.has(cell.bucket)) continue;
      const id = `${cell.bucket}\u0000${cell.key_id}\u0000${cell.model_id}`;
      const into = merged.get(id);
      if (into) {
        into.requests += cell.requests;
        into.spent += cell.spent;
        into.input_tokens += cell.input_tokens;
        into.output_tokens += cell.output_tokens;
      } else merged.set(id, { ...cell });
    }
    const rows = [...merged.values()].map((c) => ({
      account_id: accountId,
      day: c.bucket,
      key_id: c.key_id,
      model_id: c.model_id,
      requests: c.requests,
      spent: c.spent,
      input_tokens: c.input_tokens,
      output_tokens: c.output_tokens,
    }));
    const outcomes = await this.db
      .selectFrom('tasks')
      .select([
        sql<number>`created_at / ${sql.lit(DAY_MS)}`.as('day'),
        'key_id',
        'status',
        errorKindSql(TASK_FAILURE).as('error_kind'),
        sql<number>`count(*)`.as('tasks'),
      ])
      .where('account_id', '=', accountId)
      .where('created_at', '>=', first * DAY_MS)
      .where('created_at', '<', last * DAY_MS)
      .groupBy([sql`1`, sql`2`, sql`3`, sql`4`])
      .execute();
    const outcomeRows = outcomes
      .filter((o) => wanted.has(Number(o.day)))
      .map((o) => ({
        account_id: accountId,
        day: Number(o.day),
        key_id: Number(o.key_id),
        status: o.status,
        // '' for "no error" keeps the primary key free of nulls on both engines.
        error_kind: o.error_kind ?? '',
        tasks: Number(o.tasks),
      }));
    const marginRows = (await marginCells(this.db, first * DAY_MS, last * DAY_MS, accountId))
      .filter((m) => wanted.has(m.day))
      .map((m) => ({ account_id: accountId, ...m }));
    const write = async (db: Kysely<Database>) => {
      for (let i = 0; i < marginRows.length; i += 500) {
        await db
          .insertInto('margin_daily')
          .values(marginRows.slice(i, i + 500))
          .onConflict((oc) => oc.columns(['account_id', 'day', 'model_id', 'provider']).doNothing())
          .execute();
      }
      for (let i = 0; i < outcomeRows.length; i += 500) {
        await db
          .insertInto('task_outcomes_daily')
          .values(outcomeRows.slice(i, i + 500))
          .onConflict((oc) => oc.columns(['account_id', 'day', 'key_id', 'status', 'error_kind']).doNothing())
          .execute();
      }
      for (let i = 0; i < rows.length; i += 500) {
        await db
          .insertInto('usage_daily')
          .values(rows.slice(i, i + 500))
          .onConflict((oc) => oc.columns(['account_id', 'day', 'key_id', 'model_id']).doNothing())
          .execute();
      }
      for (let i = 0; i < missing.length; i += 500) {
        await db
          .insertInto('usage_days_sealed')
          .values(missing.slice(i, i + 500).map((day) => ({ account_id: accountId, day, sealed_at: now })))
          .onConflict((oc) => oc.columns(['account_id', 'day']).doNothing())
          .execute();
      }
    };
    if (this.db.isTransaction) await write(this.db);
    else await this.db.transaction().execute(write);
  }

  /** The account's tasks created in [from, to) by status and, for failures, error kind. */
  /**
   * The account's tasks created in [from, to) by status and, for failures, error kind. With `now`,
   * sealed days come from task_outcomes_daily (as usageCells does) and the rest is counted live.
   */
  async taskOutcomes(accountId: number, range: AnalyticsRange, now?: number): Promise<TaskOutcome[]> {
    const totals = new Map<string, TaskOutcome>();
    const add = (status: string, kind: string | null, tasks: number) => {
      const id = `${status}\u0000${kind ?? ''}`;
      const into = totals.get(id) ?? { status, error_kind: kind, tasks: 0 };
      into.tasks += tasks;
      totals.set(id, into);
    };
    let live = range;
    if (now !== undefined && range.from % DAY_MS === 0) {
      const sealedEnd = Math.floor((now - SEAL_AFTER_MS) / DAY_MS) * DAY_MS;
      const split = Math.max(range.from, Math.min(range.to, sealedEnd));
      if (split > range.from) {
        await this.ensureSealed(accountId, range.from / DAY_MS, split / DAY_MS, now);
        let sealed = this.db
          .selectFrom('task_outcomes_daily')
          .select(['status', 'error_kind', sql<number>`sum(tasks)`.as('tasks')])
          .where('account_id', '=', accountId)
          .where('day', '>=', range.from / DAY_MS)
          .where('day', '<', split / DAY_MS);
        if (range.keyId !== undefined) sealed = sealed.where('key_id', '=', range.keyId);
        for (const r of await sealed.groupBy(['status', 'error_kind']).execute())
          add(r.status, r.error_kind === '' ? null : r.error_kind, Number(r.tasks));
      }
      live = { ...range, from: split };
    }
    if (live.to > live.from) {
      let query = this.db
        .selectFrom('tasks')
        .select(['status', errorKindSql(TASK_FAILURE).as('error_kind'), sql<number>`count(*)`.as('tasks')])
        .where('account_id', '=', accountId)
        .where('created_at', '>=', live.from)
        .where('created_at', '<', live.to);
      if (live.keyId !== undefined) query = query.where('key_id', '=', live.keyId);
      for (const r of await query.groupBy([sql`1`, sql`2`]).execute())
        add(r.status, r.error_kind, Number(r.tasks));
    }
    return [...totals.values()].sort((a, b) => b.tasks - a.tasks);
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

/** One (day, model, provider) cell of the margin rollup. Money in micro-rubles. */
export interface MarginCell {
  day: number;
  model_id: string;
  /** '' when unknown (chat rows written before the provider was kept). */
  provider: string;
  requests: number;
  /** What the clients were charged (captured). */
  revenue: number;
  /** Sum of the known provider costs. */
  cost: number;
  /** Requests whose provider cost is known. */
  costed: number;
}

/**
 * Requests created in [from, to) per UTC day, model and provider, with their revenue and provider
 * cost, from tasks and chat usage rows: one account's (sealing), or every account's (the report's
 * live tail). Tasks and chat of one cell are added up.
 */
export async function marginCells(
  db: Kysely<Database>,
  from: number,
  to: number,
  accountId?: number,
): Promise<MarginCell[]> {
  const day = sql<number>`created_at / ${sql.lit(DAY_MS)}`;
  const columns = [
    day.as('day'),
    'model_id',
    sql<string>`coalesce(provider, '')`.as('provider'),
    sql<number>`count(*)`.as('requests'),
    sql<number>`coalesce(sum(cost), 0)`.as('revenue'),
    sql<number>`coalesce(sum(provider_cost), 0)`.as('cost'),
    sql<number>`count(provider_cost)`.as('costed'),
  ] as const;
  let tasks = db
    .selectFrom('tasks')
    .select(columns)
    .where('created_at', '>=', from)
    .where('created_at', '<', to);
  let chats = db
    .selectFrom('usage_records')
    .select(columns)
    .where('created_at', '>=', from)
    .where('created_at', '<', to);
  if (accountId !== undefined) {
    tasks = tasks.where('account_id', '=', accountId);
    chats = chats.where('account_id', '=', accountId);
  } else {
    // Every account: named through accounts so that both engines read the (account_id,
    // created_at, …) indexes the panel already keeps, instead of a created_at index that every task
    // and chat request would have to write.
    tasks = tasks.where('account_id', 'in', db.selectFrom('accounts').select('id'));
    chats = chats.where('account_id', 'in', db.selectFrom('accounts').select('id'));
  }
  const groups = [sql`1`, sql`2`, sql`3`];
  const [taskRows, chatRows] = await Promise.all([
    tasks.groupBy(groups).execute(),
    chats.groupBy(groups).execute(),
  ]);
  return mergeMarginCells([...taskRows, ...chatRows]);
}

/** Adds up the cells of one (day, model, provider); numbers from either engine's drivers. */
export function mergeMarginCells(
  rows: Array<{
    day: number | string;
    model_id: string;
    provider: string;
    requests: number | string;
    revenue: number | string;
    cost: number | string;
    costed: number | string;
  }>,
): MarginCell[] {
  const merged = new Map<string, MarginCell>();
  for (const r of rows) {
    const id = `${r.day}\u0000${r.model_id}\u0000${r.provider}`;
    const into = merged.get(id) ?? {
      day: Number(r.day),
      model_id: r.model_id,
      provider: r.provider,
      requests: 0,
      revenue: 0,
      cost: 0,
      costed: 0,
    };
    into.requests += Number(r.requests);
    into.revenue += Number(r.revenue);
    into.cost += Number(r.cost);
    into.costed += Number(r.costed);
    merged.set(id, into);
  }
  return [...merged.values()];
}
