// Key and account rows → JSON. A stored key is only ever shown masked.
import { microToRub } from '../../domain/billing/money.js';
import { maskApiKey } from '../../domain/keys/api-key.js';
import { presentKeyLimits } from '../../domain/keys/limits.js';
import type { AccountRow } from '../../storage/repositories/accounts.js';
import type { ApiKeyRow } from '../../storage/repositories/keys.js';

export function presentKey(key: ApiKeyRow) {
  return {
    id: key.id,
    name: key.name,
    key_value: maskApiKey(key.key_prefix, key.key_last4),
    balance: microToRub(key.balance),
    held: microToRub(key.held),
    allowed_models: key.allowed_models ? (JSON.parse(key.allowed_models) as string[]) : null,
    allowed_ip_cidrs: key.allowed_ip_cidrs ? (JSON.parse(key.allowed_ip_cidrs) as string[]) : null,
    rate_limit_per_min: key.rate_limit_per_min,
    // expires_at, spend_limit_rub, spend_limit_period and spent_in_period_rub (the period's spend so far).
    ...presentKeyLimits(key, Date.now()),
    created_at: new Date(key.created_at).toISOString(),
  };
}

export function presentCoefficient(account: AccountRow): number {
  return account.coefficient_ppm / 1_000_000;
}

/** The spec's Account object (GET /me/keys). */
export function presentAccount(account: AccountRow, keys: ApiKeyRow[]) {
  return {
    messaging_id: account.messaging_id,
    coefficient: presentCoefficient(account),
    keys: keys.map(presentKey),
  };
}
