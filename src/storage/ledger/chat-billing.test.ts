// Storage contract: a chat request's usage row and its money move together, on every engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, openTestDb, type TestDb } from '../../testing/db.js';
import { type SeededKey, seedKey } from '../../testing/storage-fixtures.js';
import { Storage } from '../storage.js';
import { LedgerIntegrityError } from './ledger.js';
import { checkLedger } from './ledger-check.js';

describe.each(ENGINES)('chat billing repository on %s', (engine) => {
  let db: TestDb;
  let storage: Storage;
  let nextId = 0;
  beforeAll(async () => {
    db = await openTestDb(engine);
    storage = Storage.from(db);
  });
  afterAll(async () => {
    expect(await checkLedger(storage.db)).toEqual([]);
    await db.dispose();
  });

  const opening = (key: SeededKey) => ({ id: `chat_t${nextId++}`, modelId: 'gpt-4o', ref: key.ref });
  const outcome = (cost: number) => ({
    status: 'completed' as const,
    inputTokens: 10,
    outputTokens: 20,
    cost,
    latencyMs: 5,
  });
  const kinds = async (id: string) =>
    (await storage.ledger.entriesForTask(id)).map((e) => [e.kind, Number(e.amount)]);

  it('opens the hold and records it as open together; the usage row waits for the settlement', async () => {
    const key = await seedKey(storage, { balance: 1_000 });
    const chat = opening(key);
    expect(await storage.chatBilling.open(chat, 300)).toBe(true);
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 700, held: 300 });
    expect(await storage.chatHolds.byId(chat.id)).toMatchObject({
      key_id: key.keyId,
      amount: 300,
      model_id: 'gpt-4o',
    });
    expect(await storage.usage.byId(key.accountId, chat.id)).toBeUndefined();
    expect(await kinds(chat.id)).toEqual([['hold', 300]]);
  });

  it('writes neither the row nor the hold when the balance does not cover it', async () => {
    const key = await seedKey(storage, { balance: 1_000 });
    const chat = opening(key);
    expect(await storage.chatBilling.open(chat, 1_001)).toBe(false);
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 1_000, held: 0 });
    expect(await storage.chatHolds.byId(chat.id)).toBeUndefined();
    expect(await kinds(chat.id)).toEqual([]);
    // A deleted key holds nothing either.
    await storage.keys.softDelete(key.keyId, Date.now());
    expect(await storage.chatBilling.open(opening(key), 1)).toBe(false);
  });

  it("reports the key's available balance right after each hold, and null for a refused one", async () => {
    const key = await seedKey(storage, { balance: 1_000 });
    expect(await storage.chatBilling.openReporting(opening(key), 300)).toBe(700);
    // Arriving together (one batched statement on PostgreSQL), each sees the balance after its own hold.
    const together = await Promise.all(
      [100, 700, 200].map((amount) => storage.chatBilling.openReporting(opening(key), amount)),
    );
    expect(together).toEqual([600, null, 400]);
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 400, held: 600 });
    expect(await storage.chatBilling.openReporting(opening(key), 400)).toBe(0);
  });

  it('settles once: closes the hold, writes the usage row, captures the cost and releases the rest', async () => {
    const key = await seedKey(storage, { balance: 1_000 });
    const chat = opening(key);
    await storage.chatBilling.open(chat, 300);
    expect(await storage.chatBilling.settle(key.ref, chat.id, 300, outcome(120))).toBe(true);
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 880, held: 0 });
    expect(await storage.chatHolds.byId(chat.id)).toBeUndefined();
    expect(await storage.usage.byId(key.accountId, chat.id)).toMatchObject({
      status: 'completed',
      cost: 120,
      input_tokens: 10,
      output_tokens: 20,
      latency_ms: 5,
    });
    const entries = await storage.ledger.entriesForTask(chat.id);
    expect(
      entries.map((e) => [e.kind, Number(e.amount), Number(e.balance_after), Number(e.held_after)]),
    ).toEqual([
      ['hold', 300, 700, 300],
      ['capture', 120, 700, 180],
      ['release', 180, 880, 0],
    ]);

    expect(await storage.chatBilling.settle(key.ref, chat.id, 300, outcome(0))).toBe(false);
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 880, held: 0 });
    expect(await storage.usage.byId(key.accountId, chat.id)).toMatchObject({
      status: 'completed',
      cost: 120,
    });
  });

  it('lets exactly one of two racing settlements through', async () => {
    const key = await seedKey(storage, { balance: 1_000 });
    const chat = opening(key);
    await storage.chatBilling.open(chat, 300);
    const results = await Promise.all([
      storage.chatBilling.settle(key.ref, chat.id, 300, outcome(100)),
      storage.chatBilling.settle(key.ref, chat.id, 300, outcome(0)),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const captured = results[0] ? 100 : 0;
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 1_000 - captured, held: 0 });
    expect((await kinds(chat.id)).map(([kind]) => kind)).toEqual(['hold', 'capture', 'release']);
  });

  it('refuses, changing nothing, a settlement of another amount than the hold or a cost above it', async () => {
    const key = await seedKey(storage, { balance: 1_000 });
    const chat = opening(key);
    await storage.chatBilling.open(chat, 300);
    await expect(storage.chatBilling.settle(key.ref, chat.id, 250, outcome(10))).rejects.toBeInstanceOf(
      LedgerIntegrityError,
    );
    await expect(storage.chatBilling.settle(key.ref, chat.id, 300, outcome(301))).rejects.toBeInstanceOf(
      LedgerIntegrityError,
    );
    expect(await storage.chatHolds.byId(chat.id)).toMatchObject({ amount: 300 });
    expect(await storage.usage.byId(key.accountId, chat.id)).toBeUndefined();
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 700, held: 300 });
    expect(await storage.chatBilling.settle(key.ref, chat.id, 300, outcome(10))).toBe(true);
  });
});
