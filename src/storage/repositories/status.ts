// The public status page's figures, aggregated in SQL over every account (no row, id or account
// ever leaves this file: only counts and durations). Tasks and chat requests have time-ordered ids
// (uuidV7 starts with its creation time), so "since T" is a range scan of the primary key
// (`id >= lowerBound(T)`) that needs no index of its own; the time columns then filter exactly.
import { type Kysely, sql } from 'kysely';
import { TASK_FAILURE } from '../../domain/tasks/states.js';
import type { Database } from '../schema.js';

/** Finished work of one group (a model family, a provider or a chat model) over a window. */
export interface FinishedCounts {
  succeeded: number;
  failed: number;
  /** Median time from request to result of the succeeded ones, in ms; null when none succeeded. */
  medianMs: number | null;
}

/** Finished work of one provider (or chat model): the window, and its recent part for health. */
export interface ProviderCounts {
  succeeded: number;
  failed: number;
  recentSucceeded: number;
  /** Recent failures the provider is answerable for (a refused prompt is the prompt's doing). */
  recentFailed: number;
}

export interface StatusWindow {
  /** Figures cover work that finished at or after this time (epoch ms)... */
  since: number;
  /** ...and health the part at or after this one. */
  recentSince: number;
  /** Tasks created before this are not looked at: the bound of the id range scan. */
  createdSince: number;
}

/** The smallest uuidV7 text of a time: its 48-bit ms timestamp as `xxxxxxxx-xxxx`. */
export function uuidV7LowerBound(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0').slice(-12);
  return `${hex.slice(0, 8)}-${hex.slice(8)}`;
}

/** Chat usage rows are `chat_` + a uuidV7. */
const CHAT_ID_PREFIX = 'chat_';

const num = (value: unknown): number => Number(value ?? 0);
const numOrNull = (value: unknown): number | null =>
  value === null || value === undefined ? null : Number(value);

export class StatusRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Finished tasks by family (the catalog kind: video, image), with the median of created → finished
   * over the succeeded ones. The median is the middle row (or the mean of the two middle rows) by a
   * window function, which SQLite and PostgreSQL both have.
   */
  async taskFamilies(window: StatusWindow): Promise<Map<string, FinishedCounts>> {
    const { rows } = await sql<{ family: string; succeeded: unknown; failed: unknown; median_ms: unknown }>`
      with finished as (
        select kind, status, finished_at - created_at as ms
        from tasks
        where id >= ${uuidV7LowerBound(window.createdSince)}
          and finished_at >= ${window.since}
          and status in ('completed', 'failed')
      ),
      ${medianAndCounts('kind')}
    `.execute(this.db);
    return new Map(rows.map((row) => [row.family, counts(row)]));
  }

  /** Finished chat requests (the text family), with the median of their latency when completed. */
  async chatFamily(window: StatusWindow): Promise<FinishedCounts> {
    const { rows } = await sql<{ family: string; succeeded: unknown; failed: unknown; median_ms: unknown }>`
      with finished as (
        select 'text' as kind, status, latency_ms as ms
        from usage_records
        where id >= ${CHAT_ID_PREFIX + uuidV7LowerBound(window.since)}
          and created_at >= ${window.since}
          and status in ('completed', 'failed')
      ),
      ${medianAndCounts('kind')}
    `.execute(this.db);
    return rows[0] ? counts(rows[0]) : { succeeded: 0, failed: 0, medianMs: null };
  }

  /** Finished tasks by the provider that ran them. */
  async taskProviders(window: StatusWindow): Promise<Map<string, ProviderCounts>> {
    const { rows } = await sql<{ name: string } & Record<string, unknown>>`
      select provider as name, ${providerSums(window)}
      from tasks
      where id >= ${uuidV7LowerBound(window.createdSince)}
        and finished_at >= ${window.since}
        and status in ('completed', 'failed')
      group by provider
    `.execute(this.db);
    return new Map(rows.map((row) => [row.name, providerCounts(row)]));
  }

  /** Finished chat requests by model (the caller knows which provider serves a model). */
  async chatModels(window: StatusWindow): Promise<Map<string, ProviderCounts>> {
    const { rows } = await sql<{ name: string } & Record<string, unknown>>`
      select model_id as name, ${providerSums(window, 'created_at')}
      from usage_records
      where id >= ${CHAT_ID_PREFIX + uuidV7LowerBound(window.since)}
        and created_at >= ${window.since}
        and status in ('completed', 'failed')
      group by model_id
    `.execute(this.db);
    return new Map(rows.map((row) => [row.name, providerCounts(row)]));
  }

  /** Since when the oldest task that could run now has waited (epoch ms), or null for none. */
  async oldestRunnableSince(now: number): Promise<number | null> {
    // The tasks_queue index (status, run_at) answers this from its first entry.
    const row = await this.db
      .selectFrom('tasks')
      .select((eb) => eb.fn.min('run_at').as('oldest'))
      .where('status', '=', 'pending')
      .where('run_at', '<=', now)
      .executeTakeFirst();
    return numOrNull(row?.oldest);
  }
}

/** The tail of a query over a `finished(kind, status, ms)` CTE: counts and median per `kind`. */
function medianAndCounts(group: 'kind') {
  const by = sql.ref(group);
  return sql`
    ranked as (
      select ${by}, ms,
        row_number() over (partition by ${by} order by ms) as rn,
        count(*) over (partition by ${by}) as n
      from finished
      where status = 'completed'
    ),
    medians as (
      select ${by}, avg(ms) as median_ms from ranked
      where rn in ((n + 1) / 2, (n + 2) / 2)
      group by ${by}
    ),
    totals as (
      select ${by},
        sum(case when status = 'completed' then 1 else 0 end) as succeeded,
        sum(case when status = 'failed' then 1 else 0 end) as failed
      from finished
      group by ${by}
    )
    select totals.${by} as family, totals.succeeded, totals.failed, medians.median_ms
    from totals left join medians on medians.${by} = totals.${by}
  `;
}

function providerSums(window: StatusWindow, finishedColumn: 'finished_at' | 'created_at' = 'finished_at') {
  const at = sql.ref(finishedColumn);
  // A chat failure has no error text to tell a refused prompt apart; tasks keep the spec's message.
  const ownFault =
    finishedColumn === 'finished_at' ? sql`(error is null or error <> ${TASK_FAILURE.rejected})` : sql`1 = 1`;
  return sql`
    sum(case when status = 'completed' then 1 else 0 end) as succeeded,
    sum(case when status = 'failed' then 1 else 0 end) as failed,
    sum(case when status = 'completed' and ${at} >= ${window.recentSince} then 1 else 0 end) as recent_succeeded,
    sum(case when status = 'failed' and ${at} >= ${window.recentSince} and ${ownFault} then 1 else 0 end)
      as recent_failed
  `;
}

function counts(row: { succeeded: unknown; failed: unknown; median_ms: unknown }): FinishedCounts {
  const medianMs = numOrNull(row.median_ms);
  return {
    succeeded: num(row.succeeded),
    failed: num(row.failed),
    medianMs: medianMs === null ? null : Math.round(medianMs),
  };
}

function providerCounts(row: Record<string, unknown>): ProviderCounts {
  return {
    succeeded: num(row.succeeded),
    failed: num(row.failed),
    recentSucceeded: num(row.recent_succeeded),
    recentFailed: num(row.recent_failed),
  };
}
