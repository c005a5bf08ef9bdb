// The storage facade: repositories bound to either the database or an open transaction.
// Use cases that move money call `transaction` and use only the repositories of `tx`.
import type { Kysely } from 'kysely';
import type { Db, Engine } from './db.js';
import { GroupCommit } from './group-commit.js';
import { ChatBillingRepository } from './ledger/chat-billing.js';
import { KeyLedgerRepository } from './ledger/key-ledger.js';
import { LedgerRepository } from './ledger/ledger.js';
import { commitsOn, flushBarrier } from './pg-flush-barrier.js';
import { PgGroupCommit } from './pg-group-commit.js';
import { AccountsRepository } from './repositories/accounts.js';
import { AnalyticsRepository } from './repositories/analytics.js';
import { AuditRepository } from './repositories/audit.js';
import { ChatHoldsRepository } from './repositories/chat-holds.js';
import { IdempotencyRepository } from './repositories/idempotency.js';
import { KeysRepository } from './repositories/keys.js';
import { MarginRepository } from './repositories/margin.js';
import { ModelsRepository } from './repositories/models.js';
import { OperatorRepository } from './repositories/operator.js';
import { SettingsRepository } from './repositories/settings.js';
import { type TaskRow, TasksRepository } from './repositories/tasks.js';
import { TopupsRepository } from './repositories/topups.js';
import { UsageRepository } from './repositories/usage.js';
import { WebhooksRepository } from './repositories/webhooks.js';
import type { Database } from './schema.js';

export class Storage {
  readonly accounts: AccountsRepository;
  readonly keys: KeysRepository;
  readonly ledger: LedgerRepository;
  /** One key's ledger history for its owner (filters, pages). */
  readonly keyLedger: KeyLedgerRepository;
  readonly models: ModelsRepository;
  readonly settings: SettingsRepository;
  readonly audit: AuditRepository;
  readonly tasks: TasksRepository;
  readonly idempotency: IdempotencyRepository;
  readonly webhooks: WebhooksRepository;
  readonly usage: UsageRepository;
  readonly chatHolds: ChatHoldsRepository;
  readonly analytics: AnalyticsRepository;
  readonly chatBilling: ChatBillingRepository;
  /** Top-ups by card, their refunds, and codes. */
  readonly topups: TopupsRepository;
  /** The operator's margin report (reads the analytics rollups). */
  readonly margin: MarginRepository;
  /** The operator console's tokens and audit log, and the operator's reads across accounts. */
  readonly operator: OperatorRepository;

  /** Transactions that arrive together commit together (group-commit.ts, pg-group-commit.ts). */
  private readonly groupCommit: GroupCommit | PgGroupCommit | undefined;

  constructor(
    readonly db: Kysely<Database>,
    readonly engine: Engine,
    private readonly inTransaction = false,
    /** PostgreSQL connections whose commits do not wait for the WAL flush (Db.relaxed), for the batched hot statements. */
    relaxed?: Kysely<Database>,
    /** Chat billing waits for the flush too (Db.chatSyncCommit). */
    chatSyncCommit = false,
  ) {
    this.groupCommit = inTransaction
      ? undefined
      : engine === 'sqlite'
        ? new GroupCommit(db)
        : new PgGroupCommit(db);
    this.accounts = new AccountsRepository(db);
    this.keys = new KeysRepository(db);
    this.ledger = new LedgerRepository(db, engine);
    this.keyLedger = new KeyLedgerRepository(db);
    this.models = new ModelsRepository(db);
    this.settings = new SettingsRepository(db);
    this.audit = new AuditRepository(db);
    const barrier = relaxed && !inTransaction ? flushBarrier(db, relaxed) : undefined;
    this.tasks = new TasksRepository(db, engine, barrier);
    this.idempotency = new IdempotencyRepository(db);
    this.webhooks = new WebhooksRepository(db, engine);
    this.usage = new UsageRepository(db);
    this.chatHolds = new ChatHoldsRepository(db);
    this.analytics = new AnalyticsRepository(db);
    this.topups = new TopupsRepository(db);
    this.margin = new MarginRepository(db, this.analytics);
    this.operator = new OperatorRepository(db);
    // Chat billing does not wait for the flush unless asked to (docs/scale-out.md).
    const chatCommits = barrier && relaxed && !chatSyncCommit ? commitsOn(relaxed) : barrier;
    this.chatBilling = new ChatBillingRepository(
      db,
      engine,
      (work) => this.transactionOnDb(work),
      chatCommits,
    );
  }

  /**
   * A new task and its hold, both or neither: false when the balance does not cover the hold. On
   * PostgreSQL, outside a transaction, batched with the tasks created alongside (pg-task-batch.ts).
   */
  insertTaskWithHold(task: TaskRow): Promise<boolean> {
    if (this.engine === 'postgres') return this.tasks.insertWithHold(task);
    return this.transaction((tx) => tx.tasks.insertWithHold(task));
  }

  /**
   * Webhook attempt results, each a compare-and-set on its delivery's lease. PostgreSQL writes them
   * as one statement, atomic by itself (a transaction around it only added BEGIN, a savepoint and
   * COMMIT); SQLite as one transaction of single writes.
   */
  recordWebhookAttempts(attempts: Parameters<WebhooksRepository['recordAttempts']>[0]): Promise<boolean[]> {
    if (this.engine === 'postgres') return this.webhooks.recordAttempts(attempts);
    return this.transaction((tx) => tx.webhooks.recordAttempts(attempts));
  }

  static from(db: Db): Storage {
    return new Storage(db.kysely, db.engine, false, db.relaxed, db.chatSyncCommit);
  }

  /** Runs `work` in one transaction; nested calls join the outer one. */
  async transaction<T>(work: (tx: Storage) => Promise<T>): Promise<T> {
    if (this.inTransaction) return work(this);
    return this.transactionOnDb((trx) => work(new Storage(trx, this.engine, true)));
  }

  /** As `transaction`, for a repository that needs only the transaction's database handle. */
  private transactionOnDb<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    if (this.inTransaction) return work(this.db);
    if (this.groupCommit) return this.groupCommit.run(work);
    return this.db.transaction().execute(work);
  }
}
