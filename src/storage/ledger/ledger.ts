// Money movements. Call each method inside the caller's transaction, together with the row that
// caused the movement (a task, a chat request, a top-up); called outside one, a method opens its own,
// so a balance never moves without its entry. Balances change only through guarded UPDATEs, and
// every change appends one ledger entry carrying the balance after it.

import { randomUUID } from 'node:crypto';
import { type Kysely, type Selectable, sql } from 'kysely';
import { LEDGER_KIND_SPECS, type LedgerKindSpec } from '../../domain/billing/ledger-kinds.js';
import { periodStarts } from '../../domain/keys/limits.js';
import { noticeIdOf, pgNoticeAfterMove } from '../balance-notice-sql.js';
import { type Engine, isUniqueViolation } from '../db.js';
import { placeholderRow, prepared } from '../prepared.js';
import { BalanceNoticesRepository } from '../repositories/balance-notices.js';
import type { Database, LedgerEntriesTable, LedgerKind } from '../schema.js';
import {
  holdAssignments,
  holdGuard,
  pgHoldEntry,
  pgHoldMoved,
  pgSettleMoved,
  pgSettlementEntries,
} from './movements.js';
import { holdTimeOf, type PeriodStartValues, releaseSpendSet, spendAfterRelease } from './spend-cap-sql.js';

export type LedgerEntryRow = Selectable<LedgerEntriesTable>;

export interface KeyRef {
  keyId: number;
  accountId: number;
  now: number;
}

/** A movement that does not match the ledger (no such hold, a wrong amount): a bug in the caller. */
export class LedgerIntegrityError extends Error {}

/** The task's hold was already captured or released; nothing was changed. Callers racing to end a
 * task (a worker and the timeout reaper) may treat this as "someone else finished it". */
export class TaskAlreadySettledError extends Error {
  constructor(
    readonly taskId: string,
    options?: { cause?: unknown },
  ) {
    super(`task ${taskId} is already settled`, options);
  }
}

/** A settlement's amounts: `captured + released = holdAmount`. */
interface Movement {
  ref: KeyRef;
  taskId: string;
  holdAmount: number;
  captured: number;
  released: number;
}

interface Balances {
  balance: number;
  held: number;
}

// The statements of every hold and settlement (each task and chat request), compiled once.
type EntryValues = Omit<LedgerEntriesTable, 'id'>;
const ENTRY_COLUMNS = [
  'key_id',
  'account_id',
  'task_id',
  'kind',
  'amount',
  'balance_after',
  'held_after',
  'note',
  'created_at',
] as const satisfies readonly (keyof EntryValues)[];

const APPEND = prepared((db, _entry: EntryValues) =>
  db.insertInto('ledger_entries').values(placeholderRow<EntryValues>(ENTRY_COLUMNS)),
);

/** A settlement's two entries, capture then release, in one statement. */
const APPEND_SETTLEMENT = prepared((db, _p: { capture: EntryValues; release: EntryValues }) =>
  db
    .insertInto('ledger_entries')
    .values([
      placeholderRow<EntryValues>(ENTRY_COLUMNS, 'capture'),
      placeholderRow<EntryValues>(ENTRY_COLUMNS, 'release'),
    ]),
);

/** A hold's values: the key, the amount, the time, and the period starts its spend cap counts from. */
type HoldValues = { keyId: number; amount: number; now: number } & PeriodStartValues;

// Guarded by the balance and by the key's spend cap (spend-cap-sql.ts), which moves with it.
const HOLD = prepared(
  (_db, p: HoldValues) =>
    sql<Balances>`
    update api_keys set ${holdAssignments(null, p.amount, p.now, p)}
    where id = ${p.keyId} and ${holdGuard(null, p.amount, p)}
    returning balance, held`,
);

const TASK_ENTRIES = prepared((db, p: { taskId: string }) =>
  db.selectFrom('ledger_entries').select(['kind', 'key_id', 'amount']).where('task_id', '=', p.taskId),
);

