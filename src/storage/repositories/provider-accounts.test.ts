// Storage contract of provider accounts on every engine: max_concurrency is exact under concurrent
// place-taking, a place counts only while its task is processing, and a health change is a
// compare-and-set that never loses a concurrent outcome.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshHealth } from '../../domain/providers/breaker.js';
import { TaskEvents } from '../../services/tasks/events.js';
import { finalizeTask } from '../../services/tasks/finalize.js';
import type { TestKey } from '../../testing/app.js';
import { ENGINES, openTestDb, type TestDb } from '../../testing/db.js';
import { createTaskTestApp, expectLedgerClean, type TaskTestApp } from '../../testing/tasks.js';
import { type Db, openPostgres, openSqlite } from '../db.js';
import { ProviderAccountsRepository } from './provider-accounts.js';

describe.each(ENGINES)('provider accounts on %s', (engine) => {
  let app: TaskTestApp;
  let key: TestKey;
  let repo: ProviderAccountsRepository;
  let db: TestDb;
  /** A second connection to the same database, as another worker process holds. */
  let other: Db;
  let otherRepo: ProviderAccountsRepository;

  beforeAll(async () => {
    db = await openTestDb(engine);
    other = engine === 'sqlite' ? openSqlite(db.file as string) : openPostgres(db.url as string, 10);
    otherRepo = new ProviderAccountsRepository(other.kysely, engine);
    app = await createTaskTestApp({ engine, runner: false, db });
    key = await app.newKey({ balanceRub: 10_000 });
    repo = new ProviderAccountsRepository(app.ctx.storage.db, engine);
  });
  afterAll(async () => {
    const now = Date.now() + 60_000;
    const open = await app.ctx.storage.transaction((tx) => tx.tasks.claimDue('drain', now, 1_000, 1_000));
    for (const task of open)
      await finalizeTask(
        app.ctx.storage,
        new TaskEvents(),
        task.id,
        'drain',
        { status: 'failed', error: 'x' },
        now,
      );
    await expectLedgerClean(app);
    await other.close();
    await app.dispose();
    await db.dispose();
  });

  /** `n` tasks claimed by a worker (processing), as the runner holds them while it submits. */
  async function processing(n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const task = await app.ctx.tasks.create({
        key: await app.ctx.auth.authenticate(key.auth.authorization),
        params: { model_name: 'seedance-2' },
      });
      ids.push(task.id);
    }
    const claimed = await app.ctx.storage.transaction((tx) =>
      tx.tasks.claimDue('w1', Date.now() + 60_000, 60_000, 1_000),
    );
    expect(claimed.map((t) => t.id).sort()).toEqual([...ids].sort());
    return ids;
  }

  it('takes exactly max_concurrency places when 20 tasks race for them', async () => {
    const ids = await processing(20);
    const won = await Promise.all(ids.map((id) => repo.acquireSlot('acct-a', id, 3, Date.now())));
    expect(won.filter(Boolean)).toHaveLength(3);
    expect((await repo.inFlight()).get('acct-a')).toBe(3);
    // A task that already holds a place keeps it; a refused one is refused again.
    const holder = ids[won.indexOf(true)];
    expect(await repo.acquireSlot('acct-a', holder, 3, Date.now())).toBe(true);
    expect(await repo.acquireSlot('acct-a', ids[won.indexOf(false)], 3, Date.now())).toBe(false);
    // Given back: the next task gets it.
    await repo.releaseSlot(holder);
    expect(await repo.acquireSlot('acct-a', ids[won.indexOf(false)], 3, Date.now())).toBe(true);
    // No cap: every task gets a place, counted as in flight.
    const rest = ids.filter((_, i) => !won[i]).slice(1);
    expect(
      (await Promise.all(rest.map((id) => repo.acquireSlot('acct-b', id, undefined, Date.now())))).every(
        Boolean,
      ),
    ).toBe(true);
    expect((await repo.inFlight()).get('acct-b')).toBe(rest.length);
    // Moving to another account gives back the first place.
    await repo.acquireSlot('acct-b', ids[won.indexOf(true, won.indexOf(true) + 1)], undefined, Date.now());
    expect((await repo.inFlight()).get('acct-a')).toBe(2);
  });

  it('holds the cap across processes: two connections racing take exactly max_concurrency places', async () => {
    const ids = await processing(16);
    const won = await Promise.all(
      ids.map((id, i) => (i % 2 ? otherRepo : repo).acquireSlot('acct-x', id, 5, Date.now())),
    );
    expect(won.filter(Boolean)).toHaveLength(5);
    expect((await otherRepo.inFlight()).get('acct-x')).toBe(5);
  });

  it('a place counts only while its task is processing, and the sweep deletes the rest', async () => {
    const [done, running] = await processing(2);
    await repo.acquireSlot('acct-c', done, 2, Date.now());
    await repo.acquireSlot('acct-c', running, 2, Date.now());
    await finalizeTask(
      app.ctx.storage,
      new TaskEvents(),
      done,
      'w1',
      { status: 'failed', error: 'x' },
      Date.now(),
    );
    expect((await repo.inFlight()).get('acct-c')).toBe(1);
    const [next] = await processing(1);
    expect(await repo.acquireSlot('acct-c', next, 2, Date.now())).toBe(true);
    expect(await repo.sweepSlots()).toBeGreaterThanOrEqual(1);
    expect((await repo.inFlight()).get('acct-c')).toBe(2);
  });

  it('health rows: created once, changed by compare-and-set only', async () => {
    await repo.ensure(['acct-h'], freshHealth(1_000));
    await repo.ensure(['acct-h'], { ...freshHealth(2_000), state: 'down' });
    const stored = await repo.get('acct-h');
    expect(stored).toMatchObject({ version: 0, health: { state: 'up', windowStart: 1_000 } });
    const next = { ...stored!.health, state: 'cooling' as const, openUntil: 5_000 };
    const results = await Promise.all([
      repo.compareAndSet('acct-h', 0, next),
      repo.compareAndSet('acct-h', 0, { ...next, state: 'down' }),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const after = await repo.get('acct-h');
    expect(after?.version).toBe(1);
    expect(['cooling', 'down']).toContain(after?.health.state);
    expect(after?.health.openUntil).toBe(5_000);
  });
});
