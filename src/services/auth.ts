// API key authentication with a small in-process cache. A key's restrictions change rarely but are
// read on every request, so the cache saves a query per request. A change evicts the key at once in
// every process through the key invalidation channel (services/key-invalidation.ts); `ttlMs` bounds
// staleness if a message is ever lost.
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
  /** Epoch ms from which the key answers 401 key_expired; null: never. */
  expiresAt: number | null;
}

interface CacheEntry {
  key: AuthenticatedKey | null;
  at: number;
}

export class AuthService {
  private readonly cache = new Map<string, CacheEntry>();
  /** Bumped by every eviction, so a load that raced with one is not cached (see authenticate). */
  private generation = 0;
  /**
   * Loads under way, shared by the requests of the same key that miss the cache meanwhile (when a
   * hot key's entry expires, every connection would otherwise read the row at once). Only within a
   * generation: a request arriving after an eviction waits for a load of its own.
   */
  private readonly loading = new Map<string, { generation: number; key: Promise<AuthenticatedKey | null> }>();

  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly ttlMs = 500,
    private readonly maxEntries = 50_000,
  ) {}

  /** Resolves `Authorization: Bearer <key>`; anything else is 401. */
  async authenticate(authorization: string | undefined): Promise<AuthenticatedKey> {
    const keyHash = this.hashOf(authorization);
    const now = this.clock.now();
    const cached = this.cache.get(keyHash);
    let key: AuthenticatedKey | null;
    if (cached && now - cached.at < this.ttlMs) {
      key = cached.key;
    } else {
      const generation = this.generation;
      key = await this.loadShared(keyHash, generation);
      // An eviction during the load may mean the row we read is already stale: use it for this
      // request (it was current when the request arrived) but do not keep it.
      if (generation === this.generation && this.ttlMs > 0) {
        if (this.cache.size >= this.maxEntries) this.cache.clear();
        this.cache.set(keyHash, { key, at: now });
      }
    }
    if (!key) throw new AppError('invalid_api_key');
    // Checked on every request, cached or not: a key expires on time whatever the cache holds.
    if (key.expiresAt !== null && now >= key.expiresAt) throw new AppError('key_expired');
    return key;
  }

  /** Hashed on every request rather than memoized: raw keys are never kept in process memory. */
  private hashOf(authorization: string | undefined): string {
    const match = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
    if (!match || !looksLikeApiKey(match[1])) throw new AppError('invalid_api_key');
    return hashApiKey(match[1]);
  }

  private loadShared(keyHash: string, generation: number): Promise<AuthenticatedKey | null> {
    const pending = this.loading.get(keyHash);
    if (pending && pending.generation === generation) return pending.key;
    const key = this.load(keyHash).finally(() => {
      if (this.loading.get(keyHash)?.key === key) this.loading.delete(keyHash);
    });
    this.loading.set(keyHash, { generation, key });
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
      expiresAt: row.expires_at === null ? null : Number(row.expires_at),
    };
  }

  invalidate(keyHash: string): void {
    this.generation++;
    this.cache.delete(keyHash);
  }

  invalidateAll(): void {
    this.generation++;
    this.cache.clear();
  }
}