/**
 * SQLite: the settlement's balance update, made only while the task has its hold (same key, same
 * amount) and no capture or release yet, so the checks and the update are one statement. Writers
 * are serialized on SQLite, so nothing can change the entries between the check and the update.
 */
const SETTLE_BALANCES_IF_HELD = prepared(
  (db, p: { keyId: number; holdAmount: number; released: number; now: number; taskId: string }) =>
    db
      .updateTable('api_keys')
      .set({
        held: sql`held - ${p.holdAmount}`,
        balance: sql`balance + ${p.released}`,
        updated_at: p.now,
        spend_in_period: spendAfterRelease(null, p.released, holdTimeOf(p.taskId)),
      })
      .where('id', '=', p.keyId)
      .where(({ exists, not, selectFrom }) =>
        exists(
          selectFrom('ledger_entries')
            .select(sql`1`.as('one'))
            .where('task_id', '=', p.taskId)
            .where('kind', '=', 'hold')
            .where('key_id', '=', p.keyId)
            .where('amount', '=', p.holdAmount),
        ).and(
          not(
            exists(
              selectFrom('ledger_entries')
                .select(sql`1`.as('one'))
                .where('task_id', '=', p.taskId)
                .where('kind', 'in', ['capture', 'release']),
            ),
          ),
        ),
      )
      .returning(['balance', 'held', 'low_balance']),
);

// PostgreSQL: the balance update and its ledger entries in one statement (a data-modifying CTE), so
// the key row, which every request of the key must lock, stays locked for one round trip and the
// commit instead of one round trip per statement. SQLite has no such CTEs; its statements run
// synchronously in the process anyway.
const PG_HOLD_WITH_ENTRY = prepared(
  (_db, p: HoldValues & { accountId: number; taskId: string }) =>
    sql<{ balance_after: number }>`
      with ${pgHoldMoved(p)}
      ${pgHoldEntry(p)}
      returning balance_after`,
);

/** The settlement's checks (as SETTLE_BALANCES_IF_HELD), its balance update and both entries. */
const PG_SETTLE_WITH_ENTRIES = prepared(
  (
    _db,
    p: {
      keyId: number;
      accountId: number;
      taskId: string;
      holdAmount: number;
      captured: number;
      released: number;
      now: number;
    },
  ) =>
    sql<{ kind: string }>`
      with ${pgSettleMoved(
        p,
        sql`exists (select 1 from ledger_entries where task_id = ${p.taskId} and kind = 'hold'
                    and key_id = ${p.keyId} and amount = ${p.holdAmount})
          and not exists (select 1 from ledger_entries where task_id = ${p.taskId}
                          and kind in ('capture', 'release'))`,
        releaseSpendSet(null, p.released, holdTimeOf(p.taskId)),
      )}, ${pgNoticeAfterMove({
        taskId: p.taskId,
        keyId: p.keyId,
        accountId: p.accountId,
        lowered: p.captured,
        now: p.now,
      })}
      ${pgSettlementEntries(p)}`,
);

/** The lock an UPDATE of the balance takes; unlike FOR UPDATE it does not block the foreign-key
 * checks of concurrent inserts (tasks and ledger entries reference the key). */
const LOCK_KEY = prepared((db, p: { keyId: number }) =>
  db.selectFrom('api_keys').select('id').where('id', '=', p.keyId).forNoKeyUpdate(),
);

function entry(
  ref: KeyRef,
  kind: LedgerKind,
  amount: number,
  after: Balances,
  taskId: string | null,
  note: string | null = null,
): EntryValues {
  return {
    key_id: ref.keyId,
    account_id: ref.accountId,
    task_id: taskId,
    kind,
    amount,
    balance_after: after.balance,
    held_after: after.held,
    note,
    created_at: ref.now,
  };
}

function checkHoldAmount(amount: number): void {
  if (!Number.isSafeInteger(amount) || amount < 0)
    throw new LedgerIntegrityError(`hold amount must be a non-negative integer, got ${amount}`);
}

