// Chat holds and settlements batched into one statement each on PostgreSQL: exact balances, arrival
// order, refusals only where the balance no longer covers a hold, a settlement applied once.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDb, type TestDb } from '../testing/db.js';
import { brokenLedgerChain } from '../testing/ledger-chain.js';
import { HAVE_POSTGRES } from '../testing/services.js';
import { type SeededKey, seedKey } from '../testing/storage-fixtures.js';
import { checkLedger } from './ledger/ledger-check.js';
import type { BatcherStats } from './pg-batcher.js';
import { pgOpenMany } from './pg-chat-batch.js';
import { Storage } from './storage.js';

describe.skipIf(!HAVE_POSTGRES)('chat billing batched on PostgreSQL', () => {
  let db: TestDb;
  let storage: Storage;

  beforeAll(async () => {
    db = await openTestDb('postgres');
    storage = Storage.from(db);
  });
  afterAll(() => db?.dispose());

  const stats = () =>
    storage.chatBilling as unknown as {
      pgOpens: { stats: BatcherStats };
      pgSettles: { stats: BatcherStats };
    };
  const open = (key: SeededKey, id: string, amount: number) =>
    storage.chatBilling.open({ id, modelId: 'gpt-4o-mini', ref: { ...key.ref, now: Date.now() } }, amount);
  const outcome = (cost: number) =>
    ({ status: 'completed', inputTokens: 10, outputTokens: 20, cost, latencyMs: 5 }) as const;

  it('64 concurrent holds on one key that fit only 21: exactly 21, in fewer statements; settlements exact', async () => {
    const key = await seedKey(storage, { balance: 1000 });
    const before = { ...stats().pgOpens.stats };
    const ids = Array.from({ length: 64 }, () => randomUUID());
    const held = await Promise.all(ids.map((id) => open(key, id, 47)));
    expect(held.filter(Boolean)).toHaveLength(21);
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 1000 - 21 * 47, held: 21 * 47 });
    expect(stats().pgOpens.stats.statements - before.statements).toBeLessThan(64);
    expect(await checkLedger(db.kysely)).toEqual([]);
    expect(await brokenLedgerChain(storage, key.keyId)).toEqual([]);

    const open21 = ids.filter((_, i) => held[i]);
    const settled = await Promise.all(
      open21.map((id, i) =>
        storage.chatBilling.settle(key.ref, id, 47, {
          ...outcome(i % 3 === 0 ? 47 : 12),
          ...(i % 2 ? { provider: 'openai', providerCost: 7 + i } : {}),
        }),
      ),
    );
    expect(settled.every(Boolean)).toBe(true);
    // The provider and its cost are written with the usage row, batched or not; absent: null.
    const usage = new Map(
      (await db.kysely.selectFrom('usage_records').select(['id', 'provider', 'provider_cost']).execute()).map(
        (r) => [
          r.id,
          {
            provider: r.provider ?? null,
            cost: r.provider_cost === null || r.provider_cost === undefined ? null : Number(r.provider_cost),
          },
        ],
      ),
    );
    open21.forEach((id, i) => {
      expect(usage.get(id)).toEqual(
        i % 2 ? { provider: 'openai', cost: 7 + i } : { provider: null, cost: null },
      );
    });
    const captured = open21.reduce((sum, _, i) => sum + (i % 3 === 0 ? 47 : 12), 0);
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 1000 - captured, held: 0 });
    expect(await checkLedger(db.kysely)).toEqual([]);
    expect(await brokenLedgerChain(storage, key.keyId)).toEqual([]);
    // A second settlement of the same requests changes nothing.
    const again = await Promise.all(
      open21.map((id) => storage.chatBilling.settle(key.ref, id, 47, outcome(1))),
    );
    expect(again.some(Boolean)).toBe(false);
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 1000 - captured, held: 0 });
  });

  it('holds in arrival order: only the ones that no longer fit are refused', async () => {
    const key = await seedKey(storage, { balance: 100 });
    const amounts = [60, 50, 30, 20, 10];
    const held = await Promise.all(amounts.map((amount) => open(key, randomUUID(), amount)));
    expect(held).toEqual([true, false, true, false, true]);
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 0, held: 100 });
    expect(await checkLedger(db.kysely)).toEqual([]);
    expect(await brokenLedgerChain(storage, key.keyId)).toEqual([]);
  });

  it('one statement for many keys: a key that cannot cover its holds is declined, the others apply', async () => {
    const rich = await seedKey(storage, { balance: 1000 });
    const poor = await seedKey(storage, { balance: 50 });
    const item = (key: SeededKey, amount: number) => ({
      id: randomUUID(),
      keyId: key.keyId,
      accountId: key.accountId,
      modelId: 'gpt-4o-mini',
      amount,
      now: Date.now(),
      processId: null,
    });
    const result = await pgOpenMany(db.kysely, [
      item(rich, 100),
      item(poor, 40),
      item(rich, 200),
      item(poor, 40),
    ]);
    // Each accepted hold answers with the key's balance right after it, in arrival order.
    expect(result).toEqual([900, undefined, 700, undefined]);
    expect(await storage.keys.balanceOf(rich.keyId)).toEqual({ balance: 700, held: 300 });
    expect(await storage.keys.balanceOf(poor.keyId)).toEqual({ balance: 50, held: 0 });
    expect(await checkLedger(db.kysely)).toEqual([]);
    expect(await brokenLedgerChain(storage, rich.keyId)).toEqual([]);
    expect(await brokenLedgerChain(storage, poor.keyId)).toEqual([]);
  });

  it('a settlement without its hold is still an integrity error when batched', async () => {
    const key = await seedKey(storage, { balance: 1000 });
    const wrong = randomUUID();
    const right = randomUUID();
    expect(await open(key, wrong, 100)).toBe(true);
    expect(await open(key, right, 100)).toBe(true);
    const results = await Promise.allSettled([
      storage.chatBilling.settle(key.ref, wrong, 90, outcome(30)),
      storage.chatBilling.settle(key.ref, right, 100, outcome(30)),
      storage.chatBilling.settle(key.ref, right, 100, outcome(30)),
    ]);
    expect(results[0].status).toBe('rejected');
    // Settlements may run in two statements at once, so either of the two right ones may be first:
    // exactly one settles, the other finds it settled.
    expect(
      results
        .slice(1)
        .map((r) => (r.status === 'fulfilled' ? r.value : r.reason))
        .sort(),
    ).toEqual([false, true]);
    // The refused settlement moved nothing: its hold is still open.
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 870, held: 100 });
  });
});
