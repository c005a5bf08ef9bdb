// The low-balance notices' outbox as a queue, like the webhook outbox (webhooks.ts): a notice is
// written in the transaction or statement of the movement that crossed the threshold; a sender
// claims due notices with a lease, and a notice whose lease expired (its sender died) is claimable
// again. The lease's expiry doubles as the claim token: a result is recorded only while it matches.
import { type Kysely, PostgresAdapter, type Selectable } from 'kysely';
import { crossedBelow } from '../../domain/billing/low-balance.js';
import { placeholderRow, prepared } from '../prepared.js';
import type { BalanceNoticeStatus, BalanceNoticesTable, Database } from '../schema.js';

export type BalanceNoticeRow = Selectable<BalanceNoticesTable>;
/** A leased notice with the chat it goes to (the owner's messaging id) and what names its key. */
export type LeasedNotice = BalanceNoticeRow & {
  messaging_id: number;
  lease_expires_at: number;
  key_name: string | null;
  key_prefix: string;
  key_last4: string;
};

interface NewNotice {
  id: string;
  account_id: number;
  key_id: number;
  funds: number;
  threshold: number;
  next_attempt_at: number;
  created_at: number;
}

const NEW_NOTICE_COLUMNS = [
  'id',
  'account_id',
  'key_id',
  'funds',
  'threshold',
  'next_attempt_at',
  'created_at',
] as const satisfies readonly (keyof NewNotice)[];

const INSERT = prepared((db, _row: NewNotice) =>
  db.insertInto('balance_notices').values(placeholderRow<NewNotice>(NEW_NOTICE_COLUMNS)),
);

/** What a movement that lowered a key's funds left, for the crossing check. */
export interface LoweredFunds {
  /** The notice id: derived from the task or request that moved the money, or fresh. */
  id: string;
  accountId: number;
  keyId: number;
  after: { balance: number; held: number; low_balance: number | null };
  lowered: number;
  now: number;
}

function noticeIfCrossed(m: LoweredFunds): NewNotice | undefined {
  const funds = Number(m.after.balance) + Number(m.after.held);
  const threshold = m.after.low_balance === null ? null : Number(m.after.low_balance);
  if (!crossedBelow(funds, m.lowered, threshold)) return undefined;
  return {
    id: m.id,
    account_id: m.accountId,
    key_id: m.keyId,
    funds,
    threshold: threshold!,
    next_attempt_at: m.now,
    created_at: m.now,
  };
}

export class BalanceNoticesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Writes the notice when the movement crossed the threshold; call in the movement's transaction. */
  async recordIfCrossed(movement: LoweredFunds): Promise<boolean> {
    const notice = noticeIfCrossed(movement);
    if (notice) await INSERT(this.db, notice);
    return notice !== undefined;
  }

  /** `recordIfCrossed` on SQLite inside the caller's transaction, synchronously. */
  recordIfCrossedInSqliteTransaction(movement: LoweredFunds): void {
    const notice = noticeIfCrossed(movement);
    if (notice) INSERT.direct(this.db, notice);
  }

  /**
   * Leases up to `limit` pending notices that are due and not leased by a live sender, oldest due
   * first, each with its owner's messaging id. SKIP LOCKED on PostgreSQL; SQLite serializes writers.
   */
  async claimDue(now: number, leaseMs: number, limit: number): Promise<LeasedNotice[]> {
    const leaseUntil = now + leaseMs;
    const postgres = this.db.getExecutor().adapter instanceof PostgresAdapter;
    const rows = await this.db
      .with(
        (cte) => cte('due').materialized(),
        (db) =>
          db
            .selectFrom('balance_notices')
            .select('id')
            .where('status', '=', 'pending')
            .where('next_attempt_at', '<=', now)
            .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', now)]))
            .orderBy('next_attempt_at')
            .limit(limit)
            .$if(postgres, (qb) => qb.forUpdate().skipLocked()),
      )
      .updateTable('balance_notices')
      .set({ lease_expires_at: leaseUntil })
      .where('id', 'in', (eb) => eb.selectFrom('due').select('due.id'))
      .returningAll()
      .execute();
    if (rows.length === 0) return [];
    const keys = await this.db
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      .select([
        'api_keys.id',
        'api_keys.name',
        'api_keys.key_prefix',
        'api_keys.key_last4',
        'accounts.messaging_id',
      ])
      .where(
        'api_keys.id',
        'in',
        rows.map((row) => row.key_id),
      )
      .execute();
    const keyOf = new Map(keys.map((key) => [Number(key.id), key]));
    return rows
      .filter((row) => keyOf.has(Number(row.key_id)))
      .map((row) => {
        const key = keyOf.get(Number(row.key_id))!;
        return {
          ...row,
          messaging_id: Number(key.messaging_id),
          key_name: key.name,
          key_prefix: key.key_prefix,
          key_last4: key.key_last4,
          lease_expires_at: leaseUntil,
        };
      })
      .sort((a, b) => a.next_attempt_at - b.next_attempt_at);
  }

  /** Records an attempt's result, only while the sender still holds the lease it claimed with. */
  async recordAttempt(
    notice: { id: string; lease_expires_at: number },
    result: {
      status: BalanceNoticeStatus;
      attempts: number;
      nextAttemptAt: number;
      error: string | null;
      sentAt: number | null;
    },
  ): Promise<boolean> {
    const updated = await this.db
      .updateTable('balance_notices')
      .set({
        status: result.status,
        attempts: result.attempts,
        next_attempt_at: result.nextAttemptAt,
        last_error: result.error,
        sent_at: result.sentAt,
        lease_expires_at: null,
      })
      .where('id', '=', notice.id)
      .where('status', '=', 'pending')
      .where('lease_expires_at', '=', notice.lease_expires_at)
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) === 1;
  }

  async forKey(keyId: number): Promise<BalanceNoticeRow[]> {
    return this.db
      .selectFrom('balance_notices')
      .selectAll()
      .where('key_id', '=', keyId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }
}
