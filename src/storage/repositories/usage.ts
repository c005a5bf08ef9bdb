// One row per chat request (key, model, tokens, cost, status, latency), written once, complete,
// with the request's settlement and in the same transaction as its ledger entries; while the request
// is in flight, its open hold is a chat_holds row (chat-holds.ts). The panel's analytics read it.
// Owner-scoped reads take the account id.
import type { Kysely, Selectable } from 'kysely';
import { prepared } from '../prepared.js';
import type { Database, UsageRecordsTable } from '../schema.js';

export type UsageRow = Selectable<UsageRecordsTable>;
export type UsageStatus = 'completed' | 'failed' | 'cancelled';

export interface UsageOutcome {
  status: UsageStatus;
  inputTokens: number;
  outputTokens: number;
  /** Micro-rubles actually captured. */
  cost: number;
  latencyMs: number;
  /** The provider that served the request (PROVIDERS_FILE name, or simulator). */
  provider?: string | null;
  /** What the upstream cost the operator (micro-rubles); null when its route carries no cost. */
  providerCost?: number | null;
}

/** The outcome with its optional provider fields made explicit (the prepared statements bind them all). */
export function withProvider(
  outcome: UsageOutcome,
): UsageOutcome & { provider: string | null; providerCost: number | null } {
  return { ...outcome, provider: outcome.provider ?? null, providerCost: outcome.providerCost ?? null };
}

/** The request a usage row records: what its open hold carried. */
export interface UsageRequest {
  id: string;
  accountId: number;
  keyId: number;
  modelId: string;
  /** When the request was accepted (its hold opened). */
  createdAt: number;
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

const RECORD = prepared((db, p: UsageRequest & ReturnType<typeof withProvider>) =>
  db.insertInto('usage_records').values({
    id: p.id,
    account_id: p.accountId,
    key_id: p.keyId,
    model_id: p.modelId,
    input_tokens: p.inputTokens,
    output_tokens: p.outputTokens,
    cost: p.cost,
    status: p.status,
    latency_ms: p.latencyMs,
    created_at: p.createdAt,
    provider: p.provider,
    provider_cost: p.providerCost,
  }),
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

  /**
   * Writes the row of a settled request, for tests of what reads the rows: the settlement writes its
   * own in its transaction or statement (chat-billing.ts).
   */
  async record(request: UsageRequest, outcome: UsageOutcome): Promise<void> {
    await RECORD(this.db, { ...request, ...withProvider(outcome) });
  }

  /** `record`, on SQLite inside the caller's transaction, synchronously. */
  recordInSqliteTransaction(request: UsageRequest, outcome: UsageOutcome): void {
    RECORD.direct(this.db, { ...request, ...withProvider(outcome) });
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
}
