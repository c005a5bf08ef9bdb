// Every kind of ledger entry, declared once: what it does to the key's available balance and to its
// held amount, and how people read it. The schema's check constraint, `gengate ledger check`, the
// owner's history and the panel read this table, so a new kind is one line here and a migration
// that re-declares the constraint from it.

/** A movement's sign on one side of the key: +1 adds the entry's amount, -1 takes it, 0 leaves it. */
export type Sign = -1 | 0 | 1;

export interface LedgerKindSpec {
  /** Effect on the available balance, times the entry's amount (signed kinds store a signed amount). */
  balance: Sign;
  /** Effect on the held amount. */
  held: Sign;
  /** A short label for people (panel badges, filters). */
  label: string;
  /** How the panel colours it. */
  tone: 'ok' | 'warn' | 'muted' | 'info' | 'error';
  /** What the entry's `task_id` column refers to, when anything. */
  reference: 'task' | 'topup' | 'refund' | 'code' | 'none';
}

export const LEDGER_KIND_SPECS = {
  /** Money in from the operator (no reference) or from a paid top-up (reference: the top-up id, once). */
  topup: { balance: 1, held: 0, label: 'top-up', tone: 'ok', reference: 'topup' },
  hold: { balance: -1, held: 1, label: 'hold', tone: 'warn', reference: 'task' },
  capture: { balance: 0, held: -1, label: 'capture', tone: 'muted', reference: 'task' },
  release: { balance: 1, held: -1, label: 'release', tone: 'info', reference: 'task' },
  /** An operator correction; the amount is signed. */
  adjust: { balance: 1, held: 0, label: 'adjustment', tone: 'info', reference: 'none' },
  /** A move between two keys of one owner; the amount is signed (negative out). */
  transfer: { balance: 1, held: 0, label: 'transfer', tone: 'info', reference: 'none' },
  /** A redeemed code's credit (reference: the code's id, once). */
  redeem: { balance: 1, held: 0, label: 'code redeemed', tone: 'ok', reference: 'code' },
  /** Money paid back to the payer of a top-up (reference: the refund's id, once). */
  refund: { balance: -1, held: 0, label: 'refund', tone: 'error', reference: 'refund' },
  /** A refund the payment provider refused: its debit comes back (reference: the refund's id, once). */
  refund_reversal: { balance: 1, held: 0, label: 'refund reversed', tone: 'info', reference: 'refund' },
} as const satisfies Record<string, LedgerKindSpec>;

export type LedgerKind = keyof typeof LEDGER_KIND_SPECS;

export const LEDGER_KINDS = Object.keys(LEDGER_KIND_SPECS) as LedgerKind[];

export function isLedgerKind(value: string): value is LedgerKind {
  return Object.hasOwn(LEDGER_KIND_SPECS, value);
}

/** What an entry did to the available balance, signed. */
export function balanceEffect(kind: LedgerKind, amount: number): number {
  return LEDGER_KIND_SPECS[kind].balance * amount;
}

/** What an entry did to the held amount, signed. */
export function heldEffect(kind: LedgerKind, amount: number): number {
  return LEDGER_KIND_SPECS[kind].held * amount;
}

/** The kinds whose balance and held effects are (a, b): used to build the SQL sums. */
export function kindsWithEffect(pick: (spec: LedgerKindSpec) => Sign, sign: Sign): LedgerKind[] {
  return LEDGER_KINDS.filter((kind) => pick(LEDGER_KIND_SPECS[kind]) === sign);
}
