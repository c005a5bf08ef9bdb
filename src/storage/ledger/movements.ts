// A hold and a settlement, defined once as SQL: what each does to a key's row (the SET assignments)
// and the guard a hold must pass, and the ledger entries a settlement appends. Every statement that
// moves money builds from these, single (ledger.ts, chat-billing.ts) or batched (pg-batch-ctes.ts),
// so the rules (balance covers it, key not deleted, the spend cap, its counter) live in one place.
import { type RawBuilder, sql } from 'kysely';
import { holdSpendSet, type PeriodStartValues, withinSpendCap } from './spend-cap-sql.js';

type Fragment = RawBuilder<unknown>;

/** `column` of api_keys, with the statement's alias for the table (e.g. `k`) when it has one. */
function column(alias: string | null, name: string): Fragment {
  return sql.raw(alias ? `${alias}.${name}` : name);
}

/** The SET assignments of a hold of `amount`: from balance to held, and the spend counter. */
export function holdAssignments(
  alias: string | null,
  amount: unknown,
  now: unknown,
  starts: PeriodStartValues,
): Fragment {
  return sql`balance = ${column(alias, 'balance')} - ${amount}, held = ${column(alias, 'held')} + ${amount},
    updated_at = ${now}, ${holdSpendSet(alias, amount, starts)}`;
}

/** What a hold of `amount` requires of the key: alive, the balance covering it, within its cap. */
export function holdGuard(alias: string | null, amount: unknown, starts: PeriodStartValues): Fragment {
  return sql`${column(alias, 'deleted_at')} is null and ${column(alias, 'balance')} >= ${amount}
    and ${withinSpendCap(alias, amount, starts)}`;
}

/**
 * The SET assignments of a settlement: the hold leaves `held`, the released part returns to the
 * balance, and `spend` (a spend_in_period assignment) gives the counter its release back.
 */
export function settleAssignments(
  alias: string | null,
  holdAmount: unknown,
  released: unknown,
  now: unknown,
  spend: Fragment,
): Fragment {
  return sql`held = ${column(alias, 'held')} - ${holdAmount}, balance = ${column(alias, 'balance')} + ${released},
    updated_at = ${now}, ${spend}`;
}

/** The target of every ledger append in a statement. */
export const LEDGER_ENTRY_INSERT = sql`insert into ledger_entries
  (key_id, account_id, task_id, kind, amount, balance_after, held_after, note, created_at)`;

/** PostgreSQL, one key: the `moved` CTE of a hold (`returning balance, held`, no row when refused). */
export function pgHoldMoved(p: { keyId: number; amount: number; now: number } & PeriodStartValues): Fragment {
  return sql`moved as (
    update api_keys set ${holdAssignments(null, p.amount, p.now, p)}
    where id = ${p.keyId} and ${holdGuard(null, p.amount, p)}
    returning balance, held
  )`;
}

/** PostgreSQL: the `hold` entry of `taskId`, from the balances a preceding `moved` CTE returned. */
export function pgHoldEntry(p: {
  keyId: number;
  accountId: number;
  taskId: string;
  amount: number;
  now: number;
}) {
  return sql`${LEDGER_ENTRY_INSERT}
    select ${p.keyId}::bigint, ${p.accountId}::bigint, ${p.taskId}::text, 'hold', ${p.amount}::bigint,
           balance, held, null, ${p.now}::bigint
    from moved`;
}

/** PostgreSQL, one key: the `moved` CTE of a settlement, made only when `guard` holds. */
export function pgSettleMoved(
  p: { keyId: number; holdAmount: number; released: number; now: number },
  guard: Fragment,
  spend: Fragment,
): Fragment {
  return sql`moved as (
    update api_keys set ${settleAssignments(null, p.holdAmount, p.released, p.now, spend)}
    where id = ${p.keyId} and ${guard}
    returning balance, held, low_balance
  )`;
}

/**
 * PostgreSQL: the `capture` and `release` entries of a settlement, appended from the balances that
 * a preceding CTE named `moved` returned after the update (`returning balance, held`).
 */
export function pgSettlementEntries(p: {
  keyId: number;
  accountId: number;
  taskId: string;
  captured: number;
  released: number;
  now: number;
}) {
  return sql<{ kind: string }>`
    ${LEDGER_ENTRY_INSERT}
    select ${p.keyId}::bigint, ${p.accountId}::bigint, ${p.taskId}::text, 'capture', ${p.captured}::bigint,
           balance - ${p.released}::bigint, held + ${p.released}::bigint, null, ${p.now}::bigint
    from moved
    union all
    select ${p.keyId}::bigint, ${p.accountId}::bigint, ${p.taskId}::text, 'release', ${p.released}::bigint,
           balance, held, null, ${p.now}::bigint
    from moved
    returning kind`;
}
