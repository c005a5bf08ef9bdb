// The owner's key management in the panel: list, create, rename, restrict and delete their own keys.
// Creation and restrictions go through AccountsService (the admin API's and CLI's rules, the
// catalog check of allowed_models, the auth-cache eviction); rename and delete add the owner's own
// rules. Every change is audited with the owner as the actor; another account's key is not found.
import { AppError } from '../../domain/errors.js';
import type { ApiKeyRow } from '../../storage/repositories/keys.js';
import { OwnerKeysRepository } from '../../storage/repositories/owner-keys.js';
import type { Storage } from '../../storage/storage.js';
import type { AccountsService, Actor } from '../accounts.js';
import type { Clock } from '../clock.js';
import type { KeyInvalidation } from '../key-invalidation.js';

export interface OwnerKey {
  key: ApiKeyRow;
  /** When the key last paid for a request; null when never. */
  lastUsedAt: number | null;
}

export interface RestrictionsInput {
  allowed_models?: string[] | null;
  allowed_ip_cidrs?: string[] | null;
  rate_limit_per_min?: number | null;
}

/** The key's limits as the panel's form gives them (validated by AccountsService). */
export interface LimitsInput {
  expires_at: string | null;
  spend_limit_rub: string | null;
  spend_limit_period: string | null;
}

const NAME_MAX = 100;

/** A key name as typed: trimmed, empty means none, at most 100 characters. */
export function parseKeyName(value: string | null | undefined): string | null {
  const name = (value ?? '').trim();
  if (name.length > NAME_MAX)
    throw new AppError('invalid_parameter', `The name may have at most ${NAME_MAX} characters`, 'name');
  return name === '' ? null : name;
}

export class OwnerKeysService {
  constructor(
    private readonly deps: {
      storage: Storage;
      clock: Clock;
      accounts: AccountsService;
      keyInvalidation: KeyInvalidation;
    },
  ) {}

  async list(accountId: number): Promise<OwnerKey[]> {
    const keys = await this.deps.storage.keys.listForAccount(accountId);
    const used = await new OwnerKeysRepository(this.deps.storage.db).lastUsed(
      accountId,
      keys.map((k) => k.id),
    );
    return keys.map((key) => ({ key, lastUsedAt: used.get(key.id) ?? null }));
  }

  /** When the key last paid for a request; null when never. */
  async lastUsedAt(accountId: number, keyId: number): Promise<number | null> {
    const used = await new OwnerKeysRepository(this.deps.storage.db).lastUsed(accountId, [keyId]);
    return used.get(keyId) ?? null;
  }

  /** `storage`: the open transaction's, when called inside one (SQLite has one connection). */
  async get(accountId: number, keyId: number, storage: Storage = this.deps.storage): Promise<ApiKeyRow> {
    const key = Number.isSafeInteger(keyId) ? await storage.keys.forAccount(accountId, keyId) : undefined;
    if (!key) throw new AppError('not_found', 'Key not found');
    return key;
  }

  /** The full secret is returned once, here; the key starts with a zero balance. */
  async create(
    accountId: number,
    input: { name: string | null } & RestrictionsInput,
    by: Actor,
  ): Promise<{ key: ApiKeyRow; secret: string }> {
    const restrictions = Object.fromEntries(Object.entries(input).filter(([field]) => field !== 'name'));
    return this.deps.accounts.createKey(accountId, { name: parseKeyName(input.name), ...restrictions }, by);
  }

  async rename(accountId: number, keyId: number, nameText: string | null, by: Actor): Promise<ApiKeyRow> {
    const name = parseKeyName(nameText);
    const now = this.deps.clock.now();
    return this.deps.storage.transaction(async (tx) => {
      const before = await this.get(accountId, keyId, tx);
      const renamed = await new OwnerKeysRepository(tx.db).rename(accountId, keyId, name, now);
      if (!renamed) throw new AppError('not_found', 'Key not found');
      await tx.audit.append({
        accountId,
        ...by,
        action: 'key.renamed',
        details: { key_id: keyId, name, previous_name: before.name },
        now,
      });
      return renamed;
    });
  }

  /** Same rules and audit record as PATCH /admin/keys/{id}; the API obeys at once (cache eviction). */
  async restrict(accountId: number, keyId: number, patch: RestrictionsInput, by: Actor): Promise<ApiKeyRow> {
    return this.deps.accounts.updateKeyRestrictions(keyId, { ...patch }, by, accountId);
  }

  /** The expiry and the spend cap, with the same rules and audit record as PATCH /admin/keys/{id}. */
  async limit(accountId: number, keyId: number, limits: LimitsInput, by: Actor): Promise<ApiKeyRow> {
    return this.deps.accounts.updateKeyRestrictions(keyId, { ...limits }, by, accountId);
  }

  /**
   * Deletes a key that holds nothing. A balance or an open hold refuses it (409 key_not_empty), so
   * money is never stranded on a deleted key: the owner moves the balance first (a transfer).
   */
  async delete(accountId: number, keyId: number, by: Actor): Promise<void> {
    const now = this.deps.clock.now();
    const deleted = await this.deps.storage.transaction(async (tx) => {
      const key = await this.get(accountId, keyId, tx);
      const row = await new OwnerKeysRepository(tx.db).deleteIfEmpty(accountId, keyId, now);
      if (!row) {
        throw new AppError(
          'key_not_empty',
          key.held > 0
            ? 'This key has requests in progress holding money; delete it once they have finished and its balance is moved'
            : 'This key still has a balance: transfer it to another key first',
        );
      }
      await tx.audit.append({
        accountId,
        ...by,
        action: 'key.deleted',
        details: { key_id: keyId, name: key.name },
        now,
      });
      return row;
    });
    this.deps.keyInvalidation.publish(deleted.key_hash);
  }
}
