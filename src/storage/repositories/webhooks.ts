// The webhook outbox as a queue. A sender claims due deliveries with a lease; a delivery whose lease
// expired (its sender died) is claimable again. The lease's expiry doubles as the claim token: a new
// claim happens only after the old lease ended, so its expiry is strictly later, and an attempt result
// is recorded only while the token still matches (a sender that lost its lease cannot overwrite).
import { type Kysely, PostgresAdapter, type Selectable, sql } from 'kysely';
import type { DeliveryUpdate } from '../../domain/webhooks/schedule.js';
import type { AccountSecrets } from '../../domain/webhooks/signing.js';
import type { Engine } from '../db.js';
import { placeholderRow, prepared } from '../prepared.js';
import type { Database, WebhookDeliveriesTable } from '../schema.js';

export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type WebhookDeliveryStatus = WebhookDeliveriesTable['status'];

export interface LeasedDelivery extends WebhookDeliveryRow {
  lease_expires_at: number;
}

/** A leased delivery and what signs it. */
export interface LeasedWithSecrets {
  delivery: LeasedDelivery;
  secrets: AccountSecrets;
}

// The statements of every delivery (enqueue, claim, record), compiled once.
export type NewWebhookDelivery = Omit<
  WebhookDeliveryRow,
  'lease_expires_at' | 'last_status_code' | 'last_error' | 'delivered_at'
>;
const NEW_DELIVERY_COLUMNS = [
  'id',
  'task_id',
  'account_id',
  'url',
  'payload',
  'status',
  'attempts',
  'next_attempt_at',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof NewWebhookDelivery)[];

const INSERT = prepared((db, _row: NewWebhookDelivery) =>
  db.insertInto('webhook_deliveries').values(placeholderRow<NewWebhookDelivery>(NEW_DELIVERY_COLUMNS)),
);

interface ClaimValues {
  now: number;
  leaseUntil: number;
  limit: number;
}

/** Leases up to `limit` due deliveries not leased by a live sender, oldest due first; returns them. */
function leaseDue(root: Kysely<Database>, p: ClaimValues) {
  return (
    root
      // MATERIALIZED: as a plain `IN (subquery)`, PostgreSQL may evaluate the LIMIT … SKIP LOCKED
      // selection more than once per statement and lease more than `limit` rows (seen in the tests).
      .with(
        (cte) => cte('due').materialized(),
        (db) =>
          db
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('status', '=', 'pending')
            .where('next_attempt_at', '<=', p.now)
            .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', p.now)]))
            .orderBy('next_attempt_at')
            .limit(p.limit)
            .$if(root.getExecutor().adapter instanceof PostgresAdapter, (qb) => qb.forUpdate().skipLocked()),
      )
      .updateTable('webhook_deliveries')
      .set({ lease_expires_at: p.leaseUntil, updated_at: p.now })
      .where('id', 'in', (eb) => eb.selectFrom('due').select('due.id'))
      .returningAll()
  );
}

const CLAIM = prepared(leaseDue);

/** Claims oldest due first: RETURNING keeps no order on PostgreSQL. */
const byDueTime = (a: { next_attempt_at: number }, b: { next_attempt_at: number }) =>
  a.next_attempt_at - b.next_attempt_at;

/**
 * PostgreSQL: CLAIM and the signing secrets of the leased deliveries' accounts in one statement (CLAIM
 * as a data-modifying CTE), one round trip per claim instead of two.
 */
const PG_CLAIM_WITH_SECRETS = prepared((root, p: ClaimValues) =>
  root
    .with('leased', () => leaseDue(root, p))
    .selectFrom('leased')
    .innerJoin('accounts', 'accounts.id', 'leased.account_id')
    .selectAll('leased')
    .select([
      'accounts.webhook_secret',
      'accounts.webhook_secret_previous',
      'accounts.webhook_secret_previous_until',
    ]),
);

const RECORD_ATTEMPT = prepared(
  (
    db,
    p: {
      id: string;
      leaseExpiresAt: number;
      status: WebhookDeliveryStatus;
      attempts: number;
      nextAttemptAt: number;
      deliveredAt: number | null;
      statusCode: number | null;
      error: string | null;
      now: number;
    },
  ) =>
    db
      .updateTable('webhook_deliveries')
      .set({
        status: p.status,
        attempts: p.attempts,
        next_attempt_at: p.nextAttemptAt,
        delivered_at: p.deliveredAt,
        lease_expires_at: null,
        last_status_code: p.statusCode,
        last_error: p.error,
        updated_at: p.now,
      })
      .where('id', '=', p.id)
      .where('status', '=', 'pending')
      .where('lease_expires_at', '=', p.leaseExpiresAt),
);

