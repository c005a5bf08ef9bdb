// A chat settlement the database failed is run again, inline a few times and then in the background,
// so a live process does not keep a hold open until the 6-hour sweep; money still moves once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerIntegrityError } from '../../storage/ledger/ledger.js';
import { checkLedger } from '../../storage/ledger/ledger-check.js';
import { Storage } from '../../storage/storage.js';
import { ENGINES, openTestDb, type TestDb } from '../../testing/db.js';
import { seedKey } from '../../testing/storage-fixtures.js';
import { settleDurably } from './chat-call.js';

const lost = () => new Error('Connection terminated unexpectedly');

describe('settleDurably', () => {
  it('retries a failed settlement until the database takes it', async () => {
    let calls = 0;
    const settled = await settleDurably(async () => {
      if (++calls < 3) throw lost();
      return true;
    }, [1, 1, 1]);
    expect(settled).toBe(true);
    expect(calls).toBe(3);
  });

  it('never retries a ledger integrity error (a bug, not an outage)', async () => {
    let calls = 0;
    await expect(
      settleDurably(async () => {
        calls++;
        throw new LedgerIntegrityError('no such hold');
      }, [1, 1]),
    ).rejects.toBeInstanceOf(LedgerIntegrityError);
    expect(calls).toBe(1);
  });

  it('fails the request after its inline retries, then keeps retrying in the background', async () => {
    let calls = 0;
    let done!: () => void;
    const settledLater = new Promise<void>((resolve) => {
      done = resolve;
    });
    const attempt = async () => {
      if (++calls < 6) throw lost();
      done();
      return true;
    };
    await expect(settleDurably(attempt, [1, 1], 5)).rejects.toThrow(/Connection terminated/);
    expect(calls).toBe(3);
    await settledLater;
    expect(calls).toBe(6);
  });
});

describe.each(ENGINES)('settleDurably against the chat billing repository on %s', (engine) => {
  let db: TestDb;
  let storage: Storage;
  beforeAll(async () => {
    db = await openTestDb(engine);
    storage = Storage.from(db);
  });
  afterAll(async () => {
    expect(await checkLedger(storage.db)).toEqual([]);
    await db.dispose();
  });

  it('an error after the commit: the retry finds the row settled and moves nothing more', async () => {
    const key = await seedKey(storage, { balance: 1_000 });
    const id = `chat_durable_${engine}`;
    expect(await storage.chatBilling.open({ id, modelId: 'gpt-4o', ref: key.ref }, 300)).toBe(true);
    const outcome = {
      status: 'completed' as const,
      inputTokens: 5,
      outputTokens: 5,
      cost: 120,
      latencyMs: 1,
    };
    let calls = 0;
    const settled = await settleDurably(async () => {
      const applied = await storage.chatBilling.settle(key.ref, id, 300, outcome);
      // The first answer is lost on the way back, after the commit.
      if (++calls === 1) throw lost();
      return applied;
    }, [1]);
    expect(calls).toBe(2);
    expect(settled).toBe(false);
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 880, held: 0 });
    const kinds = (await storage.ledger.entriesForTask(id)).map((e) => [e.kind, Number(e.amount)]);
    expect(kinds).toEqual([
      ['hold', 300],
      ['capture', 120],
      ['release', 180],
    ]);
  });
});
