// Storage contract: API keys. Only the SHA-256 of a key is stored; reads are scoped by owner.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../domain/keys/api-key.js';
import { ENGINES, openTestDb, type TestDb } from '../../testing/db.js';
import { seedAccount, seedKey } from '../../testing/storage-fixtures.js';
import { Storage } from '../storage.js';

describe.each(ENGINES)('keys repository on %s', (engine) => {
  let db: TestDb;
  let storage: Storage;
  beforeAll(async () => {
    db = await openTestDb(engine);
    storage = Storage.from(db);
  });
  afterAll(() => db.dispose());

  it('stores only the sha256, the display prefix and the last 4 characters', async () => {
    const key = await seedKey(storage);
    const row = await db.kysely
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', key.keyId)
      .executeTakeFirstOrThrow();
    expect(row.key_hash).toBe(hashApiKey(key.secret));
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.key_prefix).toBe(key.secret.slice(0, 12));
    expect(row.key_prefix).toMatch(/^sk_live_.{4}$/);
    expect(row.key_last4).toBe(key.secret.slice(-4));
    for (const value of Object.values(row)) {
      if (typeof value === 'string') expect(value.includes(key.secret)).toBe(false);
    }
    expect(row.balance).toBe(0);
    expect(row.held).toBe(0);
  });

  it('finds a live key by hash together with its account, and never a deleted one', async () => {
    const key = await seedKey(storage);
    const found = await storage.keys.activeByHash(hashApiKey(key.secret));
    expect(found).toMatchObject({ id: key.keyId, account_id: key.accountId, coefficient_ppm: 1_000_000 });
    expect(typeof found?.messaging_id).toBe('number');
    expect(await storage.keys.activeByHash(hashApiKey(`${key.secret}x`))).toBeUndefined();

    expect(await storage.keys.softDelete(key.keyId, Date.now())).toBeDefined();
    expect(await storage.keys.activeByHash(hashApiKey(key.secret))).toBeUndefined();
    // A second delete finds nothing to delete; restrictions of a deleted key cannot change.
    expect(await storage.keys.softDelete(key.keyId, Date.now())).toBeUndefined();
    expect(
      await storage.keys.updateRestrictions(key.keyId, { rate_limit_per_min: 5 }, Date.now()),
    ).toBeUndefined();
    expect(await storage.keys.byIdForOperator(key.keyId)).toBeUndefined();
  });

  it('scopes reads by owner: another account never sees a key', async () => {
    const mine = await seedKey(storage);
    const second = await seedKey(storage, { accountId: mine.accountId });
    const theirs = await seedKey(storage);
    expect((await storage.keys.forAccount(mine.accountId, mine.keyId))?.id).toBe(mine.keyId);
    expect(await storage.keys.forAccount(theirs.accountId, mine.keyId)).toBeUndefined();
    expect(await storage.keys.forAccount(mine.accountId, theirs.keyId)).toBeUndefined();
    expect((await storage.keys.listForAccount(mine.accountId)).map((k) => k.id)).toEqual([
      mine.keyId,
      second.keyId,
    ]);
    expect((await storage.keys.listForAccount(theirs.accountId)).map((k) => k.id)).toEqual([theirs.keyId]);

    await storage.keys.softDelete(second.keyId, Date.now());
    expect((await storage.keys.listForAccount(mine.accountId)).map((k) => k.id)).toEqual([mine.keyId]);
    expect(await storage.keys.forAccount(mine.accountId, second.keyId)).toBeUndefined();
  });

  it('updates restrictions, null clearing them', async () => {
    const key = await seedKey(storage);
    const updated = await storage.keys.updateRestrictions(
      key.keyId,
      { allowed_models: '["seedance-2"]', allowed_ip_cidrs: '["10.0.0.0/8"]', rate_limit_per_min: 7 },
      Date.now(),
    );
    expect(updated).toMatchObject({
      allowed_models: '["seedance-2"]',
      allowed_ip_cidrs: '["10.0.0.0/8"]',
      rate_limit_per_min: 7,
    });
    const cleared = await storage.keys.updateRestrictions(
      key.keyId,
      { allowed_models: null, rate_limit_per_min: null },
      Date.now(),
    );
    expect(cleared).toMatchObject({
      allowed_models: null,
      allowed_ip_cidrs: '["10.0.0.0/8"]',
      rate_limit_per_min: null,
    });
  });

  it('refuses a key for an account that does not exist', async () => {
    const before = await db.kysely
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const attempt = storage.keys.create({
      accountId: (await seedAccount(storage)) + 10_000,
      name: null,
      keyHash: 'f'.repeat(64),
      keyPrefix: 'sk_live_abcd',
      keyLast4: 'wxyz',
      allowedModels: null,
      allowedIpCidrs: null,
      rateLimitPerMin: null,
      now: 1,
    });
    await expect(attempt).rejects.toThrow();
    const after = await db.kysely
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });
});
