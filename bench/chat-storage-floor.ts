// The floor under bench/chat-storage.ts: the same statements of a chat request's hold and settlement
// (as Kysely compiles them for SQLite), run straight on a better-sqlite3 connection with nothing in
// between: no Storage, no repositories, no promises. One request at a time, each transaction alone;
// and 32 at a time, the way group commit runs them (one BEGIN…COMMIT, a SAVEPOINT per transaction).
// The difference between the two scripts is what gengate's storage layer adds; this one is what
// SQLite itself costs for a durable hold and settlement with this schema, on this machine.
import type BetterSqlite3 from 'better-sqlite3';
import { uuidV7 } from '../src/domain/ids.js';

const USAGE_PENDING = `insert into "usage_records" ("id", "account_id", "key_id", "model_id", "input_tokens",
  "output_tokens", "cost", "status", "latency_ms", "created_at") values (?, ?, ?, ?, 0, 0, 0, 'pending', 0, ?)`;
const HOLD = `update "api_keys" set "balance" = balance - ?, "held" = held + ?, "updated_at" = ?
  where "id" = ? and "deleted_at" is null and "balance" >= ? returning "balance", "held"`;
const ENTRY_COLUMNS = `("key_id", "account_id", "task_id", "kind", "amount", "balance_after", "held_after", "note", "created_at")`;
const APPEND = `insert into "ledger_entries" ${ENTRY_COLUMNS} values (?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const USAGE_FINISH = `update "usage_records" set "status" = ?, "input_tokens" = ?, "output_tokens" = ?, "cost" = ?,
  "latency_ms" = ? where "id" = ? and "status" = 'pending'`;
const SETTLE_IF_HELD = `update "api_keys" set "held" = held - ?, "balance" = balance + ?, "updated_at" = ?
  where "id" = ? and (exists (select 1 from "ledger_entries" where "task_id" = ? and "kind" = 'hold'
  and "key_id" = ? and "amount" = ?) and not exists (select 1 from "ledger_entries" where "task_id" = ?
  and "kind" in ('capture', 'release'))) returning "balance", "held"`;
const APPEND_TWO = `insert into "ledger_entries" ${ENTRY_COLUMNS} values (?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?)`;

interface Balances {
  balance: number;
  held: number;
}

/** µs per chat request (hold + settlement) with `inFlight` requests sharing each commit. */
export function measureFloor(
  raw: BetterSqlite3.Database,
  ref: { keyId: number; accountId: number; now: number },
  requests: number,
  inFlight: number,
): number {
  const s = (sql: string) => raw.prepare(sql);
  const [usagePending, hold, append, usageFinish, settleIfHeld, appendTwo] = [
    USAGE_PENDING,
    HOLD,
    APPEND,
    USAGE_FINISH,
    SETTLE_IF_HELD,
    APPEND_TWO,
  ].map(s);
  const [begin, commit, savepoint, release] = ['begin immediate', 'commit', 'savepoint g', 'release g'].map(
    s,
  );
  const { keyId, accountId, now } = ref;
  const holdAmount = 1_000;
  const cost = 10;
  const released = holdAmount - cost;

  const openOne = (id: string) => {
    usagePending.run(id, accountId, keyId, 'gpt-4o-mini', now);
    const after = hold.get(holdAmount, holdAmount, now, keyId, holdAmount) as Balances;
    append.run(keyId, accountId, id, 'hold', holdAmount, after.balance, after.held, null, now);
  };
  const settleOne = (id: string) => {
    usageFinish.run('completed', 12, 11, cost, 1, id);
    const after = settleIfHeld.get(holdAmount, released, now, keyId, id, keyId, holdAmount, id) as Balances;
    appendTwo.run(
      ...[keyId, accountId, id, 'capture', cost, after.balance - released, after.held + released, null, now],
      ...[keyId, accountId, id, 'release', released, after.balance, after.held, null, now],
    );
  };
  const inOneCommit = (ids: string[], work: (id: string) => void) => {
    begin.run();
    for (const id of ids) {
      if (ids.length === 1) work(id);
      else {
        savepoint.run();
        work(id);
        release.run();
      }
    }
    commit.run();
  };

  const started = process.hrtime.bigint();
  for (let done = 0; done < requests; done += inFlight) {
    // Ids made as the requests start, like the server's (see chat-storage.ts).
    const ids = Array.from({ length: Math.min(inFlight, requests - done) }, () => `chat_${uuidV7()}`);
    inOneCommit(ids, openOne);
    inOneCommit(ids, settleOne);
  }
  return Number(process.hrtime.bigint() - started) / requests / 1000;
}
