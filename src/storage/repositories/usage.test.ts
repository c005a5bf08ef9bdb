// Storage contract: usage records. The same suite runs on SQLite and, when reachable, on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, openTestDb, type TestDb } from '../../testing/db.js';
import { seedKey } from '../../testing/storage-fixtures.js';
import { Storage } from '../storage.js';

describe.each(ENGINES)('usage repository on %s', (engine) => {
  let db: TestDb;
  let storage: Storage;
  beforeAll(async () => {
    db = await openTestDb(engine);
    storage = Storage.from(db);
  });
  afterAll(() => db.dispose());

  it('creates a pending row and completes it exactly once', async () => {
    const key = await seedKey(storage);
    await storage.usage.createPending({
      id: 'chat_a',
      accountId: key.accountId,
      keyId: key.keyId,
      modelId: 'gpt-4o',
      now: 1000,
    });
    expect(await storage.usage.byId(key.accountId, 'chat_a')).toMatchObject({
      status: 'pending',
      cost: 0,
      input_tokens: 0,
    });

    const outcome = {
      status: 'completed' as const,
      inputTokens: 12,
      outputTokens: 34,
      cost: 5678,
      latencyMs: 90,
    };
    expect(await storage.usage.finish('chat_a', outcome)).toBe(true);
    expect(await storage.usage.finish('chat_a', { ...outcome, status: 'failed', cost: 0 })).toBe(false);
    expect(await storage.usage.byId(key.accountId, 'chat_a')).toMatchObject({
      status: 'completed',
      input_tokens: 12,
      output_tokens: 34,
      cost: 5678,
      latency_ms: 90,
      model_id: 'gpt-4o',
      key_id: key.keyId,
    });
  });

  it('scopes reads to the owner account, optionally to one key, newest first', async () => {
    const mine = await seedKey(storage);
    const second = await seedKey(storage, { accountId: mine.accountId });
    const theirs = await seedKey(storage);
    await storage.usage.createPending({
      id: 'chat_m1',
      accountId: mine.accountId,
      keyId: mine.keyId,
      modelId: 'gpt-4o',
      now: 1,
    });
    await storage.usage.createPending({
      id: 'chat_m2',
      accountId: mine.accountId,
      keyId: second.keyId,
      modelId: 'o3',
      now: 2,
    });
    await storage.usage.createPending({
      id: 'chat_t1',
      accountId: theirs.accountId,
      keyId: theirs.keyId,
      modelId: 'gpt-4o',
      now: 3,
    });

    expect((await storage.usage.listForAccount(mine.accountId)).map((r) => r.id)).toEqual([
      'chat_m2',
      'chat_m1',
    ]);
    expect(
      (await storage.usage.listForAccount(mine.accountId, { keyId: mine.keyId })).map((r) => r.id),
    ).toEqual(['chat_m1']);
    expect(await storage.usage.byId(mine.accountId, 'chat_t1')).toBeUndefined();
  });

  it('finds rows still pending before a time, for the janitor', async () => {
    const key = await seedKey(storage);
    await storage.usage.createPending({
      id: 'chat_old',
      accountId: key.accountId,
      keyId: key.keyId,
      modelId: 'gpt-4o',
      now: 10,
    });
    await storage.usage.createPending({
      id: 'chat_new',
      accountId: key.accountId,
      keyId: key.keyId,
      modelId: 'gpt-4o',
      now: 10_000,
    });
    const stale = (await storage.usage.stalePending(5_000, 100)).map((r) => r.id);
    expect(stale).toContain('chat_old');
    expect(stale).not.toContain('chat_new');
  });

  it("reads a key's balance for the hold only for its owner and only while the key lives", async () => {
    const key = await seedKey(storage, { balance: 7_000_000 });
    const other = await seedKey(storage);
    expect(await storage.transaction((tx) => tx.usage.availableBalance(key.accountId, key.keyId))).toBe(
      7_000_000,
    );
    expect(
      await storage.transaction((tx) => tx.usage.availableBalance(other.accountId, key.keyId)),
    ).toBeUndefined();
    await storage.keys.softDelete(key.keyId, Date.now());
    expect(
      await storage.transaction((tx) => tx.usage.availableBalance(key.accountId, key.keyId)),
    ).toBeUndefined();
  });
});