/** A settlement's amounts: the cost, never above the hold, captured and the rest released. */
function movementOf(ref: KeyRef, taskId: string, holdAmount: number, cost: number): Movement {
  if (!Number.isSafeInteger(cost) || !Number.isSafeInteger(holdAmount)) {
    throw new LedgerIntegrityError(
      `settlement amounts must be integers, got hold ${holdAmount} and cost ${cost}`,
    );
  }
  const captured = Math.max(0, Math.min(cost, holdAmount));
  return { ref, taskId, holdAmount, captured, released: holdAmount - captured };
}

/** Another writer settled the task between the check and the entries: UNIQUE(task_id, kind) said so. */
function alreadySettledOnConflict(error: unknown, taskId: string): unknown {
  return isUniqueViolation(error) ? new TaskAlreadySettledError(taskId, { cause: error }) : error;
}

/** A settlement that changed nothing: throws why (already settled, or no such hold or key). */
function refuseSettlement(
  entries: { kind: string; key_id: number; amount: number }[],
  ref: KeyRef,
  taskId: string,
  holdAmount: number,
): never {
  const hold = entries.find((e) => e.kind === 'hold');
  if (!hold || Number(hold.key_id) !== ref.keyId || Number(hold.amount) !== holdAmount) {
    throw new LedgerIntegrityError(`task ${taskId} has no hold of ${holdAmount} on key ${ref.keyId}`);
  }
  if (entries.some((e) => e.kind === 'capture' || e.kind === 'release'))
    throw new TaskAlreadySettledError(taskId);
  throw new LedgerIntegrityError(`key ${ref.keyId} does not exist`);
}

