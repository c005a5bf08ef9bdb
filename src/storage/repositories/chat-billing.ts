// A chat request's money: its usage row is opened together with its hold, and completed together
// with its settlement (capture the cost, release the rest), each pair atomically.
// - PostgreSQL: each pair is ONE statement (data-modifying CTEs) that commits by itself. The key row,
//   which every request of the key must lock, stays locked for that statement and its commit, not
//   for a transaction's four or five round trips: BEGIN, statements, COMMIT.
// - SQLite: the usage and ledger repositories' statements in one transaction, which group commit
//   shares with the transactions that arrive alongside (see group-commit.ts). They run
//   synchronously on the connection the transaction holds (`…InSqliteTransaction`): a promise
//   between statements cost about 10 µs of CPU per chat request (bench/NOTES.md, round 4).
// Called inside an open transaction, both join it. Outside one, on PostgreSQL, they commit on the
// relaxed pool when there is one (Db.relaxed): the commit does not wait for the WAL flush, or, with
// PG_CHAT_SYNC_COMMIT, waits for it through a flush barrier (pg-flush-barrier.ts).
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Engine } from '../db.js';
import { PgBatcher } from '../pg-batcher.js';
import { type PgChatOpen, type PgChatSettle, pgOpenMany, pgSettleMany } from '../pg-chat-batch.js';
import { type FlushBarrier, commitsOn } from '../pg-flush-barrier.js';
import { prepared } from '../prepared.js';
import type { Database } from '../schema.js';
import { type KeyRef, LedgerIntegrityError, LedgerRepository, pgSettlementEntries } from './ledger.js';
import { type UsageOutcome, UsageRepository } from './usage.js';

export interface ChatOpening {
  /** The usage row id, also the ledger's reference for the hold. */
  id: string;
  modelId: string;
  ref: KeyRef;
  /** The process serving the request, whose lease keeps the hold open (null: no lease). */
  processId?: string | null;
}

/** Runs work in a (group-committed) transaction, with the database handle bound to it. */
type Transact = <T>(work: (trx: Kysely<Database>) => Promise<T>) => Promise<T>;

const PG_OPEN = prepared(
  (
    _db,
    p: {
      id: string;
      keyId: number;
      accountId: number;
      modelId: string;
      amount: number;
      now: number;
      processId: string | null;
    },
  ) => sql<{ id: string }>`
    with moved as (
      update api_keys
      set balance = balance - ${p.amount}, held = held + ${p.amount}, updated_at = ${p.now}
      where id = ${p.keyId} and deleted_at is null and balance >= ${p.amount}
      returning balance, held
    ), hold as (
      insert into ledger_entries
        (key_id, account_id, task_id, kind, amount, balance_after, held_after, note, created_at)
      select ${p.keyId}::bigint, ${p.accountId}::bigint, ${p.id}::text, 'hold', ${p.amount}::bigint,
             balance, held, null, ${p.now}::bigint
      from moved
    )
    insert into usage_records
      (id, account_id, key_id, model_id, input_tokens, output_tokens, cost, status, latency_ms, created_at,
       process_id)
    select ${p.id}::text, ${p.accountId}::bigint, ${p.keyId}::bigint, ${p.modelId}::text, 0, 0, 0,
           'pending', 0, ${p.now}::bigint, ${p.processId}::text
    from moved
    returning id`,
);

/**
 * Completes the usage row only while it is pending and its hold is the one expected (same key, same
 * amount); the balances move and both entries are written only when it was. A racing settlement
 * waits for the usage row's lock, then finds it no longer pending and changes nothing.
 */
const PG_SETTLE = prepared(
  (
    _db,
    p: UsageOutcome & {
      id: string;
      keyId: number;
      accountId: number;
      holdAmount: number;
      released: number;
      now: number;
    },
  ) => sql<{ kind: string }>`
    with finished as (
      update usage_records
      set status = ${p.status}, input_tokens = ${p.inputTokens}, output_tokens = ${p.outputTokens},
          cost = ${p.cost}, latency_ms = ${p.latencyMs}
      where id = ${p.id} and status = 'pending'
        and exists (select 1 from ledger_entries where task_id = ${p.id} and kind = 'hold'
                    and key_id = ${p.keyId} and amount = ${p.holdAmount})
      returning id
    ), moved as (
      update api_keys
      set held = held - ${p.holdAmount}, balance = balance + ${p.released}, updated_at = ${p.now}
      where id = ${p.keyId} and exists (select 1 from finished)
      returning balance, held
    )
    ${pgSettlementEntries({
      // Field by field: the values are placeholders read through a proxy, which a spread would miss.
      keyId: p.keyId,
      accountId: p.accountId,
      taskId: p.id,
      captured: p.cost,
      released: p.released,
      now: p.now,
    })}`,
);

