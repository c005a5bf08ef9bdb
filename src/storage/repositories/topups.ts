// Top-ups, their refunds and codes. Every state change is a guarded UPDATE (the row must still be
// in the state the change starts from), so two processes racing on one top-up change it once:
// the second finds no row to update (PostgreSQL makes it wait for the first's commit, then
// re-checks the condition). Owner reads take the key and its account.
import type { Kysely, Selectable } from 'kysely';
import type { Database, TopupCodesTable, TopupRefundsTable, TopupsTable } from '../schema.js';

export type TopupRow = Selectable<TopupsTable>;
export type RefundRow = Selectable<TopupRefundsTable>;
export type CodeRow = Selectable<TopupCodesTable>;
export type AdminTopupRow = TopupRow & { messaging_id: number };

export interface TopupPage {
  limit: number;
  /** The id of the last top-up of the previous page: the next page starts after it. */
  after?: string;
}

export interface AdminTopupFilters extends TopupPage {
  status?: string;
  method?: string;
  messagingId?: number;
}

export class TopupsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: TopupRow): Promise<void> {
    await this.db.insertInto('topups').values(row).execute();
  }

  async byId(id: string): Promise<TopupRow | undefined> {
    return this.db.selectFrom('topups').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async byIdForKey(id: string, keyId: number, accountId: number): Promise<TopupRow | undefined> {
    return this.db
      .selectFrom('topups')
      .selectAll()
      .where('id', '=', id)
      .where('key_id', '=', keyId)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
  }

  /** One of the account's top-ups, whichever of its keys it credits (the owner panel). */
  async byIdForAccount(id: string, accountId: number): Promise<TopupRow | undefined> {
    return this.db
      .selectFrom('topups')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
  }

  async byProviderPaymentId(method: string, providerPaymentId: string): Promise<TopupRow | undefined> {
    return this.db
      .selectFrom('topups')
      .selectAll()
      .where('provider_payment_id', '=', providerPaymentId)
      .where('method', '=', method)
      .executeTakeFirst();
  }

  /** Newest first, `limit + 1` rows (the caller tells has_more from the extra one). */
  async listForKey(keyId: number, accountId: number, page: TopupPage): Promise<TopupRow[]> {
    let query = this.db
      .selectFrom('topups')
      .selectAll()
      .where('key_id', '=', keyId)
      .where('account_id', '=', accountId);
    if (page.after) {
      const cursor = await this.byIdForKey(page.after, keyId, accountId);
      if (!cursor) return [];
      query = query.where((eb) =>
        eb.or([
          eb('created_at', '<', cursor.created_at),
          eb.and([eb('created_at', '=', cursor.created_at), eb('id', '<', cursor.id)]),
        ]),
      );
    }
    return query
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit + 1)
      .execute();
  }

  async listForAdmin(f: AdminTopupFilters): Promise<AdminTopupRow[]> {
    let query = this.db
      .selectFrom('topups as t')
      .innerJoin('accounts as a', 'a.id', 't.account_id')
      .selectAll('t')
      .select('a.messaging_id');
    if (f.status) query = query.where('t.status', '=', f.status as TopupRow['status']);
    if (f.method) query = query.where('t.method', '=', f.method);
    if (f.messagingId !== undefined) query = query.where('a.messaging_id', '=', f.messagingId);
    if (f.after) {
      const cursor = await this.byId(f.after);
      if (!cursor) return [];
      query = query.where((eb) =>
        eb.or([
          eb('t.created_at', '<', cursor.created_at),
          eb.and([eb('t.created_at', '=', cursor.created_at), eb('t.id', '<', cursor.id)]),
        ]),
      );
    }
    return query
      .orderBy('t.created_at', 'desc')
      .orderBy('t.id', 'desc')
      .limit(f.limit + 1)
      .execute() as Promise<AdminTopupRow[]>;
  }

  /**
   * pending (or canceled here after 24 h unpaid, when the provider later shows it paid) → succeeded.
   * Returns the row when this call made the change.
   */
  async markSucceeded(id: string, now: number): Promise<TopupRow | undefined> {
    return this.db
      .updateTable('topups')
      .set({ status: 'succeeded', paid_at: now, updated_at: now, cancel_reason: null })
      .where('id', '=', id)
      .where('status', 'in', ['pending', 'canceled'])
      .returningAll()
      .executeTakeFirst();
  }

  async markCanceled(id: string, now: number, reason: string): Promise<boolean> {
    const result = await this.db
      .updateTable('topups')
      .set({ status: 'canceled', updated_at: now, cancel_reason: reason.slice(0, 200) })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Pending top-ups due for a re-read, oldest check first. */
  async duePending(now: number, limit: number): Promise<TopupRow[]> {
    return this.db
      .selectFrom('topups')
      .selectAll()
      .where('status', '=', 'pending')
      .where('check_at', '<=', now)
      .orderBy('check_at')
      .limit(limit)
      .execute();
  }

  /** Takes a due top-up for one re-read: false when another process took it first. */
  async claimCheck(id: string, seenCheckAt: number, nextCheckAt: number): Promise<boolean> {
    const result = await this.db
      .updateTable('topups')
      .set({ check_at: nextCheckAt })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where('check_at', '=', seenCheckAt)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** succeeded → refunded, the first step of a refund. */
  async markRefunded(id: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('topups')
      .set({ status: 'refunded', refunded_at: now, updated_at: now })
      .where('id', '=', id)
      .where('status', '=', 'succeeded')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** refunded → succeeded, when the provider refused the refund. */
  async unmarkRefunded(id: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('topups')
      .set({ status: 'succeeded', refunded_at: null, updated_at: now })
      .where('id', '=', id)
      .where('status', '=', 'refunded')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async insertRefund(row: RefundRow): Promise<void> {
    await this.db.insertInto('topup_refunds').values(row).execute();
  }

  async refundById(id: string): Promise<RefundRow | undefined> {
    return this.db.selectFrom('topup_refunds').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Refunds whose provider call has no known outcome yet, oldest first. */
  async pendingRefunds(before: number, limit: number): Promise<RefundRow[]> {
    return this.db
      .selectFrom('topup_refunds')
      .selectAll()
      .where('status', '=', 'pending')
      .where('provider_refund_id', 'is', null)
      .where('updated_at', '<=', before)
      .orderBy('updated_at')
      .limit(limit)
      .execute();
  }

  /** pending → succeeded or refused, once. */
  async settleRefund(
    id: string,
    now: number,
    outcome: { status: 'succeeded' | 'refused'; providerRefundId?: string; failure?: string },
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('topup_refunds')
      .set({
        status: outcome.status,
        provider_refund_id: outcome.providerRefundId ?? null,
        failure: outcome.failure?.slice(0, 500) ?? null,
        updated_at: now,
      })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async touchRefund(id: string, now: number): Promise<void> {
    await this.db.updateTable('topup_refunds').set({ updated_at: now }).where('id', '=', id).execute();
  }

  /** The refunds of these top-ups, newest first (the operator's list shows them on each row). */
  async refundsOfTopups(topupIds: string[]): Promise<RefundRow[]> {
    if (topupIds.length === 0) return [];
    return this.db
      .selectFrom('topup_refunds')
      .selectAll()
      .where('topup_id', 'in', topupIds)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  /** Codes newest first, `limit` of them (stored hashed: the id, never the code). */
  async listCodes(limit: number): Promise<CodeRow[]> {
    return this.db
      .selectFrom('topup_codes')
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  async insertCodes(rows: CodeRow[]): Promise<void> {
    if (rows.length > 0) await this.db.insertInto('topup_codes').values(rows).execute();
  }

  async codeByHash(hash: string): Promise<CodeRow | undefined> {
    return this.db.selectFrom('topup_codes').selectAll().where('code_hash', '=', hash).executeTakeFirst();
  }

  /** Marks a code redeemed by `keyId`, while it is unused and unexpired: true when this call did. */
  async redeemCode(id: string, keyId: number, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('topup_codes')
      .set({ redeemed_at: now, redeemed_key_id: keyId })
      .where('id', '=', id)
      .where('redeemed_at', 'is', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
