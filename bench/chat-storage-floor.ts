// The floor under bench/chat-storage.ts: the statements of a chat request's hold and settlement
// (the usage and ledger repositories' synchronous SQLite methods that ChatBillingRepository calls),
// in one plain Kysely transaction per batch: no Storage, no group commit, no promise per request.
// One request at a time, each transaction alone; or N at a time, the way group commit runs them
// (one BEGIN…COMMIT, a SAVEPOINT per transaction). What the two scripts differ by is what gengate's
// transaction plumbing adds; this one is what SQLite costs for a durable hold and settlement with
// this schema, on this machine.
import { type Kysely, sql } from 'kysely';
import { uuidV7 } from '../src/domain/ids.js';
import { type KeyRef, LedgerRepository } from '../src/storage/ledger/ledger.js';
import { prepared } from '../src/storage/prepared.js';
import { ChatHoldsRepository } from '../src/storage/repositories/chat-holds.js';
import { UsageRepository } from '../src/storage/repositories/usage.js';
import type { Database } from '../src/storage/schema.js';

const SAVEPOINT = prepared(() => sql`savepoint g`);
const RELEASE = prepared(() => sql`release g`);

/** µs per chat request (hold + settlement) with `inFlight` requests sharing each commit. */
export async function measureFloor(
  db: Kysely<Database>,
  ref: KeyRef,
  requests: number,
  inFlight: number,
): Promise<number> {
  const outcome = { status: 'completed' as const, inputTokens: 12, outputTokens: 11, cost: 10, latencyMs: 1 };
  const inOneCommit = (ids: string[], work: (trx: Kysely<Database>, id: string) => void) =>
    db.transaction().execute(async (trx) => {
      for (const id of ids) {
        if (ids.length === 1) work(trx, id);
        else {
          SAVEPOINT.direct(trx, {});
          work(trx, id);
          RELEASE.direct(trx, {});
        }
      }
    });

  const started = process.hrtime.bigint();
  for (let done = 0; done < requests; done += inFlight) {
    // Ids made as the requests start, like the server's (see chat-storage.ts).
    const ids = Array.from({ length: Math.min(inFlight, requests - done) }, () => `chat_${uuidV7()}`);
    await inOneCommit(ids, (trx, id) => {
      if (!new LedgerRepository(trx, 'sqlite').holdInSqliteTransaction(ref, id, 1_000))
        throw new Error('hold refused');
      const opening = { ...ref, id, modelId: 'gpt-4o-mini', amount: 1_000, processId: null };
      new ChatHoldsRepository(trx).openInSqliteTransaction(opening);
    });
    await inOneCommit(ids, (trx, id) => {
      const hold = new ChatHoldsRepository(trx).closeInSqliteTransaction(id);
      if (!hold) throw new Error('no open hold');
      const request = { ...ref, id, modelId: hold.model_id, createdAt: Number(hold.created_at) };
      new UsageRepository(trx).recordInSqliteTransaction(request, outcome);
      new LedgerRepository(trx, 'sqlite').settleInSqliteTransaction(ref, id, 1_000, outcome.cost);
    });
  }
  return Number(process.hrtime.bigint() - started) / requests / 1000;
}
