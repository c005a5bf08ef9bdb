import type { Kysely, Selectable } from 'kysely';
import type { AuditLogTable, Database } from '../schema.js';

export type AuditRow = Selectable<AuditLogTable>;

export class AuditRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async append(entry: {
    accountId: number | null;
    actor: string;
    action: string;
    details?: unknown;
    ip?: string | null;
    now: number;
  }): Promise<void> {
    await this.db
      .insertInto('audit_log')
      .values({
        account_id: entry.accountId,
        actor: entry.actor,
        action: entry.action,
        details: entry.details === undefined ? null : JSON.stringify(entry.details),
        ip: entry.ip ?? null,
        created_at: entry.now,
      })
      .execute();
  }

  async listForAccount(accountId: number, limit = 100): Promise<AuditRow[]> {
    return this.db
      .selectFrom('audit_log')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /** Retention: the spec keeps 90 days of audit history. */
  async purgeOlderThan(cutoff: number): Promise<number> {
    const result = await this.db.deleteFrom('audit_log').where('created_at', '<', cutoff).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
