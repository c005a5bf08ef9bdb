// One row per chat request (key, model, tokens, cost, status, latency), written with the request's
// hold and completed with its settlement, in the same transactions as the ledger entries. The
// panel's analytics read it. Owner-scoped reads take the account id.
import type { Kysely, Selectable } from 'kysely';
import type { Engine } from '../db.js';
import type { Database, UsageRecordsTable } from '../schema.js';

export type UsageRow = Selectable<UsageRecordsTable>;
export type UsageStatus = 'pending' | 'completed' | 'failed' | 'cancelled';

export interface UsageOutcome {
  status: Exclude<UsageStatus, 'pending'>;
  inputTokens: number;
  outputTokens: number;
  /** Micro-rubles actually captured. */
  cost: number;
  latencyMs: number;
}

export class UsageRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: Engine,
  ) {}

  /**
   * The key's available balance, locked until the transaction ends (PostgreSQL: FOR UPDATE; SQLite
   * transactions already hold the write lock from BEGIN IMMEDIATE), so a hold sized from it cannot
   * race a concurrent spend. Undefined for a deleted key or another account's key.
   */
  async lockBalance(accountId: number, keyId: number): Promise<number | undefined> {
    let query = this.db
      .selectFrom('api_keys')
      .select('balance')
      .where('id', '=', keyId)
      .where('account_id', '=', accountId)
      .where('deleted_at', 'is', null);
    if (this.engine === 'postgres') query = query.forUpdate();
    return (await query.executeTakeFirst())?.balance;
  }

  async createPending(row: {
    id: string;
    accountId: number;
    keyId: number;
    modelId: string;
    now: number;
  }): Promise<void> {
    await this.db
      .insertInto('usage_records')
      .values({
        id: row.id,
        account_id: row.accountId,
        key_id: row.keyId,
        model_id: row.modelId,
        input_tokens: 0,
        output_tokens: 0,
        cost: 0,
        status: 'pending',
        latency_ms: 0,
        created_at: row.now,
      })
      .execute();
  }

  /** Completes a pending row. False when it was already completed (a settlement happens once). */
  async finish(id: string, outcome: UsageOutcome): Promise<boolean> {
    const result = await this.db
      .updateTable('usage_records')
      .set({
        status: outcome.status,
        input_tokens: outcome.inputTokens,
        output_tokens: outcome.outputTokens,
        cost: outcome.cost,
        latency_ms: outcome.latencyMs,
      })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async byId(accountId: number, id: string): Promise<UsageRow | undefined> {
    return this.db
      .selectFrom('usage_records')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** The account's requests, newest first; optionally one key's only. */
  async listForAccount(
    accountId: number,
    options: { keyId?: number; limit?: number } = {},
  ): Promise<UsageRow[]> {
    let query = this.db.selectFrom('usage_records').selectAll().where('account_id', '=', accountId);
    if (options.keyId !== undefined) query = query.where('key_id', '=', options.keyId);
    return query
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(options.limit ?? 100)
      .execute();
  }

  /** Operator access (the janitor): rows still pending since before `createdBefore`, oldest first. */
  async stalePending(createdBefore: number, limit: number): Promise<UsageRow[]> {
    return this.db
      .selectFrom('usage_records')
      .selectAll()
      .where('status', '=', 'pending')
      .where('created_at', '<', createdBefore)
      .orderBy('created_at')
      .limit(limit)
      .execute();
  }
}
