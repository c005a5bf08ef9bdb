// SQL built from the one declaration of the ledger kinds (domain/billing/ledger-kinds.ts): the
// schema's check constraint and the signed sums `ledger check` compares balances with. Kind names
// are constants of the code, inlined as literals so the statements stay plain text on both engines.
import { type RawBuilder, sql } from 'kysely';
import {
  LEDGER_KIND_SPECS,
  LEDGER_KINDS,
  type LedgerKind,
  type LedgerKindSpec,
} from '../../domain/billing/ledger-kinds.js';

function kindList(kinds: readonly LedgerKind[]): RawBuilder<unknown> {
  return sql`(${sql.join(kinds.map((kind) => sql.lit(kind)))})`;
}

/** The body of the `ledger_kind_valid` check constraint: every declared kind. */
export function ledgerKindCheck(kinds: readonly LedgerKind[] = LEDGER_KINDS): RawBuilder<unknown> {
  return sql`kind in ${kindList(kinds)}`;
}

/**
 * Σ of each entry's signed effect, as one SQL expression over `kind` and `amount` of
 * ledger_entries: `effect` picks the side (available balance, held, or both together).
 */
export function signedLedgerSum(effect: (spec: LedgerKindSpec) => number): RawBuilder<number> {
  const plus = LEDGER_KINDS.filter((k) => effect(LEDGER_KIND_SPECS[k]) > 0);
  const minus = LEDGER_KINDS.filter((k) => effect(LEDGER_KIND_SPECS[k]) < 0);
  const branches = [
    plus.length > 0 ? sql`when kind in ${kindList(plus)} then amount` : sql``,
    minus.length > 0 ? sql`when kind in ${kindList(minus)} then -amount` : sql``,
  ];
  return sql<number>`sum(case ${sql.join(branches, sql` `)} else 0 end)`;
}

/** Both sides together: what the key holds in all (balance + held). */
export const fundsEffect = (spec: LedgerKindSpec) => spec.balance + spec.held;
export const heldEffectOf = (spec: LedgerKindSpec) => spec.held;
