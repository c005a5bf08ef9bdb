// Chat billing on PostgreSQL commits on the relaxed pool (synchronous_commit off) without waiting for
// the flush; top-ups and the other unbatched writes run on the main pool.
import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDb, type TestDb } from '../testing/db.js';
import { recordingKysely } from '../testing/recording-kysely.js';
import { HAVE_POSTGRES } from '../testing/services.js';
import { seedKey } from '../testing/storage-fixtures.js';
import { openDatabase, openPostgres } from './db.js';
import { pgOpenMany } from './pg-chat-batch.js';
import type { Database } from './schema.js';
import { Storage } from './storage.js';

const setting = async (db: Kysely<Database>) =>
  (await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(db)).rows[0].synchronous_commit;

describe.skipIf(!HAVE_POSTGRES)('relaxed commits for chat billing on PostgreSQL', () => {
  let db: TestDb;

  beforeAll(async () => {
    db = await openTestDb('postgres');
  });
  afterAll(() => db?.dispose());

  it('the relaxed pool does not wait for the flush; the main pool does', async () => {
    expect(db.relaxed).toBeDefined();
    expect(await setting(db.relaxed!)).toBe('off');
    expect(await setting(db.kysely)).toBe('on');
  });

  it('the relaxed pool keeps index lookups in plans made while a table was small', async () => {
    // The batched settlement's lookup of open holds, planned generically on an empty chat_holds:
    // the main pool would scan the table whole, which fills with dead rows between vacuums.
    const plan = (pool: Kysely<Database>) =>
      pool.connection().execute(async (conn) => {
        const before = (
          await sql<{ mode: string }>`select current_setting('plan_cache_mode') as mode`.execute(conn)
        ).rows[0].mode;
        await sql`set plan_cache_mode = force_generic_plan`.execute(conn);
        await sql`prepare holds_lookup(text[]) as
          select h.id from chat_holds h join unnest($1::text[]) as i(id) on h.id = i.id`.execute(conn);
        try {
          const { rows } = await sql<{
            'QUERY PLAN': string;
          }>`explain execute holds_lookup(array['x'])`.execute(conn);
          return rows.map((row) => row['QUERY PLAN']).join('\n');
        } finally {
          await sql`deallocate holds_lookup`.execute(conn);
          // The pool's own setting, not the server default (RESET would give the server's).
          await sql`select set_config('plan_cache_mode', ${before}, false)`.execute(conn);
        }
      });
    expect(await plan(db.kysely)).toContain('Seq Scan on chat_holds');
    const relaxed = await plan(db.relaxed!);
    expect(relaxed).not.toContain('Seq Scan on chat_holds');
    expect(relaxed).toMatch(/Index (Only )?Scan using chat_holds_pkey/);
  });

  it('the relaxed pool plans each batched statement once, the main pool as PostgreSQL chooses', async () => {
    const mode = async (pool: Kysely<Database>) =>
      (await sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(pool)).rows[0].plan_cache_mode;
    expect(await mode(db.kysely)).toBe('auto');
    expect(await mode(db.relaxed!)).toBe('force_generic_plan');
    // The batched hold, which PostgreSQL left alone re-planned on every call.
    const key = await seedKey(Storage.from(db), { balance: 1_000_000 });
    const plans = await db.relaxed!.connection().execute(async (conn) => {
      for (let round = 0; round < 8; round++) {
        const items = [0, 1].map(() => ({
          id: randomUUID(),
          keyId: key.keyId,
          accountId: key.ref.accountId,
          modelId: 'gpt-4o-mini',
          amount: 10,
          now: Date.now(),
          processId: null,
        }));
        expect((await pgOpenMany(conn, items)).every((balance) => balance !== undefined)).toBe(true);
      }
      const { rows } = await sql<{ generic_plans: string; custom_plans: string }>`
        select generic_plans, custom_plans from pg_prepared_statements
        where statement like '%insert into chat_holds%'`.execute(conn);
      return rows.map((row) => ({ generic: Number(row.generic_plans), custom: Number(row.custom_plans) }));
    });
    // Named from its second call on (pg-named-statements.ts), then never planned again.
    expect(plans).toEqual([{ generic: 7, custom: 0 }]);
  });

  it('a server opened with PG_CHAT_SYNC_COMMIT keeps the relaxed pool (for the flush barrier) and says so', async () => {
    for (const pgChatSyncCommit of [false, true]) {
      const opened = openDatabase({ databaseUrl: db.url, dataDir: '/nonexistent', pgChatSyncCommit });
      try {
        expect(opened.relaxed).toBeDefined();
        expect(opened.chatSyncCommit).toBe(pgChatSyncCommit);
      } finally {
        await opened.close();
      }
    }
  });

  it('without relaxedCommits there is no relaxed pool', async () => {
    const strict = openPostgres(db.url!, 1);
    try {
      expect(strict.relaxed).toBeUndefined();
    } finally {
      await strict.close();
    }
  });

  it('chat holds and settlements go through the relaxed pool, with exact balances', async () => {
    const seen: string[] = [];
    const counting = recordingKysely(db.url!, (text) => seen.push(text));
    try {
      const storage = new Storage(db.kysely, 'postgres', false, counting);
      const key = await seedKey(storage, { balance: 1_000 });
      const id = randomUUID();
      const ref = { ...key.ref, now: Date.now() };
      expect(await storage.chatBilling.open({ id, modelId: 'gpt-4o-mini', ref }, 300)).toBe(true);
      expect(seen.some((text) => /insert into chat_holds/.test(text))).toBe(true);
      const outcome = {
        status: 'completed',
        inputTokens: 1,
        outputTokens: 2,
        cost: 120,
        latencyMs: 3,
      } as const;
      expect(await storage.chatBilling.settle(ref, id, 300, outcome)).toBe(true);
      expect(seen.some((text) => /insert into usage_records/.test(text))).toBe(true);
      expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 880, held: 0 });
      // Other money movements commit on the main pool.
      const before = seen.length;
      await storage.ledger.topup({ ...key.ref, now: Date.now() }, 1_000, 'top-up');
      expect(seen.length).toBe(before);
      expect(await storage.keys.balanceOf(key.keyId)).toEqual({ balance: 1_880, held: 0 });
    } finally {
      await counting.destroy();
    }
  });
});
