// Per-key analytics for the owner's panel: spend and request counts from the ledger, by model from
// tasks and chat usage. Every query is scoped by the owner account.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema.js';

export interface KeySpend {
  key_id: number;
  spent: number;
  requests: number;
}

export interface ModelSpend {
  key_id: number;
  model_id: string;
  requests: number;
}

export class AnalyticsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async spendByKey(accountId: number, since: number): Promise<KeySpend[]> {
    const rows = await this.db
      .selectFrom('ledger_entries')
      .select([
        'key_id',
        sql<number>`coalesce(sum(case when kind = 'capture' then amount else 0 end), 0)`.as('spent'),
        sql<number>`sum(case when kind = 'hold' then 1 else 0 end)`.as('requests'),
      ])
      .where('account_id', '=', accountId)
      .where('created_at', '>=', since)
      .groupBy('key_id')
      .execute();
    return rows.map((r) => ({
      key_id: Number(r.key_id),
      spent: Number(r.spent),
      requests: Number(r.requests),
    }));
  }

  async requestsByModel(accountId: number, since: number): Promise<ModelSpend[]> {
    const tasks = await this.db
      .selectFrom('tasks')
      .select(['key_id', 'model_id', sql<number>`count(*)`.as('requests')])
      .where('account_id', '=', accountId)
      .where('created_at', '>=', since)
      .groupBy(['key_id', 'model_id'])
      .execute();
    const chats = await this.db
      .selectFrom('usage_records')
      .select(['key_id', 'model_id', sql<number>`count(*)`.as('requests')])
      .where('account_id', '=', accountId)
      .where('created_at', '>=', since)
      .groupBy(['key_id', 'model_id'])
      .execute();
    return [...tasks, ...chats].map((r) => ({
      key_id: Number(r.key_id),
      model_id: r.model_id,
      requests: Number(r.requests),
    }));
  }
}
