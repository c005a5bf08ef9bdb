// LISTEN/NOTIFY wake-ups between processes sharing one PostgreSQL schema.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDb, type TestDb } from '../testing/db.js';
import { recordingKysely } from '../testing/recording-kysely.js';
import { HAVE_POSTGRES } from '../testing/services.js';
import { openPostgres } from './db.js';
import { NOTIFY_SPACING_MS, PgWakeups } from './pg-wakeups.js';

const until = async (check: () => boolean, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

/** A one-connection Kysely that counts the NOTIFYs sent through it (a query is logged once answered). */
function countingNotifies(url: string) {
  let sent = 0;
  const counting = recordingKysely(
    url,
    (text) => {
      if (text.includes('pg_notify')) sent++;
    },
    1,
  );
  return { counting, sent: () => sent };
}

/**
 * Runs `test` with an API process's wake-ups whose NOTIFYs are counted (`sent`) and a listening
 * worker's whose 'tasks' wake-ups are counted (`woken`), and closes all three connections after.
 */
async function withCountedPair(
  db: TestDb,
  test: (pair: { api: PgWakeups; sent: () => number; woken: () => number }) => Promise<void>,
): Promise<void> {
  const { counting, sent } = countingNotifies(db.url!);
  const api = new PgWakeups(counting, db.url!);
  const worker = new PgWakeups(db.kysely, db.url!);
  try {
    let woken = 0;
    worker.on('tasks', () => woken++);
    await worker.ready();
    await test({ api, sent, woken: () => woken });
  } finally {
    await api.close();
    await worker.close();
    await counting.destroy();
  }
}

describe.skipIf(!HAVE_POSTGRES)('LISTEN/NOTIFY wake-ups', () => {
  let db: TestDb;
  let other: TestDb;

  beforeAll(async () => {
    db = await openTestDb('postgres', { migrate: false });
    other = await openTestDb('postgres', { migrate: false });
  });
  afterAll(async () => {
    await db?.dispose();
    await other?.dispose();
  });

  it('a notify in one process wakes the listeners of another; a burst is coalesced; other schemas sleep', async () => {
    const apiDb = openPostgres(db.url!, 2);
    const api = new PgWakeups(apiDb.kysely, db.url!);
    const worker = new PgWakeups(db.kysely, db.url!);
    const stranger = new PgWakeups(other.kysely, other.url!);
    try {
      let tasks = 0;
      let webhooks = 0;
      let strangers = 0;
      worker.on('tasks', () => tasks++);
      worker.on('webhooks', () => webhooks++);
      stranger.on('tasks', () => strangers++);
      await Promise.all([worker.ready(), stranger.ready()]);
      // Each listener fires once when it connects (work may have come while no one listened).
      await until(() => tasks === 1 && webhooks === 1 && strangers === 1);
      for (let i = 0; i < 1000; i++) api.notify('tasks');
      await until(() => tasks >= 2);
      await new Promise((resolve) => setTimeout(resolve, 200));
      // 1,000 calls, a few NOTIFYs: at most one in flight and one more queued behind it.
      expect(tasks - 1).toBeLessThanOrEqual(3);
      expect(webhooks).toBe(1);
      expect(strangers).toBe(1);
      api.notify('webhooks');
      await until(() => webhooks === 2);
    } finally {
      await api.close();
      await worker.close();
      await stranger.close();
      await apiDb.close();
    }
  });

  it('a steady stream of wake-ups sends at most one NOTIFY per spacing interval, and the last one arrives', () =>
    withCountedPair(db, async ({ api, sent, woken }) => {
      const started = Date.now();
      // One wake-up asked for every millisecond for 100 ms.
      while (Date.now() - started < 100) {
        api.notify('tasks');
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      const elapsed = Date.now() - started;
      await until(() => woken() >= 2);
      await new Promise((resolve) => setTimeout(resolve, 4 * NOTIFY_SPACING_MS + 50));
      expect(sent()).toBeGreaterThanOrEqual(2);
      // Timers and Date.now() count whole milliseconds, so two sends can be 1 ms closer than the spacing.
      expect(sent()).toBeLessThanOrEqual(Math.ceil(elapsed / (NOTIFY_SPACING_MS - 1)) + 2);
    }));

  it('the calls of one turn of the event loop send one NOTIFY; a call while it is in flight sends one more', () =>
    withCountedPair(db, async ({ api, sent, woken }) => {
      await until(() => woken() === 1);
      // A batch of new tasks is announced one task at a time, each after an await of its own.
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          await Promise.resolve();
          api.notify('tasks');
        }),
      );
      await until(() => woken() === 2);
      await new Promise((resolve) => setTimeout(resolve, 4 * NOTIFY_SPACING_MS + 100));
      expect(sent()).toBe(1);
      expect(woken()).toBe(2);
      // Work announced while a NOTIFY is on its way gets one of its own after it.
      api.notify('tasks');
      await new Promise((resolve) => setImmediate(resolve));
      api.notify('tasks');
      // (A query is logged once its answer is back, which can be after the listener heard it.)
      await until(() => woken() === 4 && sent() === 3);
      await new Promise((resolve) => setTimeout(resolve, 4 * NOTIFY_SPACING_MS + 100));
      expect(sent()).toBe(3);
      expect(woken()).toBe(4);
    }));

  it('reconnects after its connection is killed, and wakes its listeners then', async () => {
    const worker = new PgWakeups(db.kysely, db.url!);
    try {
      let tasks = 0;
      worker.on('tasks', () => tasks++);
      await worker.ready();
      await until(() => tasks === 1);
      await sql`select pg_terminate_backend(pid) from pg_stat_activity
                where query like 'listen "gengate_%' || current_schema() || '"'
                  and pid <> pg_backend_pid() and datname = current_database()`.execute(db.kysely);
      // Reconnected: the listener fires again, and notifications arrive again.
      await until(() => tasks >= 2, 10_000);
      await worker.ready();
      const before = tasks;
      worker.notify('tasks');
      await until(() => tasks > before, 10_000);
    } finally {
      await worker.close();
    }
  });
});
