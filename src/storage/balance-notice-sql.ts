// PostgreSQL: the low-balance notice written by the very statement whose movement crossed the
// threshold (domain/billing/low-balance.ts), as a data-modifying CTE. The notice's id derives from
// the task or chat request that moved the money, so it is written once per settlement.
import { type RawBuilder, sql } from 'kysely';

/** The notice id of the settlement of `taskId` (a task or a chat request). */
export function noticeIdOf(taskId: string): string {
  return `lb:${taskId}`;
}

/**
 * A `notice` CTE following a `moved` CTE that returns the key's `balance, held, low_balance` after a
 * movement that lowered its funds by `lowered` (a capture).
 */
export function pgNoticeAfterMove(p: {
  taskId: unknown;
  keyId: unknown;
  accountId: unknown;
  lowered: unknown;
  now: unknown;
}): RawBuilder<unknown> {
  return sql`notice as (
      insert into balance_notices (id, account_id, key_id, funds, threshold, next_attempt_at, created_at)
      select 'lb:' || ${p.taskId}::text, ${p.accountId}::bigint, ${p.keyId}::bigint, balance + held,
             low_balance, ${p.now}::bigint, ${p.now}::bigint
      from moved
      where low_balance is not null and balance + held < low_balance
        and balance + held + ${p.lowered}::bigint >= low_balance
    )`;
}
