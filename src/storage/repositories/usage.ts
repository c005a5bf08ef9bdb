// One row per chat request (key, model, tokens, cost, status, latency), written with the request's
// hold and completed with its settlement, in the same transactions as the ledger entries. The
// panel's analytics read it. Owner-scoped reads take the account id.
import type { Kysely, Selectable } from 'kysely';
import { prepared } from '../prepared.js';
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

export interface PendingUsage {
  id: string;
  accountId: number;
  keyId: number;
  modelId: string;
  now: number;
  /** The process serving the request (its lease keeps the hold open), or null for none. */
  processId?: string | null;
}

// The statements of every chat request, compiled once.
const BALANCE = prepared((db, p: { keyId: number; accountId: number }) =>
  db
    .selectFrom('api_keys')
    .select('balance')
    .where('id', '=', p.keyId)
    .where('account_id', '=', p.accountId)
    .where('deleted_at', 'is', null),
);

const CREATE_PENDING = prepared((db, p: PendingUsage) =>
  db.insertInto('usage_records').values({
    id: p.id,
    account_id: p.accountId,
    key_id: p.keyId,
    model_id: p.modelId,
    input_tokens: 0,
    output_tokens: 0,
    cost: 0,
    status: 'pending',
    latency_ms: 0,
    created_at: p.now,
    process_id: p.processId,
  }),
);

const FINISH = prepared((db, p: UsageOutcome & { id: string }) =>
  db
    .updateTable('usage_records')
    .set({
      status: p.status,
      input_tokens: p.inputTokens,
      output_tokens: p.outputTokens,
      cost: p.cost,
      latency_ms: p.latencyMs,
    })
    .where('id', '=', p.id)
    .where('status', '=', 'pending'),
);

export class UsageRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * The key's available balance, to size a hold that the full amount did not fit. Not locked: the
   * hold itself is guarded (it matches no row when the balance no longer covers it). Undefined for
   * a deleted key or another account's key.
   */
  async availableBalance(accountId: number, keyId: number): Promise<number | undefined> {
    const { rows } = await BALANCE(this.db, { keyId, accountId });
    return rows[0]?.balance;
  }

  async createPending(row: PendingUsage): Promise<void> {
    await CREATE_PENDING(this.db, { ...row, processId: row.processId ?? null });
  }

  /** `createPending` on SQLite inside the caller's transaction, synchronously (see prepared.ts). */
  createPendingInSqliteTransaction(row: PendingUsage): void {
    CREATE_PENDING.direct(this.db, { ...row, processId: row.processId ?? null });
  }

  /** Completes a pending row. False when it was already completed (a settlement happens once). */
  async finish(id: string, outcome: UsageOutcome): Promise<boolean> {
    return Number((await FINISH(this.db, { id, ...outcome })).numAffectedRows) === 1;
  }

  /** `finish` on SQLite inside the caller's transaction, synchronously. */
  finishInSqliteTransaction(id: string, outcome: UsageOutcome): boolean {
    return Number(FINISH.direct(this.db, { id, ...outcome }).numAffectedRows) === 1;
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

  /**
   * Operator access (the lease sweep): rows still pending whose process holds no lease alive at
   * `now` (it died, or stalled past its lease), oldest first. Rows without a process are the 6-hour
   * sweep's (stalePending).
   */
  async pendingOfDeadProcesses(now: number, limit: number): Promise<UsageRow[]> {
    return this.db
      .selectFrom('usage_records as u')
      .selectAll('u')
      .where('u.status', '=', 'pending')
      .where('u.process_id', 'is not', null)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('process_leases as l')
              .select('l.process_id')
              .whereRef('l.process_id', '=', 'u.process_id')
              .where('l.expires_at', '>=', now),
          ),
        ),
      )
      .orderBy('u.created_at')
      .limit(limit)
      .execute();
  }
}