export class LedgerRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: Engine,
  ) {}

  /**
   * Runs `work` in the caller's transaction, or in a new one when called outside any: a balance
   * update and its ledger entry are never committed apart, whoever calls.
   */
  private atomically<T>(work: (ledger: LedgerRepository) => Promise<T>): Promise<T> {
    if (this.db.isTransaction) return work(this);
    return this.db.transaction().execute((trx) => work(new LedgerRepository(trx, this.engine)));
  }

  private async append(...values: Parameters<typeof entry>) {
    await APPEND(this.db, entry(...values));
  }

  /** Credits a key. Returns the new balance, or undefined when the key does not exist or is deleted. */
  async topup(ref: KeyRef, amount: number, note: string | null): Promise<number | undefined> {
    if (!Number.isSafeInteger(amount) || amount <= 0)
      throw new LedgerIntegrityError(`topup amount must be a positive integer, got ${amount}`);
    return this.atomically(async (ledger) => {
      const after = await ledger.db
        .updateTable('api_keys')
        .set({ balance: sql`balance + ${amount}`, updated_at: ref.now })
        .where('id', '=', ref.keyId)
        .where('deleted_at', 'is', null)
        .returning(['balance', 'held'])
        .executeTakeFirst();
      if (!after) return undefined;
      await ledger.append(ref, 'topup', amount, after, null, note);
      return after.balance;
    });
  }

  /**
   * An operator correction of either sign. Guarded like a hold: a debit larger than the available
   * balance matches no row. Returns the new balance, or undefined when the key is missing or the
   * balance does not cover a debit.
   */
  async adjust(ref: KeyRef, amount: number, note: string | null): Promise<number | undefined> {
    if (!Number.isSafeInteger(amount) || amount === 0)
      throw new LedgerIntegrityError(`adjust amount must be a non-zero integer, got ${amount}`);
    return this.atomically(async (ledger) => {
      const after = await ledger.db
        .updateTable('api_keys')
        .set({ balance: sql`balance + ${amount}`, updated_at: ref.now })
        .where('id', '=', ref.keyId)
        .where('deleted_at', 'is', null)
        .where('balance', '>=', -amount)
        .returning(['balance', 'held', 'low_balance'])
        .executeTakeFirst();
      if (!after) return undefined;
      await ledger.append(ref, 'adjust', amount, after, null, note);
      await new BalanceNoticesRepository(ledger.db).recordIfCrossed({
        id: `lb:${randomUUID()}`,
        accountId: ref.accountId,
        keyId: ref.keyId,
        after,
        lowered: -amount,
        now: ref.now,
      });
      return after.balance;
    });
  }

  /**
   * A movement of the available balance alone (a paid top-up, a code, a refund and its reversal), of
   * the sign ledger-kinds.ts gives `kind`, carrying `reference` (the top-up, code or refund id) in
   * task_id: UNIQUE(task_id, kind) makes a second one with the same reference a unique violation.
   * A debit is guarded like a hold. Returns the new balance, or undefined when the key is missing
   * or the balance does not cover a debit.
   */
  async moveBalance(
    ref: KeyRef,
    kind: LedgerKind,
    amount: number,
    reference: string,
    note: string | null = null,
  ): Promise<number | undefined> {
    const spec: LedgerKindSpec = LEDGER_KIND_SPECS[kind];
    if (spec.held !== 0 || spec.balance === 0)
      throw new LedgerIntegrityError(`${kind} does not move the available balance alone`);
    if (!Number.isSafeInteger(amount) || amount <= 0)
      throw new LedgerIntegrityError(`${kind} amount must be a positive integer, got ${amount}`);
    const delta = spec.balance * amount;
    return this.atomically(async (ledger) => {
      // No deleted_at guard: money paid while its key was being deleted still lands on it (the
      // operator can refund it), and a debit is bounded by the balance, which a deleted key lacks.
      let update = ledger.db
        .updateTable('api_keys')
        .set({ balance: sql`balance + ${delta}`, updated_at: ref.now })
        .where('id', '=', ref.keyId)
        .where('account_id', '=', ref.accountId);
      if (delta < 0) update = update.where('balance', '>=', amount);
      const after = await update.returning(['balance', 'held']).executeTakeFirst();
      if (!after) return undefined;
      await ledger.append(ref, kind, amount, after, reference, note);
      return Number(after.balance);
    });
  }

  /**
   * Reserves `amount` for a task. The guarded write makes a concurrent overdraw impossible: the
   * UPDATE matches no row when the balance does not cover the amount. Returns false in that case,
   * having written nothing.
   */
  async hold(ref: KeyRef, taskId: string, amount: number): Promise<boolean> {
    checkHoldAmount(amount);
    return this.atomically(async (ledger) => {
      if (ledger.engine === 'sqlite') return ledger.holdOnSqlite(ref, taskId, amount) !== null;
      const values = { keyId: ref.keyId, accountId: ref.accountId, taskId, amount, now: ref.now };
      return (await PG_HOLD_WITH_ENTRY(ledger.db, { ...values, ...periodStarts(ref.now) })).rows.length === 1;
    });
  }

  /**
   * `hold`, on SQLite inside the caller's transaction, synchronously: its statements run straight on
   * the connection the transaction holds, with no promise between them (chat billing runs many).
   */
  holdInSqliteTransaction(ref: KeyRef, taskId: string, amount: number): boolean {
    return this.holdReportingInSqliteTransaction(ref, taskId, amount) !== null;
  }

  /** holdInSqliteTransaction that returns the key's available balance after the hold, or null when refused. */
  holdReportingInSqliteTransaction(ref: KeyRef, taskId: string, amount: number): number | null {
    checkHoldAmount(amount);
    return this.holdOnSqlite(ref, taskId, amount);
  }

  private holdOnSqlite(ref: KeyRef, taskId: string, amount: number): number | null {
    const values = { keyId: ref.keyId, amount, now: ref.now, ...periodStarts(ref.now) };
    const after = HOLD.direct(this.db, values).rows[0];
    if (!after) return null;
    APPEND.direct(this.db, entry(ref, 'hold', amount, after, taskId));
    return Number(after.balance);
  }

  /**
   * Resolves a hold: captures `cost` (never above the hold) and releases the rest, both entries always
   * written (a zero amount included). A task settles once: the balance update is guarded by "the
   * hold exists and nothing settled it yet", so a second settlement throws TaskAlreadySettledError
   * having changed nothing (one racing on PostgreSQL first waits for the key row's lock, then sees
   * the first one's entries). UNIQUE(task_id, kind) backs this up for any other writer.
   */
  async settle(
    ref: KeyRef,
    taskId: string,
    holdAmount: number,
    cost: number,
  ): Promise<{ captured: number; released: number }> {
    const movement = movementOf(ref, taskId, holdAmount, cost);
    return this.atomically(async (ledger) => {
      if (ledger.engine === 'sqlite') return ledger.settleMovementOnSqlite(movement);
      try {
        await ledger.settlePostgres(movement);
      } catch (error) {
        throw alreadySettledOnConflict(error, taskId);
      }
      return { captured: movement.captured, released: movement.released };
    });
  }

  /** `settle`, on SQLite inside the caller's transaction, synchronously (as holdInSqliteTransaction). */
  settleInSqliteTransaction(
    ref: KeyRef,
    taskId: string,
    holdAmount: number,
    cost: number,
  ): { captured: number; released: number } {
    return this.settleMovementOnSqlite(movementOf(ref, taskId, holdAmount, cost));
  }

  private async settlePostgres({ ref, taskId, holdAmount, captured, released }: Movement): Promise<void> {
    const { keyId, accountId, now } = ref;
    // Waiting for the key row's lock in a statement of its own: the settlement statement then
    // starts after a racing settlement committed, and sees its entries.
    await LOCK_KEY(this.db, { keyId });
    const values = { keyId, accountId, taskId, holdAmount, captured, released, now };
    const { rows } = await PG_SETTLE_WITH_ENTRIES(this.db, values);
    if (rows.length === 0) {
      const { rows: entries } = await TASK_ENTRIES(this.db, { taskId });
      refuseSettlement(entries, ref, taskId, holdAmount);
    }
  }

  private settleMovementOnSqlite(movement: Movement): { captured: number; released: number } {
    const { ref, taskId, holdAmount, captured, released } = movement;
    try {
      // One UPDATE … RETURNING, made only while the hold is open, gives the balances after the
      // settlement; the capture entry's balances (between the two movements) follow from them.
      const values = { keyId: ref.keyId, holdAmount, released, now: ref.now, taskId };
      const after = SETTLE_BALANCES_IF_HELD.direct(this.db, values).rows[0];
      if (!after) refuseSettlement(TASK_ENTRIES.direct(this.db, { taskId }).rows, ref, taskId, holdAmount);
      APPEND_SETTLEMENT.direct(this.db, {
        capture: entry(
          ref,
          'capture',
          captured,
          { balance: after.balance - released, held: after.held + released },
          taskId,
        ),
        release: entry(ref, 'release', released, after, taskId),
      });
      new BalanceNoticesRepository(this.db).recordIfCrossedInSqliteTransaction({
        id: noticeIdOf(taskId),
        accountId: ref.accountId,
        keyId: ref.keyId,
        after,
        lowered: captured,
        now: ref.now,
      });
    } catch (error) {
      throw alreadySettledOnConflict(error, taskId);
    }
    return { captured, released };
  }

  /** The full refund of a failed task. */
  async release(ref: KeyRef, taskId: string, holdAmount: number): Promise<void> {
    await this.settle(ref, taskId, holdAmount, 0);
  }

  async entriesForTask(taskId: string): Promise<LedgerEntryRow[]> {
    return this.db
      .selectFrom('ledger_entries')
      .selectAll()
      .where('task_id', '=', taskId)
      .orderBy('id')
      .execute();
  }

  async entriesForKey(keyId: number, limit = 1000): Promise<LedgerEntryRow[]> {
    return this.db
      .selectFrom('ledger_entries')
      .selectAll()
      .where('key_id', '=', keyId)
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  async countForKey(keyId: number): Promise<number> {
    const row = await this.db
      .selectFrom('ledger_entries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('key_id', '=', keyId)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }
}
