// Money movements. Each method must run inside the caller's transaction, together with the row that
// caused the movement (a task, a chat request, a top-up). Balances change only through guarded
// UPDATEs, and every change appends one ledger entry carrying the balance after it.
import { type Kysely, type Selectable, sql } from 'kysely';
import type { Database, LedgerEntriesTable, LedgerKind } from '../schema.js';

export type LedgerEntryRow = Selectable<LedgerEntriesTable>;

interface KeyRef {
  keyId: number;
  accountId: number;
  now: number;
}

export class LedgerRepository {
  constructor(private readonly db: Kysely<Database>) {}

  private async append(
    ref: KeyRef,
    kind: LedgerKind,
    amount: number,
    after: { balance: number; held: number },
    taskId: string | null,
    note: string | null = null,
  ) {
    await this.db
      .insertInto('ledger_entries')
      .values({
        key_id: ref.keyId,
        account_id: ref.accountId,
        task_id: taskId,
        kind,
        amount,
        balance_after: after.balance,
        held_after: after.held,
        note,
        created_at: ref.now,
      })
      .execute();
  }

  /** Credits a key. Returns the new balance, or undefined when the key does not exist. */
  async topup(ref: KeyRef, amount: number, note: string | null): Promise<number | undefined> {
    const after = await this.db
      .updateTable('api_keys')
      .set({ balance: sql`balance + ${amount}`, updated_at: ref.now })
      .where('id', '=', ref.keyId)
      .where('deleted_at', 'is', null)
      .returning(['balance', 'held'])
      .executeTakeFirst();
    if (!after) return undefined;
    await this.append(ref, 'topup', amount, after, null, note);
    return after.balance;
  }

  /**
   * Reserves `amount` for a task. The guarded write makes a concurrent overdraw impossible: the
   * UPDATE matches no row when the balance does not cover the amount. Returns false in that case.
   */
  async hold(ref: KeyRef, taskId: string, amount: number): Promise<boolean> {
    const after = await this.db
      .updateTable('api_keys')
      .set({ balance: sql`balance - ${amount}`, held: sql`held + ${amount}`, updated_at: ref.now })
      .where('id', '=', ref.keyId)
      .where('deleted_at', 'is', null)
      .where('balance', '>=', amount)
      .returning(['balance', 'held'])
      .executeTakeFirst();
    if (!after) return false;
    await this.append(ref, 'hold', amount, after, taskId);
    return true;
  }

  /**
   * Resolves a hold: captures `cost` (never above the hold) and releases the rest. Both entries are
   * always written, a zero amount included, so that UNIQUE(task_id, kind) turns any second
   * settlement of the same task, of either kind, into a constraint violation.
   */
  async settle(ref: KeyRef, taskId: string, holdAmount: number, cost: number): Promise<{ captured: number; released: number }> {
    const captured = Math.max(0, Math.min(cost, holdAmount));
    const released = holdAmount - captured;
    const after = await this.db
      .updateTable('api_keys')
      .set({ held: sql`held - ${holdAmount}`, balance: sql`balance + ${released}`, updated_at: ref.now })
      .where('id', '=', ref.keyId)
      .returning(['balance', 'held'])
      .executeTakeFirstOrThrow();
    await this.append(ref, 'capture', captured, after, taskId);
    await this.append(ref, 'release', released, after, taskId);
    return { captured, released };
  }

  /** The full refund of a failed task. */
  async release(ref: KeyRef, taskId: string, holdAmount: number): Promise<void> {
    await this.settle(ref, taskId, holdAmount, 0);
  }

  async entriesForTask(taskId: string): Promise<LedgerEntryRow[]> {
    return this.db.selectFrom('ledger_entries').selectAll().where('task_id', '=', taskId).orderBy('id').execute();
  }

  async entriesForKey(keyId: number, limit = 1000): Promise<LedgerEntryRow[]> {
    return this.db.selectFrom('ledger_entries').selectAll().where('key_id', '=', keyId).orderBy('id').limit(limit).execute();
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
