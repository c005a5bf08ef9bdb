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

  const outcome = {
    status: 'completed' as const,
    inputTokens: 12,
    outputTokens: 34,
    cost: 5678,
    latencyMs: 90,
  };

  it('records a settled request once: the same id again is refused', async () => {
    const key = await seedKey(storage);
    const request = {
      id: 'chat_a',
      accountId: key.accountId,
      keyId: key.keyId,
      modelId: 'gpt-4o',
      createdAt: 1000,
    };
    await storage.usage.record(request, outcome);
    await expect(storage.usage.record(request, { ...outcome, status: 'failed', cost: 0 })).rejects.toThrow();
    expect(await storage.usage.byId(key.accountId, 'chat_a')).toMatchObject({
      status: 'completed',
      input_tokens: 12,
      output_tokens: 34,
      cost: 5678,
      latency_ms: 90,
      model_id: 'gpt-4o',
      key_id: key.keyId,
      created_at: 1000,
    });
  });

  it('scopes reads to the owner account, optionally to one key, newest first', async () => {
    const mine = await seedKey(storage);
    const second = await seedKey(storage, { accountId: mine.accountId });
    const theirs = await seedKey(storage);
    const request = (
      id: string,
      key: { accountId: number; keyId: number },
      modelId: string,
      createdAt: number,
    ) =>
      storage.usage.record({ id, accountId: key.accountId, keyId: key.keyId, modelId, createdAt }, outcome);
    await request('chat_m1', mine, 'gpt-4o', 1);
    await request('chat_m2', second, 'o3', 2);
    await request('chat_t1', theirs, 'gpt-4o', 3);

    expect((await storage.usage.listForAccount(mine.accountId)).map((r) => r.id)).toEqual([
      'chat_m2',
      'chat_m1',
    ]);
    expect(
      (await storage.usage.listForAccount(mine.accountId, { keyId: mine.keyId })).map((r) => r.id),
    ).toEqual(['chat_m1']);
    expect(await storage.usage.byId(mine.accountId, 'chat_t1')).toBeUndefined();
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
