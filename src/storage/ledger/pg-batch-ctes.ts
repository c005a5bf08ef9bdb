// The parts of batched PostgreSQL statements that move money, built from the one definition of a
// hold and a settlement (movements.ts). holdCtes holds, for new tasks
// (pg-task-batch.ts) and chat requests (pg-chat-batch.ts). It follows an `input` CTE with one row per item (id,
// key_id, account_id, ord = arrival order, and the amount and time columns named by the caller) and
// defines:
//   locked    the batch's keys, locked in id order: two batches never wait for each other in a cycle;
//   moved     each key's total moved from balance to held, only when the balance covers ALL of it;
//   accepted  the input rows of the keys that moved, with the balances right after their own hold;
//   entries   one 'hold' ledger entry per accepted row, in arrival order.
// The caller writes its own rows from `accepted`; items of a key that did not move are declined.
import { type RawBuilder, sql } from 'kysely';
import { periodStarts } from '../../domain/keys/limits.js';
import { holdAssignments, holdGuard, LEDGER_ENTRY_INSERT, settleAssignments } from './movements.js';

/**
 * `latestAt` is the batch's latest time, from which the spend caps' periods are taken: a batch that
 * straddles a period's start counts its holds in the new period (its earlier holds then free no
 * room when released, erring on the side of the cap).
 */
export function holdCtes(
  columns: {
    amount: 'amount' | 'hold_amount';
    at: 'now' | 'created_at';
  },
  latestAt: number,
): RawBuilder<unknown> {
  const amount = sql.ref(`i.${columns.amount}`);
  const at = sql.raw(columns.at);
  const starts = periodStarts(latestAt);
  return sql`locked as materialized (
      select id from api_keys where id in (select key_id from input) order by id for no key update
    ), want as (
      select key_id, sum(${sql.raw(columns.amount)})::bigint as total, max(${at}) as now
      from input where key_id in (select id from locked) group by key_id
    ), moved as (
      update api_keys k
      set ${holdAssignments('k', sql`w.total`, sql`w.now`, starts)}
      from want w
      where k.id = w.key_id and ${holdGuard('k', sql`w.total`, starts)}
      returning k.id, k.balance, k.held, w.total
    ), accepted as (
      select i.*,
             m.balance + m.total - (sum(${amount}) over through)::bigint as balance_after,
             m.held - m.total + (sum(${amount}) over through)::bigint as held_after
      from input i join moved m on m.id = i.key_id
      window through as (partition by i.key_id order by i.ord)
    ), entries as (
      ${LEDGER_ENTRY_INSERT}
      select key_id, account_id, id, 'hold', ${sql.raw(columns.amount)}, balance_after, held_after, null, ${at}
      from accepted order by ord
    )`;
}

/**
 * The part of a batched statement that settles holds, shared by chat requests (pg-chat-batch.ts)
 * and finished tasks (pg-finish-batch.ts). It follows a `done` CTE with one row per settled item
 * (id, key_id, account_id, ord, hold_amount, released, and the captured and time columns named by
 * the caller) and defines `locked` (keys in id order), `moved` (each key's holds gone, releases back
 * on the balance), `placed` (the balances just before each item's settlement, in arrival order) and
 * `entries` (a capture and a release entry per item, returning task_id).
 */
export function settleCtes(columns: {
  captured: 'cost' | 'captured';
  at: 'now' | 'at';
}): RawBuilder<unknown> {
  // Each key's releases of holds its spend counter counted (made at or after spend_since: the
  // `created_at` of each settled item is its hold's time) go back to the counter.
  const captured = sql.raw(columns.captured);
  const at = sql.raw(columns.at);
  return sql`locked as materialized (
      select id, spend_since from api_keys where id in (select key_id from done) order by id
      for no key update
    ), sums as (
      select key_id, sum(hold_amount)::bigint as hold_total, sum(released)::bigint as released_total,
             max(${at}) as now
      from done where key_id in (select id from locked) group by key_id
    ), freed as (
      select d.key_id, sum(d.released)::bigint as counted_total
      from done d join locked l on l.id = d.key_id
      where d.created_at >= l.spend_since group by d.key_id
    ), moved as (
      update api_keys k
      set ${settleAssignments(
        'k',
        sql`s.hold_total`,
        sql`s.released_total`,
        sql`s.now`,
        sql`spend_in_period = k.spend_in_period - coalesce(f.counted_total, 0)`,
      )}
      from sums s left join freed f on f.key_id = s.key_id where k.id = s.key_id
      returning k.id, k.balance, k.held, k.low_balance, s.hold_total, s.released_total
    ), placed as (
      select d.*,
             m.balance - m.released_total + (sum(d.released) over through)::bigint - d.released
               as balance_before,
             m.held + m.hold_total - (sum(d.hold_amount) over through)::bigint + d.hold_amount
               as held_before
      from done d join moved m on m.id = d.key_id
      window through as (partition by d.key_id order by d.ord)
    ), notices as (
      -- A low-balance notice for the item whose capture took the key's funds (balance + held) from
      -- at or above its threshold to below it (domain/billing/low-balance.ts).
      insert into balance_notices (id, account_id, key_id, funds, threshold, next_attempt_at, created_at)
      select 'lb:' || p.id, p.account_id, p.key_id, p.balance_before + p.held_before - p.${captured},
             m.low_balance, p.${at}, p.${at}
      from placed p join moved m on m.id = p.key_id
      where m.low_balance is not null and p.${captured} > 0
        and p.balance_before + p.held_before >= m.low_balance
        and p.balance_before + p.held_before - p.${captured} < m.low_balance
    ), entries as (
      ${LEDGER_ENTRY_INSERT}
      select key_id, account_id, id, kind, amount, balance_after, held_after, null, ${at}
      from (
        select key_id, account_id, id, 'capture' as kind, ${captured} as amount,
               balance_before as balance_after, held_before - ${captured} as held_after, ${at}, ord, 0 as step
        from placed
        union all
        select key_id, account_id, id, 'release', released, balance_before + released,
               held_before - hold_amount, ${at}, ord, 1
        from placed
      ) movements
      order by ord, step
      returning task_id
    )`;
}
