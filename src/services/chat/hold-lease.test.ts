// Chat holds of a dead process, on every engine: each hold names its process, a live process keeps
// its lease, and once the lease has run out another process releases the hold, exactly once.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../../storage/ledger/ledger-check.js';
import { ProcessLeaseRepository } from '../../storage/repositories/process-leases.js';
import { Storage } from '../../storage/storage.js';
import { ENGINES, openTestDb, type TestDb } from '../../testing/db.js';
import { type SeededKey, seedKey } from '../../testing/storage-fixtures.js';
import { releaseHoldsOfDeadProcesses } from './abandoned-holds.js';
import { ChatHoldLease } from './hold-lease.js';

const LEASE_MS = 60_000;

describe.each(ENGINES)('chat hold leases on %s', (engine) => {
  let db: TestDb;
  let storage: Storage;
  let leases: ProcessLeaseRepository;
  let nextId = 0;
  const clock = { t: 1_000_000, now: () => clock.t };
  const processes: ChatHoldLease[] = [];

  beforeAll(async () => {
    db = await openTestDb(engine);
    storage = Storage.from(db);
    leases = new ProcessLeaseRepository(storage.db);
  });
  // Each test starts with no process and no open hold of an earlier one.
  afterEach(async () => {
    for (const p of processes.splice(0)) await p.close();
    await releaseHoldsOfDeadProcesses(storage, clock.t);
  });
  afterAll(async () => {
    expect(await checkLedger(storage.db)).toEqual([]);
    await db.dispose();
  });

  /** A process's lease; its timer never fires within a test (LEASE_MS / 3 = 20 s), beats are explicit. */
  const aProcess = async () => {
    const lease = new ChatHoldLease({ storage, clock }, { leaseMs: LEASE_MS });
    processes.push(lease);
    await lease.start();
    return lease;
  };
  const openHold = async (key: SeededKey, owner: ChatHoldLease, amount = 300) => {
    const id = `chat_lease_${engine}_${nextId++}`;
    const opened = await storage.chatBilling.open(
      { id, modelId: 'gpt-4o', ref: { ...key.ref, now: clock.t }, processId: owner.processId },
      amount,
    );
    expect(opened).toBe(true);
    return id;
  };
  const usage = (key: SeededKey, id: string) => storage.usage.byId(key.accountId, id);
  const openHoldRow = (id: string) => storage.chatHolds.byId(id);

  it('records the process of every open hold and its lease', async () => {
    const owner = await aProcess();
    const key = await seedKey(storage, { balance: 1_000 });
    const id = await openHold(key, owner);
    expect(await openHoldRow(id)).toMatchObject({ process_id: owner.processId });
    expect(await leases.expiresAt(owner.processId)).toBe(clock.t + LEASE_MS);
    expect(owner.live).toBe(true);
  });

  it('keeps the holds of a process whose lease is alive, and releases them once it ran out', async () => {
    const [owner, other] = [await aProcess(), await aProcess()];
    const key = await seedKey(storage, { balance: 1_000 });
    const id = await openHold(key, owner);

    // The owner's heartbeat keeps its lease a LEASE_MS ahead.
    clock.t += LEASE_MS - 1;
    await owner.beat();
    clock.t += LEASE_MS - 1;
    expect(await other.beat()).toEqual({ released: 0 });
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 700, held: 300 });

    // The owner dies: no more renewals. One millisecond past its lease, the other releases the hold.
    clock.t += 2;
    await other.beat();
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 1_000, held: 0 });
    expect(await usage(key, id)).toMatchObject({ status: 'failed', cost: 0 });
    const entries = (await storage.ledger.entriesForTask(id)).filter((e) => Number(e.amount) > 0);
    expect(entries.map((e) => [e.kind, Number(e.amount)])).toEqual([
      ['hold', 300],
      ['release', 300],
    ]);
  });

  it('releases each hold exactly once when several processes sweep at the same time', async () => {
    const dead = await aProcess();
    const sweepers = [await aProcess(), await aProcess(), await aProcess()];
    const key = await seedKey(storage, { balance: 10_000 });
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await openHold(key, dead, 1_000));
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 5_000, held: 5_000 });

    clock.t += LEASE_MS + 1;
    const results = await Promise.all(sweepers.flatMap((s) => [s.beat(), s.beat()]));
    expect(results.reduce((sum, r) => sum + r.released, 0)).toBe(5);
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 10_000, held: 0 });
    for (const id of ids) {
      const releases = (await storage.ledger.entriesForTask(id)).filter((e) => e.kind === 'release');
      expect(releases.map((e) => Number(e.amount))).toEqual([1_000]);
    }
  });

  it('a late settlement by a process that was only stalled moves nothing', async () => {
    const [stalled, other] = [await aProcess(), await aProcess()];
    const key = await seedKey(storage, { balance: 1_000 });
    const id = await openHold(key, stalled);
    clock.t += LEASE_MS + 1;
    expect(await other.beat()).toEqual({ released: 1 });
    const settled = await storage.chatBilling.settle({ ...key.ref, now: clock.t }, id, 300, {
      status: 'completed',
      inputTokens: 10,
      outputTokens: 10,
      cost: 200,
      latencyMs: 1,
    });
    expect(settled).toBe(false);
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 1_000, held: 0 });
    // Its next heartbeat takes the lease again; its new holds are safe.
    await stalled.beat();
    const next = await openHold(key, stalled);
    await other.beat();
    expect(await openHoldRow(next)).toBeDefined();
  });

  it('a clean shutdown gives the lease up, so its holds are released at the next sweep', async () => {
    const [closing, other] = [await aProcess(), await aProcess()];
    const key = await seedKey(storage, { balance: 1_000 });
    const id = await openHold(key, closing);
    await closing.close();
    expect(await leases.expiresAt(closing.processId)).toBeUndefined();
    await other.beat();
    expect(await usage(key, id)).toMatchObject({ status: 'failed' });
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 1_000, held: 0 });
  });

  it('forgets expired leases once no open hold names them; rows of live processes stay', async () => {
    const [gone, live] = [await aProcess(), await aProcess()];
    clock.t += LEASE_MS + 1;
    // `live` renews and sweeps: the lease of `gone` ran out and names no open hold any more.
    await live.beat();
    expect(await leases.expiresAt(gone.processId)).toBeUndefined();
    expect(await leases.expiresAt(live.processId)).toBe(clock.t + LEASE_MS);
  });

  it('leaves holds without a process (opened before leases existed) to the 6-hour sweep', async () => {
    const sweeper = await aProcess();
    const key = await seedKey(storage, { balance: 1_000 });
    const id = `chat_ownerless_${engine}`;
    expect(
      await storage.chatBilling.open({ id, modelId: 'gpt-4o', ref: { ...key.ref, now: clock.t } }, 100),
    ).toBe(true);
    clock.t += LEASE_MS * 10;
    await sweeper.beat();
    expect(await openHoldRow(id)).toMatchObject({ process_id: null });
    // Closed here so that the ledger check of afterAll sees no stray hold.
    const { releaseAbandonedChatHolds, ABANDONED_CHAT_HOLD_MS } = await import('./abandoned-holds.js');
    expect(await releaseAbandonedChatHolds(storage, clock.t + ABANDONED_CHAT_HOLD_MS)).toBeGreaterThanOrEqual(
      1,
    );
    expect(await usage(key, id)).toMatchObject({ status: 'failed' });
  });
});
