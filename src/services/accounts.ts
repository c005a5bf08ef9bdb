// Owner and operator use cases: accounts, keys, restrictions and top-ups. Every money movement runs
// in one transaction with its ledger entry; every change leaves an audit record.

import { parseLowBalance } from '../domain/billing/low-balance.js';
import { coefficientToPpm, rubToMicro } from '../domain/billing/money.js';
import { isInternalModelId } from '../domain/catalog/model.js';
import { AppError } from '../domain/errors.js';
import { displayParts, generateApiKey, hashApiKey } from '../domain/keys/api-key.js';
import { KEY_SETTING_FIELDS, parseKeyLimits } from '../domain/keys/limits.js';
import { parseAllowedIpCidrs, parseAllowedModels, parseRateLimit } from '../domain/keys/restrictions.js';
import { generateWebhookSecret } from '../domain/webhooks/secret.js';
import { isUniqueViolation } from '../storage/db.js';
import type { AccountRow } from '../storage/repositories/accounts.js';
import type { ApiKeyRow, KeyPatch } from '../storage/repositories/keys.js';
import type { Storage } from '../storage/storage.js';
import type { Clock } from './clock.js';

export interface Actor {
  actor: string;
  ip?: string | null;
}

export type KeyChangeListener = (keyHash: string) => void;

