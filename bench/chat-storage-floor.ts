// The floor under bench/chat-storage.ts: the statements of a chat request's hold and settlement, as
// gengate runs them on SQLite (openOnSqlite and settleOnSqlite of chat-billing.ts), straight on a
// better-sqlite3 connection with nothing around them: no Storage, no group commit, no promises.
// One request at a time, each transaction alone; or N at a time, the way group commit runs them
// (one BEGIN…COMMIT, a SAVEPOINT per transaction). What the two scripts differ by is what gengate's
// storage layer adds; this one is what SQLite itself costs for a durable hold and settlement with
// this schema, on this machine.
import type BetterSqlite3 from 'better-sqlite3';
import { uuidV7 } from '../src/domain/ids.js';
import { openOnSqlite, settleOnSqlite } from '../src/storage/repositories/chat-billing.js';
import type { KeyRef } from '../src/storage/repositories/ledger.js';
import type { SqliteStatement } from '../src/storage/sqlite-direct.js';

/** µs per chat request (hold + settlement) with `inFlight` requests sharing each commit. */
export function measureFloor(
  raw: BetterSqlite3.Database,
  ref: KeyRef,
  requests: number,
  inFlight: number,
): number {
  const cache = new Map<string, BetterSqlite3.Statement>();
  const statement = (sql: string): SqliteStatement => {
    let prepared = cache.get(sql);
    if (!prepared) {
      prepared = raw.prepare(sql);
      cache.set(sql, prepared);
    }
    return prepared;
  };
  const outcome = { status: 'completed' as const, inputTokens: 12, outputTokens: 11, cost: 10, latencyMs: 1 };
  const inOneCommit = (ids: string[], work: (id: string) => void) => {
    statement('begin immediate').run([]);
    for (const id of ids) {
      if (ids.length === 1) work(id);
      else {
        statement('savepoint g').run([]);
        work(id);
        statement('release g').run([]);
      }
    }
    statement('commit').run([]);
  };

  const started = process.hrtime.bigint();
  for (let done = 0; done < requests; done += inFlight) {
    // Ids made as the requests start, like the server's (see chat-storage.ts).
    const ids = Array.from({ length: Math.min(inFlight, requests - done) }, () => `chat_${uuidV7()}`);
    inOneCommit(ids, (id) => {
      if (!openOnSqlite(statement, { id, modelId: 'gpt-4o-mini', ref }, 1_000))
        throw new Error('hold refused');
    });
    inOneCommit(ids, (id) => {
      if (!settleOnSqlite(statement, ref, id, 1_000, outcome)) throw new Error('not settled');
    });
  }
  return Number(process.hrtime.bigint() - started) / requests / 1000;
}