export class WebhooksRepository {
  /** The prepared queries pick their SQL by the connection's dialect; `engine` picks recordAttempts'. */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: Engine,
  ) {}

  /**
   * Leases up to `limit` pending deliveries that are due and not leased by a live sender, oldest due
   * first, in one statement. PostgreSQL locks the chosen rows and skips rows another claimer holds
   * (FOR UPDATE SKIP LOCKED), re-checking each row's latest version; SQLite runs the statement under
   * its database write lock. Either way two claimers never lease the same delivery.
   */
  async claimDue(now: number, leaseMs: number, limit: number): Promise<LeasedDelivery[]> {
    if (limit <= 0) return [];
    const { rows } = await CLAIM(this.db, { now, leaseUntil: now + leaseMs, limit });
    return (rows as LeasedDelivery[]).sort(byDueTime);
  }

  /**
   * `claimDue`, each delivery with its account's signing secrets: one statement on PostgreSQL, the
   * claim and then the secrets on SQLite. A delivery whose account is gone is leased but left out.
   */
  async claimDueWithSecrets(now: number, leaseMs: number, limit: number): Promise<LeasedWithSecrets[]> {
    if (limit <= 0) return [];
    if (this.engine === 'postgres') {
      const { rows } = await PG_CLAIM_WITH_SECRETS(this.db, { now, leaseUntil: now + leaseMs, limit });
      return rows
        .sort(byDueTime)
        .map(({ webhook_secret, webhook_secret_previous, webhook_secret_previous_until, ...delivery }) => ({
          delivery: delivery as LeasedDelivery,
          secrets: { webhook_secret, webhook_secret_previous, webhook_secret_previous_until },
        }));
    }
    const deliveries = await this.claimDue(now, leaseMs, limit);
    const secrets = await this.signingSecrets([...new Set(deliveries.map((d) => d.account_id))]);
    return deliveries.flatMap((delivery) => {
      const account = secrets.get(delivery.account_id);
      return account ? [{ delivery, secrets: account }] : [];
    });
  }

  /** The signing secrets of the given accounts, in one query. */
  async signingSecrets(accountIds: number[]): Promise<Map<number, AccountSecrets>> {
    if (accountIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('accounts')
      .select(['id', 'webhook_secret', 'webhook_secret_previous', 'webhook_secret_previous_until'])
      .where('id', 'in', accountIds)
      .execute();
    return new Map(rows.map(({ id, ...secrets }) => [id, secrets]));
  }

  /** Records one attempt and releases the lease. False when the lease was lost meanwhile. */
  async recordAttempt(
    delivery: LeasedDelivery,
    update: DeliveryUpdate,
    last: { statusCode: number | null; error: string | null },
    now: number,
  ): Promise<boolean> {
    const result = await RECORD_ATTEMPT(this.db, {
      id: delivery.id,
      leaseExpiresAt: delivery.lease_expires_at,
      status: update.status,
      attempts: update.attempts,
      nextAttemptAt: update.status === 'pending' ? update.nextAttemptAt : delivery.next_attempt_at,
      deliveredAt: update.status === 'delivered' ? update.deliveredAt : null,
      statusCode: last.statusCode,
      error: last.error,
      now,
    });
    return Number(result.numAffectedRows) === 1;
  }

  /**
   * `recordAttempt` for many deliveries: for each, whether it was recorded. PostgreSQL writes them
   * all in one statement (one round trip instead of one per delivery); SQLite one by one, inside
   * the caller's transaction.
   */
  async recordAttempts(
    attempts: {
      delivery: LeasedDelivery;
      update: DeliveryUpdate;
      last: { statusCode: number | null; error: string | null };
      now: number;
    }[],
  ): Promise<boolean[]> {
    if (this.engine !== 'postgres' || attempts.length < 2) {
      const recorded: boolean[] = [];
      for (const a of attempts) recorded.push(await this.recordAttempt(a.delivery, a.update, a.last, a.now));
      return recorded;
    }
    const rows = attempts.map(({ delivery, update, last, now }) => ({
      id: delivery.id,
      lease: delivery.lease_expires_at,
      status: update.status,
      attempts: update.attempts,
      next: update.status === 'pending' ? update.nextAttemptAt : delivery.next_attempt_at,
      delivered: update.status === 'delivered' ? update.deliveredAt : null,
      code: last.statusCode,
      error: last.error,
      now,
    }));
    // The same compare-and-set as RECORD_ATTEMPT, row by row: pending, and the lease still ours.
    const { rows: recorded } = await sql<{ id: string }>`
      update webhook_deliveries d
      set status = i.status, attempts = i.attempts, next_attempt_at = i.next, delivered_at = i.delivered,
          lease_expires_at = null, last_status_code = i.code, last_error = i.error, updated_at = i.now
      from json_to_recordset(${JSON.stringify(rows)}::json) as i(
        id text, lease bigint, status text, attempts int, next bigint, delivered bigint, code int,
        error text, now bigint)
      where d.id = i.id and d.status = 'pending' and d.lease_expires_at = i.lease
      returning d.id`.execute(this.db);
    const ids = new Set(recorded.map((r) => r.id));
    return attempts.map((a) => ids.has(a.delivery.id));
  }

  /** Writes a new pending delivery (the outbox row of a final task). */
  async insert(row: NewWebhookDelivery): Promise<void> {
    await INSERT(this.db, row);
  }

  /** Operator read; pass `ownerAccountId` for an owner-scoped read (another account's delivery is not found). */
  async byId(id: string, ownerAccountId?: number): Promise<WebhookDeliveryRow | undefined> {
    return this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', id)
      .$if(ownerAccountId !== undefined, (qb) => qb.where('account_id', '=', ownerAccountId!))
      .executeTakeFirst();
  }

  async listByStatus(status: WebhookDeliveryStatus, limit: number): Promise<WebhookDeliveryRow[]> {
    return this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('status', '=', status)
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  /**
   * Manual redelivery: back to pending with fresh attempts, due now, keeping its id (the
   * webhook-id receivers deduplicate on). Clearing the lease also discards the result of an attempt
   * that may still be in flight.
   */
  async resetForRedelivery(
    id: string,
    now: number,
    ownerAccountId?: number,
  ): Promise<WebhookDeliveryRow | undefined> {
    return this.db
      .updateTable('webhook_deliveries')
      .set({
        status: 'pending',
        attempts: 0,
        next_attempt_at: now,
        lease_expires_at: null,
        last_status_code: null,
        last_error: null,
        delivered_at: null,
        updated_at: now,
      })
      .where('id', '=', id)
      .$if(ownerAccountId !== undefined, (qb) => qb.where('account_id', '=', ownerAccountId!))
      .returningAll()
      .executeTakeFirst();
  }
}
