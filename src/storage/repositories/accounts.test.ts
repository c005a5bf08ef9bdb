// Storage contract: accounts. The same suite runs on SQLite and, when reachable, on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, openTestDb, type TestDb } from '../../testing/db.js';
import { isUniqueViolation } from '../db.js';
import { Storage } from '../storage.js';

describe.each(ENGINES)('accounts repository on %s', (engine) => {
  let db: TestDb;
  let storage: Storage;
  beforeAll(async () => {
    db = await openTestDb(engine);
    storage = Storage.from(db);
  });
  afterAll(() => db.dispose());

  it('creates an account and finds it by messaging_id and by id', async () => {
    const created = await storage.accounts.create({
      messagingId: 42,
      coefficientPpm: 1_250_000,
      webhookSecret: 'whsec_a',
      now: 1000,
    });
    expect(created).toMatchObject({
      messaging_id: 42,
      coefficient_ppm: 1_250_000,
      webhook_secret: 'whsec_a',
      created_at: 1000,
    });
    expect(await storage.accounts.byMessagingId(42)).toEqual(created);
    expect(await storage.accounts.byId(created.id)).toEqual(created);
    expect(await storage.accounts.byMessagingId(43)).toBeUndefined();
  });

  it('keeps messaging_id unique: a second account with the same id is a constraint violation', async () => {
    const before = await storage.accounts.count();
    const second = storage.accounts.create({
      messagingId: 42,
      coefficientPpm: 1_000_000,
      webhookSecret: 'whsec_b',
      now: 2000,
    });
    const error = await second.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isUniqueViolation(error)).toBe(true);
    expect(await storage.accounts.count()).toBe(before);
    expect((await storage.accounts.byMessagingId(42))?.webhook_secret).toBe('whsec_a');
  });

  it('stores messaging ids beyond 32 bits exactly', async () => {
    const big = 7_123_456_789_012;
    await storage.accounts.create({
      messagingId: big,
      coefficientPpm: 1_000_000,
      webhookSecret: 'whsec_c',
      now: 1,
    });
    expect((await storage.accounts.byMessagingId(big))?.messaging_id).toBe(big);
  });

  it('refuses a non-positive coefficient in the database itself', async () => {
    const error = await storage.accounts
      .create({ messagingId: 44, coefficientPpm: 0, webhookSecret: 'whsec_d', now: 1 })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(Error);
    expect(await storage.accounts.byMessagingId(44)).toBeUndefined();
  });
});
