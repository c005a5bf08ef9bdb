// The batched hot statements commit on the relaxed pool and their callers are answered only once the
// WAL holding them is on disk; a server that refuses the barrier gets plain synchronous statements.
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDb, type TestDb } from '../testing/db.js';
import { recordingKysely } from '../testing/recording-kysely.js';
import { HAVE_POSTGRES } from '../testing/services.js';
import { newTaskRow, seedKey } from '../testing/storage-fixtures.js';
import { flushBarrier } from './pg-flush-barrier.js';
import type { Database } from './schema.js';
import { Storage } from './storage.js';

/** Records the SQL that `kysely` runs, in order, into `log` with `label`. */
const recording = (url: string, label: string, log: string[]) =>
  recordingKysely(url, (text) => log.push(`${label}: ${text.replace(/\s+/g, ' ').trim()}`));

const lsn = (text: string) => {
  const [high, low] = text.split('/');
  return BigInt(`0x${high}`) * 2n ** 32n + BigInt(`0x${low}`);
};

describe.skipIf(!HAVE_POSTGRES)('flush barrier on PostgreSQL', () => {
  let db: TestDb;
  const log: string[] = [];
  let strict: Kysely<Database>;
  let relaxed: Kysely<Database>;

  beforeAll(async () => {
    db = await openTestDb('postgres');
    strict = recording(db.url!, 'strict', log);
    relaxed = recording(db.url!, 'relaxed', log);
    await sql`set synchronous_commit = off`.execute(relaxed);
  });
  afterAll(async () => {
    await strict?.destroy();
    await relaxed?.destroy();
    await db?.dispose();
  });

  it('a new task and its hold: written on the relaxed pool, answered after a barrier on the strict one', async () => {
    const storage = new Storage(db.kysely, 'postgres', false, db.relaxed);
    const key = await seedKey(storage, { balance: 1_000 });
    log.length = 0;
    const tasks = new Storage(strict, 'postgres', false, relaxed).tasks;
    expect(await tasks.insertWithHold(newTaskRow(key, 300))).toBe(true);
    const insert = log.findIndex((line) => line.startsWith('relaxed:') && line.includes('insert into tasks'));
    // The first call also tries the barrier once before anything else (the probe).
    const barrier = log.findLastIndex(
      (line) => line.startsWith('strict:') && line.includes('pg_logical_emit_message'),
    );
    expect(insert).toBeGreaterThanOrEqual(0);
    expect(barrier).toBeGreaterThan(insert);
    expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 700, held: 300 });
  });

  it('once durably() answers, the WAL is flushed past the statement', async () => {
    const barrier = flushBarrier(strict, relaxed);
    for (let i = 0; i < 20; i++) {
      const written = await barrier.durably(async (conn) => {
        await sql`select pg_logical_emit_message(true, 'gengate-test', ${String(i)})`.execute(conn);
        return (await sql<{ at: string }>`select pg_current_wal_insert_lsn()::text as at`.execute(conn))
          .rows[0].at;
      });
      const { rows } = await sql<{
        flushed: string;
      }>`select pg_current_wal_flush_lsn()::text as flushed`.execute(db.kysely);
      expect(lsn(rows[0].flushed)).toBeGreaterThanOrEqual(lsn(written));
    }
  });

  it('a server that refuses the barrier gets plain synchronous statements', async () => {
    const refused = Object.assign(new Error('permission denied'), { code: '42501' });
    const barrier = flushBarrier(strict, relaxed, async () => {
      throw refused;
    });
    const on: string[] = [];
    for (let i = 0; i < 2; i++)
      await barrier.durably(async (conn) => on.push(conn === strict ? 'strict' : 'relaxed'));
    expect(on).toEqual(['strict', 'strict']);
  });

  it('PG_CHAT_SYNC_COMMIT: chat holds and settlements go through the barrier too', async () => {
    const storage = new Storage(strict, 'postgres', false, relaxed, true);
    const key = await seedKey(new Storage(db.kysely, 'postgres'), { balance: 1_000 });
    log.length = 0;
    const ref = { ...key.ref, now: Date.now() };
    expect(await storage.chatBilling.open({ id: 'chat_sync_1', modelId: 'gpt-4o-mini', ref }, 100)).toBe(
      true,
    );
    const outcome = { status: 'completed', inputTokens: 1, outputTokens: 1, cost: 40, latencyMs: 1 } as const;
    expect(await storage.chatBilling.settle(ref, 'chat_sync_1', 100, outcome)).toBe(true);
    const kinds = log.map((line) =>
      line.includes('pg_logical_emit_message')
        ? 'barrier'
        : line.startsWith('relaxed:')
          ? 'relaxed'
          : 'other',
    );
    expect(kinds.filter((kind) => kind !== 'other')).toEqual([
      'barrier',
      'relaxed',
      'barrier',
      'relaxed',
      'barrier',
    ]);
  });
});