const PG_USAGE_STATUS = prepared((db, p: { id: string }) =>
  db.selectFrom('usage_records').select('status').where('id', '=', p.id),
);

export class ChatBillingRepository {
  /** How the batched holds and settlements commit (Storage decides: relaxed, or with a flush barrier). */
  private readonly commits: FlushBarrier;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: Engine,
    private readonly transact: Transact,
    commits?: FlushBarrier,
  ) {
    this.commits = commits ?? commitsOn(db);
  }

  // PostgreSQL, outside a transaction: the holds and the settlements that arrive while one is in
  // flight go to the database as one statement each (pg-batcher.ts, pg-chat-batch.ts).
  private readonly pgOpens = new PgBatcher<PgChatOpen, boolean>(
    async (values) => (await this.commits.durably((db) => PG_OPEN(db, values))).rows.length === 1,
    (items) => this.commits.durably((db) => pgOpenMany(db, items)),
  );
  // One statement in flight, as for holds: every settlement of a hot key locks its row, so a second
  // statement only waited for the first and halved the batches (bench/NOTES.md, round 6).
  private readonly pgSettles = new PgBatcher<PgChatSettle, boolean>(
    (values) => this.settleOnPostgres(values),
    (items) => this.commits.durably((db) => pgSettleMany(db, items)),
  );

  // Inside a transaction `commits` runs the statement in it; outside, as the batched statements commit.
  private async settleOnPostgres(values: PgChatSettle): Promise<boolean> {
    const released = values.holdAmount - values.cost;
    const settled = await this.commits.durably((db) => PG_SETTLE(db, { ...values, released }));
    if (settled.rows.length === 2) return true;
    const { rows } = await PG_USAGE_STATUS(this.db, { id: values.id });
    if (rows[0]?.status === 'pending') {
      throw new LedgerIntegrityError(
        `chat request ${values.id} has no hold of ${values.holdAmount} on key ${values.keyId}`,
      );
    }
    return false;
  }

  /**
   * Writes the pending usage row and holds `amount` on the key, or neither: false when the balance
   * does not cover the amount (or the key is gone).
   */
  async open(opening: ChatOpening, amount: number): Promise<boolean> {
    if (!Number.isSafeInteger(amount) || amount < 0)
      throw new LedgerIntegrityError(`hold amount must be a non-negative integer, got ${amount}`);
    const { id, modelId, ref } = opening;
    const processId = opening.processId ?? null;
    if (this.engine === 'postgres') {
      const values = {
        id,
        keyId: ref.keyId,
        accountId: ref.accountId,
        modelId,
        amount,
        now: ref.now,
        processId,
      };
      if (this.db.isTransaction) return (await PG_OPEN(this.db, values)).rows.length === 1;
      return this.pgOpens.run(values);
    }
    return this.transact(async (trx) => {
      // The hold first: refused, it writes nothing, and neither does the usage row.
      if (!new LedgerRepository(trx, 'sqlite').holdInSqliteTransaction(ref, id, amount)) return false;
      new UsageRepository(trx).createPendingInSqliteTransaction({ ...ref, id, modelId, processId });
      return true;
    });
  }

  /**
   * Completes the pending usage row with `outcome` and settles its hold of `holdAmount`: captures
   * `outcome.cost` (at most the hold) and releases the rest. False, having changed nothing, when the
   * row was no longer pending (settled already, e.g. by the janitor). A pending row without that
   * hold is a bug in the caller: LedgerIntegrityError.
   */
  async settle(ref: KeyRef, id: string, holdAmount: number, outcome: UsageOutcome): Promise<boolean> {
    if (!Number.isSafeInteger(outcome.cost) || outcome.cost < 0 || outcome.cost > holdAmount)
      throw new LedgerIntegrityError(`chat cost ${outcome.cost} is not within the hold ${holdAmount}`);
    if (this.engine === 'postgres') {
      const values = { ...outcome, id, keyId: ref.keyId, accountId: ref.accountId, holdAmount, now: ref.now };
      return this.db.isTransaction ? this.settleOnPostgres(values) : this.pgSettles.run(values);
    }
    return this.transact(async (trx) => {
      if (!new UsageRepository(trx).finishInSqliteTransaction(id, outcome)) return false;
      // The row was pending, so its hold is open; anything else throws and rolls the row back.
      new LedgerRepository(trx, 'sqlite').settleInSqliteTransaction(ref, id, holdAmount, outcome.cost);
      return true;
    });
  }
}
