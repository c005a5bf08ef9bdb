import type { Kysely, Selectable } from 'kysely';
import type { KeyLimitsPatch } from '../../domain/keys/limits.js';
import type { ApiKeysTable, Database } from '../schema.js';

export type ApiKeyRow = Selectable<ApiKeysTable>;

/** What an operator or owner may change on a key (the spend counter only to restart it). */
export interface KeyPatch extends KeyLimitsPatch {
  allowed_models?: string | null;
  allowed_ip_cidrs?: string | null;
  rate_limit_per_min?: number | null;
  spend_in_period?: number;
  spend_since?: number;
}

/** A live key joined with what authentication needs from its account. */
export interface AuthKeyRow extends ApiKeyRow {
  messaging_id: number;
  coefficient_ppm: number;
}

export type SpendState = Pick<
  ApiKeyRow,
  'balance' | 'spend_limit' | 'spend_limit_period' | 'spend_in_period' | 'spend_since'
>;

export class KeysRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async create(input: {
    accountId: number;
    name: string | null;
    keyHash: string;
    keyPrefix: string;
    keyLast4: string;
    allowedModels: string[] | null;
    allowedIpCidrs: string[] | null;
    rateLimitPerMin: number | null;
    limits?: KeyLimitsPatch;
    now: number;
  }): Promise<ApiKeyRow> {
    return this.db
      .insertInto('api_keys')
      .values({
        account_id: input.accountId,
        name: input.name,
        key_hash: input.keyHash,
        key_prefix: input.keyPrefix,
        key_last4: input.keyLast4,
        balance: 0,
        held: 0,
        allowed_models: input.allowedModels ? JSON.stringify(input.allowedModels) : null,
        allowed_ip_cidrs: input.allowedIpCidrs ? JSON.stringify(input.allowedIpCidrs) : null,
        rate_limit_per_min: input.rateLimitPerMin,
        // Only the limits given: left out, the columns take their defaults (and a key written on a
        // schema from before them, as migration tests do, still works).
        ...input.limits,
        created_at: input.now,
        updated_at: input.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** Lookup by hash for authentication; deleted keys are not found. */
  async activeByHash(keyHash: string): Promise<AuthKeyRow | undefined> {
    return this.db
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      .selectAll('api_keys')
      .select(['accounts.messaging_id', 'accounts.coefficient_ppm'])
      .where('api_keys.key_hash', '=', keyHash)
      .where('api_keys.deleted_at', 'is', null)
      .executeTakeFirst();
  }

  async listForAccount(accountId: number): Promise<ApiKeyRow[]> {
    return this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('deleted_at', 'is', null)
      .orderBy('id')
      .execute();
  }

  async forAccount(accountId: number, keyId: number): Promise<ApiKeyRow | undefined> {
    return this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('id', '=', keyId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  }

  /** Operator access (admin API, CLI): not owner-scoped by design. */
  async byIdForOperator(keyId: number): Promise<ApiKeyRow | undefined> {
    return this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', keyId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  }

  async updateRestrictions(keyId: number, patch: KeyPatch, now: number): Promise<ApiKeyRow | undefined> {
    return this.db
      .updateTable('api_keys')
      .set({ ...patch, updated_at: now })
      .where('id', '=', keyId)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
  }

  async softDelete(keyId: number, now: number): Promise<ApiKeyRow | undefined> {
    return this.db
      .updateTable('api_keys')
      .set({ deleted_at: now, updated_at: now })
      .where('id', '=', keyId)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
  }

  /** What decides whether a hold fits: the available balance and the spend cap's state. */
  async spendState(keyId: number): Promise<SpendState | undefined> {
    return this.db
      .selectFrom('api_keys')
      .select(['balance', 'spend_limit', 'spend_limit_period', 'spend_in_period', 'spend_since'])
      .where('id', '=', keyId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  }

  async balanceOf(keyId: number): Promise<{ balance: number; held: number } | undefined> {
    return this.db
      .selectFrom('api_keys')
      .select(['balance', 'held'])
      .where('id', '=', keyId)
      .executeTakeFirst();
  }
}