export class AccountsService {
  private readonly keyChangeListeners: KeyChangeListener[] = [];

  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    /** Whether a client may name this model id (the catalog); allowed_models takes only those. */
    private readonly isKnownModel: (id: string) => Promise<boolean> = async () => true,
  ) {}

  /** allowed_models names public catalog ids only: a typo would silently lock the key out. */
  private async checkKnownModels(models: string[] | null): Promise<void> {
    for (const id of models ?? []) {
      if (isInternalModelId(id) || !(await this.isKnownModel(id))) {
        throw new AppError(
          'invalid_parameter',
          `allowed_models: "${id}" is not a model of the catalog`,
          'allowed_models',
        );
      }
    }
  }

  /** Auth caches subscribe here so a restriction change or a deletion takes effect at once. */
  onKeyChanged(listener: KeyChangeListener): void {
    this.keyChangeListeners.push(listener);
  }

  private keyChanged(key: ApiKeyRow) {
    for (const listener of this.keyChangeListeners) listener(key.key_hash);
  }

  async createAccount(
    input: { messaging_id?: unknown; coefficient?: unknown },
    by: Actor,
  ): Promise<AccountRow> {
    const messagingId = parseMessagingId(input.messaging_id);
    const coefficientPpm =
      input.coefficient === undefined || input.coefficient === null
        ? 1_000_000
        : coefficientToPpm(input.coefficient);
    const now = this.clock.now();
    const exists = () =>
      new AppError(
        'account_exists',
        `An account with messaging_id ${messagingId} already exists`,
        'messaging_id',
      );
    try {
      return await this.storage.transaction(async (tx) => {
        if (await tx.accounts.byMessagingId(messagingId)) throw exists();
        const account = await tx.accounts.create({
          messagingId,
          coefficientPpm,
          webhookSecret: generateWebhookSecret(),
          now,
        });
        await tx.audit.append({
          accountId: account.id,
          ...by,
          action: 'account.created',
          details: { messaging_id: messagingId },
          now,
        });
        return account;
      });
    } catch (error) {
      // Two concurrent creations both passed the check: the UNIQUE constraint decides.
      if (isUniqueViolation(error)) throw exists();
      throw error;
    }
  }

  /**
   * Changes an account's `coefficient` and/or `low_balance_rub` (null: coefficient 1, no notice).
   * The threshold is copied onto the account's keys in the same transaction (the settlement
   * statements read it from the key row); a new coefficient evicts the keys from the auth caches.
   */
  async updateAccount(accountId: number, patch: Record<string, unknown>, by: Actor): Promise<AccountRow> {
    const allowed = ['coefficient', 'low_balance_rub'];
    const unknown = Object.keys(patch).filter((field) => !allowed.includes(field));
    if (unknown.length > 0) throw new AppError('unknown_field', `unknown field: ${unknown[0]}`, unknown[0]);
    const update: { coefficient_ppm?: number; low_balance?: number | null } = {};
    if (patch.coefficient !== undefined)
      update.coefficient_ppm = patch.coefficient === null ? 1_000_000 : coefficientToPpm(patch.coefficient);
    if (patch.low_balance_rub !== undefined) update.low_balance = parseLowBalance(patch.low_balance_rub);
    const now = this.clock.now();
    const { account, keys } = await this.storage.transaction(async (tx) => {
      const account = Object.keys(update).length
        ? await tx.accounts.update(accountId, update)
        : await tx.accounts.byId(accountId);
      if (!account) throw new AppError('not_found', 'Account not found');
      if (update.low_balance !== undefined)
        await tx.db
          .updateTable('api_keys')
          .set({ low_balance: update.low_balance })
          .where('account_id', '=', accountId)
          .execute();
      await tx.audit.append({ accountId, ...by, action: 'account.updated', details: { ...patch }, now });
      return { account, keys: await tx.keys.listForAccount(accountId) };
    });
    if (update.coefficient_ppm !== undefined) for (const key of keys) this.keyChanged(key);
    return account;
  }

  async accountByMessagingId(messagingId: unknown): Promise<AccountRow> {
    const account = await this.storage.accounts.byMessagingId(parseMessagingId(messagingId));
    if (!account) throw new AppError('not_found', 'Account not found');
    return account;
  }

  async keysOf(accountId: number): Promise<ApiKeyRow[]> {
    return this.storage.keys.listForAccount(accountId);
  }

  /** Creates a key and returns its secret: the only time the full value exists. Credits nothing. */
  async createKey(
    accountId: number,
    input: {
      name?: unknown;
      allowed_models?: unknown;
      allowed_ip_cidrs?: unknown;
      rate_limit_per_min?: unknown;
      expires_at?: unknown;
      spend_limit_rub?: unknown;
      spend_limit_period?: unknown;
    },
    by: Actor,
  ): Promise<{ key: ApiKeyRow; secret: string }> {
    if (
      input.name !== undefined &&
      input.name !== null &&
      (typeof input.name !== 'string' || input.name.length > 100)
    ) {
      throw new AppError('invalid_parameter', 'name must be a string of at most 100 characters', 'name');
    }
    const allowedModels =
      input.allowed_models === undefined ? null : parseAllowedModels(input.allowed_models);
    await this.checkKnownModels(allowedModels);
    const allowedIpCidrs =
      input.allowed_ip_cidrs === undefined ? null : parseAllowedIpCidrs(input.allowed_ip_cidrs);
    const rateLimitPerMin =
      input.rate_limit_per_min === undefined ? null : parseRateLimit(input.rate_limit_per_min);
    const limits = parseKeyLimits(input);
    const secret = generateApiKey();
    const { prefix, last4 } = displayParts(secret);
    const now = this.clock.now();
    const key = await this.storage.transaction(async (tx) => {
      const owner = await tx.accounts.byId(accountId);
      const created = await tx.keys.create({
        accountId,
        lowBalance: owner?.low_balance ?? null,
        name: (input.name as string | undefined) ?? null,
        keyHash: hashApiKey(secret),
        keyPrefix: prefix,
        keyLast4: last4,
        allowedModels,
        allowedIpCidrs,
        rateLimitPerMin,
        limits,
        now,
      });
      await tx.audit.append({
        accountId,
        ...by,
        action: 'key.created',
        details: { key_id: created.id, prefix },
        now,
      });
      return created;
    });
    return { key, secret };
  }

  async updateKeyRestrictions(
    keyId: number,
    patch: Record<string, unknown>,
    by: Actor,
    ownerAccountId?: number,
  ): Promise<ApiKeyRow> {
    const allowed: readonly string[] = KEY_SETTING_FIELDS;
    const unknown = Object.keys(patch).filter((field) => !allowed.includes(field));
    if (unknown.length > 0) throw new AppError('unknown_field', `unknown field: ${unknown[0]}`, unknown[0]);
    const update: KeyPatch = {};
    if ('allowed_models' in patch) {
      const value = parseAllowedModels(patch.allowed_models);
      await this.checkKnownModels(value);
      update.allowed_models = value ? JSON.stringify(value) : null;
    }
    if ('allowed_ip_cidrs' in patch) {
      const value = parseAllowedIpCidrs(patch.allowed_ip_cidrs);
      update.allowed_ip_cidrs = value ? JSON.stringify(value) : null;
    }
    if ('rate_limit_per_min' in patch) update.rate_limit_per_min = parseRateLimit(patch.rate_limit_per_min);
    const now = this.clock.now();
    const key = await this.storage.transaction(async (tx) => {
      const existing = await this.findKey(tx, keyId, ownerAccountId);
      const limits = parseKeyLimits(patch, existing);
      // A new period counts afresh from now; a new amount keeps counting the current period.
      const newPeriod =
        limits.spend_limit_period !== undefined && limits.spend_limit_period !== existing.spend_limit_period;
      const counter = newPeriod ? { spend_in_period: 0, spend_since: now } : {};
      const updated = await tx.keys.updateRestrictions(
        existing.id,
        { ...update, ...limits, ...counter },
        now,
      );
      if (!updated) throw new AppError('not_found', 'Key not found');
      await tx.audit.append({
        accountId: updated.account_id,
        ...by,
        action: 'key.restrictions_changed',
        details: { key_id: keyId, ...patch },
        now,
      });
      return updated;
    });
    this.keyChanged(key);
    return key;
  }

  async deleteKey(keyId: number, by: Actor, ownerAccountId?: number): Promise<void> {
    const now = this.clock.now();
    const key = await this.storage.transaction(async (tx) => {
      const existing = await this.findKey(tx, keyId, ownerAccountId);
      const deleted = await tx.keys.softDelete(existing.id, now);
      if (!deleted) throw new AppError('not_found', 'Key not found');
      await tx.audit.append({
        accountId: deleted.account_id,
        ...by,
        action: 'key.deleted',
        details: { key_id: keyId },
        now,
      });
      return deleted;
    });
    this.keyChanged(key);
  }

  /** Operator credit. The amount arrives in rubles and is converted without floats. */
  async topup(keyId: number, amountRub: unknown, note: unknown, by: Actor): Promise<number> {
    const amount = rubToMicro(amountRub, 'amount_rub');
    if (amount <= 0) throw new AppError('invalid_parameter', 'amount_rub must be positive', 'amount_rub');
    const text = parseNote(note);
    const now = this.clock.now();
    return this.storage.transaction(async (tx) => {
      const key = await this.findKey(tx, keyId);
      const balance = await tx.ledger.topup({ keyId, accountId: key.account_id, now }, amount, text);
      if (balance === undefined) throw new AppError('not_found', 'Key not found');
      await tx.audit.append({
        accountId: key.account_id,
        ...by,
        action: 'key.topup',
        details: { key_id: keyId, amount_micro: amount },
        now,
      });
      return balance;
    });
  }

  /** Operator correction of either sign, e.g. a refund made outside gengate. Never below zero. */
  async adjust(keyId: number, amountRub: unknown, note: unknown, by: Actor): Promise<number> {
    const amount = rubToMicro(amountRub, 'amount_rub');
    if (amount === 0) throw new AppError('invalid_parameter', 'amount_rub must not be zero', 'amount_rub');
    const text = parseNote(note);
    const now = this.clock.now();
    return this.storage.transaction(async (tx) => {
      const key = await this.findKey(tx, keyId);
      const balance = await tx.ledger.adjust({ keyId, accountId: key.account_id, now }, amount, text);
      if (balance === undefined) {
        throw new AppError(
          'insufficient_balance',
          `The balance of key ${keyId} does not cover a debit of ${-amount / 1e6} RUB`,
          'amount_rub',
        );
      }
      await tx.audit.append({
        accountId: key.account_id,
        ...by,
        action: 'key.adjusted',
        details: { key_id: keyId, amount_micro: amount, note: text },
        now,
      });
      return balance;
    });
  }

  async rotateWebhookSecret(accountId: number, graceMs: number, by: Actor): Promise<AccountRow> {
    const now = this.clock.now();
    return this.storage.transaction(async (tx) => {
      const account = await tx.accounts.byId(accountId);
      if (!account) throw new AppError('not_found', 'Account not found');
      const updated = await tx.accounts.update(accountId, {
        webhook_secret: generateWebhookSecret(),
        webhook_secret_previous: account.webhook_secret,
        webhook_secret_previous_until: now + graceMs,
      });
      await tx.audit.append({ accountId, ...by, action: 'webhook_secret.rotated', now });
      return updated!;
    });
  }

  private async findKey(tx: Storage, keyId: number, ownerAccountId?: number): Promise<ApiKeyRow> {
    if (!Number.isSafeInteger(keyId) || keyId <= 0) throw new AppError('not_found', 'Key not found');
    const key =
      ownerAccountId === undefined
        ? await tx.keys.byIdForOperator(keyId)
        : await tx.keys.forAccount(ownerAccountId, keyId);
    if (!key) throw new AppError('not_found', 'Key not found');
    return key;
  }
}

function parseNote(note: unknown): string | null {
  if (note === undefined || note === null) return null;
  if (typeof note !== 'string' || note.length > 500) {
    throw new AppError('invalid_parameter', 'note must be a string of at most 500 characters', 'note');
  }
  return note;
}

export function parseMessagingId(value: unknown): number {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n <= 0) {
    throw new AppError('invalid_parameter', 'messaging_id must be a positive integer', 'messaging_id');
  }
  return n;
}
