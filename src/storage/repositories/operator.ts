// The operator's own storage: console sign-in links and sessions (hashed), the operator audit log,
// and the few reads across accounts that only the operator may make (a task by id whoever owns it,
// accounts by a key's prefix). Owner-facing code never uses this repository.
import type { Kysely, Selectable } from 'kysely';
import { sql } from 'kysely';
import type { Database, OperatorAuditTable } from '../schema.js';
import type { AccountRow } from './accounts.js';
import type { TaskRow } from './tasks.js';
import type { WebhookDeliveryRow } from './webhooks.js';

export type OperatorAuditRow = Selectable<OperatorAuditTable>;

export interface OperatorAuditEntry {
  actor: string;
  action: string;
  target?: string | null;
  before?: unknown;
  after?: unknown;
  ip?: string | null;
  now: number;
}

const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));

export class OperatorRepository {
  constructor(private readonly db: Kysely<Database>) {}

  // ---- console tokens -------------------------------------------------------------------------

  async issueToken(hash: string, kind: 'link' | 'session', now: number, expiresAt: number): Promise<void> {
    await this.db
      .insertInto('console_tokens')
      .values({ token_hash: hash, kind, expires_at: expiresAt, used_at: null, created_at: now })
      .execute();
  }

  /** A live (unused, unexpired) token of that kind. */
  async liveToken(hash: string, kind: 'link' | 'session', now: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('console_tokens')
      .select('token_hash')
      .where('token_hash', '=', hash)
      .where('kind', '=', kind)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Marks a live token used, once even under concurrent requests: true for the one that did. */
  async spendToken(hash: string, kind: 'link' | 'session', now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('console_tokens')
      .set({ used_at: now })
      .where('token_hash', '=', hash)
      .where('kind', '=', kind)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Ends a session and drops expired tokens (they open nothing; no need to keep them). */
  async endSession(hash: string, now: number): Promise<void> {
    await this.db.deleteFrom('console_tokens').where('token_hash', '=', hash).execute();
    await this.db.deleteFrom('console_tokens').where('expires_at', '<=', now).execute();
  }

  // ---- the operator audit log -----------------------------------------------------------------

  async appendAudit(entry: OperatorAuditEntry): Promise<void> {
    await this.db
      .insertInto('operator_audit')
      .values({
        actor: entry.actor,
        action: entry.action,
        target: entry.target ?? null,
        before: json(entry.before),
        after: json(entry.after),
        ip: entry.ip ?? null,
        created_at: entry.now,
      })
      .execute();
  }

  /** Newest first; `beforeId` pages back. */
  async audit(limit: number, beforeId?: number): Promise<OperatorAuditRow[]> {
    let query = this.db.selectFrom('operator_audit').selectAll();
    if (beforeId !== undefined) query = query.where('id', '<', beforeId);
    return query.orderBy('id', 'desc').limit(limit).execute();
  }

  // ---- reads across accounts ------------------------------------------------------------------

  /** Accounts owning a live key whose shown prefix starts with `prefix` (and, given, ends with last4). */
  async accountsByKeyPrefix(prefix: string, last4?: string, limit = 20): Promise<AccountRow[]> {
    let keys = this.db
      .selectFrom('api_keys')
      .select('account_id')
      .where('deleted_at', 'is', null)
      .where(sql<boolean>`substr(key_prefix, 1, ${prefix.length}) = ${prefix}`);
    if (last4) keys = keys.where('key_last4', '=', last4);
    return this.db
      .selectFrom('accounts')
      .selectAll()
      .where('id', 'in', keys)
      .orderBy('messaging_id')
      .limit(limit)
      .execute();
  }

  /** The newest accounts, for the accounts page without a search. */
  async recentAccounts(limit: number): Promise<AccountRow[]> {
    return this.db.selectFrom('accounts').selectAll().orderBy('id', 'desc').limit(limit).execute();
  }

  /** A task by id, whoever owns it. */
  async task(taskId: string): Promise<(TaskRow & { provider_cost: number | null }) | undefined> {
    const row = await this.db.selectFrom('tasks').selectAll().where('id', '=', taskId).executeTakeFirst();
    return row as (TaskRow & { provider_cost: number | null }) | undefined;
  }

  async deliveriesOfTask(taskId: string): Promise<WebhookDeliveryRow[]> {
    return this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('task_id', '=', taskId)
      .orderBy('created_at')
      .execute();
  }
}
