// The SQL of the per-key spend cap, shared by every statement that holds or settles (SQLite and
// PostgreSQL; single and batched). api_keys.spend_in_period counts what the key held, net of
// releases, since api_keys.spend_since. The counter is current when spend_since is at or after the
// start of the key's period containing the hold (always, for `total` or no period: the start is 0);
// otherwise the hold counts afresh from that start. A hold is refused when the counted spend plus
// its amount would pass spend_limit; a settlement takes its release off the counter when the hold
// was counted there (made at or after spend_since). For a key without a cap these are a few CASE
// expressions in an UPDATE the statement makes anyway.
import { type RawBuilder, sql } from 'kysely';

/** The starts of the day, week and month of the hold (domain/keys/limits.ts periodStarts). */
export interface PeriodStartValues {
  day: unknown;
  week: unknown;
  month: unknown;
}

type Fragment = RawBuilder<unknown>;

/** `column` of api_keys, with the statement's alias for the table (e.g. `k`) when it has one. */
function column(alias: string | null, name: string): Fragment {
  return sql.raw(alias ? `${alias}.${name}` : name);
}

/** The start of the key's period containing the hold. */
function periodStartOf(alias: string | null, starts: PeriodStartValues): Fragment {
  return sql`(case ${column(alias, 'spend_limit_period')}
    when 'day' then cast(${starts.day} as bigint)
    when 'week' then cast(${starts.week} as bigint)
    when 'month' then cast(${starts.month} as bigint) else 0 end)`;
}

/** The spend already counted in the hold's period. */
function counted(alias: string | null, starts: PeriodStartValues): Fragment {
  return sql`(case when ${column(alias, 'spend_since')} >= ${periodStartOf(alias, starts)}
    then ${column(alias, 'spend_in_period')} else 0 end)`;
}

/** The guard a hold of `amount` adds to its UPDATE's WHERE. */
export function withinSpendCap(alias: string | null, amount: unknown, starts: PeriodStartValues): Fragment {
  return sql`(${column(alias, 'spend_limit')} is null
    or ${counted(alias, starts)} + cast(${amount} as bigint) <= ${column(alias, 'spend_limit')})`;
}

/** The SET assignments of a hold of `amount` (after the balance's), moving the counter. */
export function holdSpendSet(alias: string | null, amount: unknown, starts: PeriodStartValues): Fragment {
  const since = column(alias, 'spend_since');
  const start = periodStartOf(alias, starts);
  return sql`spend_in_period = ${counted(alias, starts)} + cast(${amount} as bigint),
    spend_since = case when ${since} >= ${start} then ${since} else ${start} end`;
}

/** The counter after a settlement that releases `released` of a hold made at `holdAt`. */
export function spendAfterRelease(
  alias: string | null,
  released: unknown,
  holdAt: unknown,
): RawBuilder<number> {
  return sql<number>`${column(alias, 'spend_in_period')}
    - case when cast(${holdAt} as bigint) >= ${column(alias, 'spend_since')}
      then cast(${released} as bigint) else 0 end`;
}

/** The SET assignment of a settlement that releases `released` of a hold made at `holdAt`. */
export function releaseSpendSet(alias: string | null, released: unknown, holdAt: unknown): Fragment {
  return sql`spend_in_period = ${spendAfterRelease(alias, released, holdAt)}`;
}

/** When the task's (or chat request's) hold was made, read off its ledger entry. */
export function holdTimeOf(taskId: unknown): Fragment {
  return sql`(select created_at from ledger_entries where task_id = ${taskId} and kind = 'hold')`;
}
