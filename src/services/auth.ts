// API key authentication with a small in-process cache. A key's restrictions change rarely but are
// read on every request, so the cache saves a query per request. Local changes evict at once; other
// processes see a change within `ttlMs` (or sooner, through the shared invalidation channel).
import { AppError } from '../domain/errors.js';
import { hashApiKey, looksLikeApiKey } from '../domain/keys/api-key.js';
import type { Storage } from '../storage/storage.js';
import type { Clock } from './clock.js';

export interface AuthenticatedKey {
  keyId: number;
  keyHash: string;
  accountId: number;
  messagingId: number;
  coefficientPpm: number;
  allowedModels: string[] | null;
  allowedIpCidrs: string[] | null;
  rateLimitPerMin: number | null;
}

interface CacheEntry {
  key: AuthenticatedKey | null;
  at: number;
}

export class AuthService {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly ttlMs = 1000,
    private readonly maxEntries = 50_000,
  ) {}

  /** Resolves `Authorization: Bearer <key>`; anything else is 401. */
  async authenticate(authorization: string | undefined): Promise<AuthenticatedKey> {
    const match = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
    if (!match || !looksLikeApiKey(match[1])) throw new AppError('invalid_api_key');
    const keyHash = hashApiKey(match[1]);
    const now = this.clock.now();
    const cached = this.cache.get(keyHash);
    let key: AuthenticatedKey | null;
    if (cached && now - cached.at < this.ttlMs) {
      key = cached.key;
    } else {
      key = await this.load(keyHash);
      if (this.cache.size >= this.maxEntries) this.cache.clear();
      this.cache.set(keyHash, { key, at: now });
    }
    if (!key) throw new AppError('invalid_api_key');
    return key;
  }

  private async load(keyHash: string): Promise<AuthenticatedKey | null> {
    const row = await this.storage.keys.activeByHash(keyHash);
    if (!row) return null;
    return {
      keyId: row.id,
      keyHash,
      accountId: row.account_id,
      messagingId: row.messaging_id,
      coefficientPpm: row.coefficient_ppm,
      allowedModels: row.allowed_models ? JSON.parse(row.allowed_models) : null,
      allowedIpCidrs: row.allowed_ip_cidrs ? JSON.parse(row.allowed_ip_cidrs) : null,
      rateLimitPerMin: row.rate_limit_per_min,
    };
  }

  invalidate(keyHash: string): void {
    this.cache.delete(keyHash);
  }

  invalidateAll(): void {
    this.cache.clear();
  }
}
