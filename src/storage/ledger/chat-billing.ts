// A chat request's money: its open hold (a chat_holds row, chat-holds.ts) is written together with
// the hold's ledger entry, and deleted together with the settlement (capture the cost, release the
// rest), which writes the request's usage row once, complete: each step atomically.
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
import { periodStarts } from '../../domain/keys/limits.js';
import { pgNoticeAfterMove } from '../balance-notice-sql.js';
import type { Engine } from '../db.js';
import { PgBatcher } from '../pg-batcher.js';
import { type PgChatOpen, type PgChatSettle, pgOpenMany, pgSettleMany } from '../pg-chat-batch.js';
import { commitsOn, type FlushBarrier } from '../pg-flush-barrier.js';
import { prepared } from '../prepared.js';
import { ChatHoldsRepository } from '../repositories/chat-holds.js';
import { type UsageOutcome, UsageRepository, withProvider } from '../repositories/usage.js';
import type { Database } from '../schema.js';
import { type KeyRef, LedgerIntegrityError, LedgerRepository } from './ledger.js';
import { pgHoldEntry, pgHoldMoved, pgSettleMoved, pgSettlementEntries } from './movements.js';
import { type PeriodStartValues, releaseSpendSet } from './spend-cap-sql.js';

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
  (_db, p: PgChatOpen & PeriodStartValues) => sql<{ balance: string }>`
    with ${pgHoldMoved(p)}, hold as (
      ${pgHoldEntry({ keyId: p.keyId, accountId: p.accountId, taskId: p.id, amount: p.amount, now: p.now })}
    ), opened as (
      insert into chat_holds (id, account_id, key_id, model_id, amount, process_id, created_at)
      select ${p.id}::text, ${p.accountId}::bigint, ${p.keyId}::bigint, ${p.modelId}::text, ${p.amount}::bigint,
             ${p.processId}::text, ${p.now}::bigint
      from moved
    )
    select balance from moved`,
);

/**
 * Closes the open hold only when it is the one expected (same key, same amount); the usage row is
 * written, the balances move and both entries are written only when it was. A racing settlement
 * waits for the hold row's lock, then finds it gone and changes nothing.
 */
const PG_SETTLE = prepared(
  (
    _db,
    p: ReturnType<typeof withProvider> & {
      id: string;
      keyId: number;
      accountId: number;
      holdAmount: number;
      released: number;
      now: number;
    },
  ) => sql<{ kind: string }>`
    with closed as (
      delete from chat_holds
      where id = ${p.id} and key_id = ${p.keyId} and amount = ${p.holdAmount}
      returning model_id, created_at
    ), usage as (
      insert into usage_records
        (id, account_id, key_id, model_id, input_tokens, output_tokens, cost, status, latency_ms, created_at,
         provider, provider_cost)
      select ${p.id}::text, ${p.accountId}::bigint, ${p.keyId}::bigint, model_id, ${p.inputTokens}::bigint,
             ${p.outputTokens}::bigint, ${p.cost}::bigint, ${p.status}::text, ${p.latencyMs}::bigint, created_at,
             ${p.provider}::text, ${p.providerCost}::bigint
      from closed
    ), ${pgSettleMoved(
      p,
      sql`exists (select 1 from closed)`,
      releaseSpendSet(null, p.released, sql`(select created_at from closed)`),
    )}, ${pgNoticeAfterMove({ taskId: p.id, keyId: p.keyId, accountId: p.accountId, lowered: p.cost, now: p.now })}
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

/** The balance PG_OPEN returned: null when the hold was refused. */
function balanceAfter({ rows }: { rows: { balance: string | number }[] }): number | null {
  return rows.length === 1 ? Number(rows[0].balance) : null;
}

/** A settlement that names an open hold of another key or amount: a bug in the caller. */
function wrongHold(id: string, holdAmount: number, keyId: number): LedgerIntegrityError {
  return new LedgerIntegrityError(`chat request ${id} has no hold of ${holdAmount} on key ${keyId}`);
}

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
  private readonly pgOpens = new PgBatcher<PgChatOpen, number | null>(
    async (values) =>
      balanceAfter(
        await this.commits.durably((db) => PG_OPEN(db, { ...values, ...periodStarts(values.now) })),
      ),
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
    const settled = await this.commits.durably((db) =>
      PG_SETTLE(db, { ...values, ...withProvider(values), released }),
    );
    if (settled.rows.length === 2) return true;
    // Not applied: already settled (false), or an open hold of another key or amount (a bug).
    if (await new ChatHoldsRepository(this.db).byId(values.id)) {
      throw wrongHold(values.id, values.holdAmount, values.keyId);
    }
    return false;
  }

  /**
   * Holds `amount` on the key and records the open hold, or neither: false when the balance does not
   * cover the amount (or the key is gone).
   */
  async open(opening: ChatOpening, amount: number): Promise<boolean> {
    return (await this.openReporting(opening, amount)) !== null;
  }

  /**
   * `open` that answers with the key's available balance right after the hold (what the caller may
   * expect of its next hold), or null when the hold was refused.
   */
  async openReporting(opening: ChatOpening, amount: number): Promise<number | null> {
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
      if (this.db.isTransaction)
        return balanceAfter(await PG_OPEN(this.db, { ...values, ...periodStarts(ref.now) }));
      return this.pgOpens.run(values);
    }
    return this.transact(async (trx) => {
      // The hold first: refused, it writes nothing, and no open hold is recorded.
      const balance = new LedgerRepository(trx, 'sqlite').holdReportingInSqliteTransaction(ref, id, amount);
      if (balance === null) return null;
      new ChatHoldsRepository(trx).openInSqliteTransaction({
        id,
        accountId: ref.accountId,
        keyId: ref.keyId,
        modelId,
        amount,
        now: ref.now,
        processId,
      });
      return balance;
    });
  }

  /**
   * Settles the request's open hold of `holdAmount`: captures `outcome.cost` (at most the hold),
   * releases the rest and writes the request's usage row with `outcome`. False, having changed
   * nothing, when the hold was no longer open (settled already, e.g. by a sweep). An open hold of
   * another key or amount is a bug in the caller: LedgerIntegrityError.
   */
  async settle(ref: KeyRef, id: string, holdAmount: number, outcome: UsageOutcome): Promise<boolean> {
    if (!Number.isSafeInteger(outcome.cost) || outcome.cost < 0 || outcome.cost > holdAmount)
      throw new LedgerIntegrityError(`chat cost ${outcome.cost} is not within the hold ${holdAmount}`);
    if (this.engine === 'postgres') {
      const values = {
        ...withProvider(outcome),
        id,
        keyId: ref.keyId,
        accountId: ref.accountId,
        holdAmount,
        now: ref.now,
      };
      return this.db.isTransaction ? this.settleOnPostgres(values) : this.pgSettles.run(values);
    }
    return this.transact(async (trx) => {
      const hold = new ChatHoldsRepository(trx).closeInSqliteTransaction(id);
      if (!hold) return false;
      // Throwing rolls the deletion back: the hold stays open for a correct settlement.
      if (Number(hold.key_id) !== ref.keyId || Number(hold.amount) !== holdAmount) {
        throw wrongHold(id, holdAmount, ref.keyId);
      }
      const request = {
        id,
        accountId: ref.accountId,
        keyId: ref.keyId,
        modelId: hold.model_id,
        createdAt: Number(hold.created_at),
      };
      new UsageRepository(trx).recordInSqliteTransaction(request, outcome);
      new LedgerRepository(trx, 'sqlite').settleInSqliteTransaction(ref, id, holdAmount, outcome.cost);
      return true;
    });
  }
}
