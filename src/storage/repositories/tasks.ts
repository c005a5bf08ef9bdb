// Tasks are also the work queue. Reads for clients are scoped by the owner account; the worker
// methods are compare-and-set writes guarded by the lease owner, so a worker that lost its lease
// (it stalled, another took over) can never overwrite the task.
import { type Insertable, type Kysely, sql } from 'kysely';
import type { Engine } from '../db.js';
import { LedgerRepository } from '../ledger/ledger.js';
import { PgBatcher } from '../pg-batcher.js';
import { type PgFinish, pgFinishTasks } from '../pg-finish-batch.js';
import { commitsOn, type FlushBarrier } from '../pg-flush-barrier.js';
import { pgInsertTasksWithHolds } from '../pg-task-batch.js';
import { placeholderRow, prepared } from '../prepared.js';
import type { Database, TaskRow, TasksTable } from '../schema.js';

export type { TaskRow };
export type NewTask = Insertable<TasksTable>;

// The queries of every task's life (create, read, claim, submit, finish), compiled once.
const TASK_COLUMNS = [
  'id',
  'account_id',
  'key_id',
  'model_id',
  'billing_model_id',
  'kind',
  'status',
  'params',
  'hold_amount',
  'pricing',
  'cost',
  'result',
  'error',
  'webhook_url',
  'provider',
  'provider_job_id',
  'provider_state',
  'attempts',
  'requeues',
  'run_at',
  'lease_owner',
  'lease_expires_at',
  'processing_ms',
  'processing_started_at',
  'created_at',
  'updated_at',
  'finished_at',
] as const satisfies readonly (keyof TaskRow)[];

const INSERT = prepared((db, _task: TaskRow) =>
  db.insertInto('tasks').values(placeholderRow<TaskRow>(TASK_COLUMNS)),
);

const PG_INSERT_WITH_HOLDS = pgInsertTasksWithHolds(TASK_COLUMNS);
const PG_FINISH = pgFinishTasks(TASK_COLUMNS);

const FOR_OWNER = prepared((db, p: { taskId: string; accountId: number }) =>
  db.selectFrom('tasks').selectAll().where('id', '=', p.taskId).where('account_id', '=', p.accountId),
);

function claimQuery(engine: Engine) {
  return prepared(
    (_db, p: { workerId: string; now: number; leaseUntil: number; leaseMs: number; limit: number }) => {
      // The provider timeout counts only the time the task was in a worker's hands or waiting for its
      // scheduled poll. A released task counts up to its run_at, not the backlog after it; a task
      // taken over from a dead worker counts up to that worker's last lease renewal, not the outage.
      const max = engine === 'postgres' ? sql.raw('greatest') : sql.raw('max');
      const countedUntil = sql`case when lease_owner is null then run_at else lease_expires_at - ${p.leaseMs} end`;
      const set = sql`
      status = 'processing',
      lease_owner = ${p.workerId},
      lease_expires_at = ${p.leaseUntil},
      processing_ms = case when status = 'processing' and processing_started_at is not null
        then processing_ms + ${max}(0, ${countedUntil} - processing_started_at)
        else processing_ms end,
      processing_started_at = ${p.now},
      updated_at = ${p.now}`;
      return engine === 'postgres'
        ? // As on SQLite, each kind of due task is read in run_at order straight off the (status,
          // run_at) index, at most `limit` of each (an OR of both sorted every pending task on each
          // claim). A processing task with a lease owner can only be due because its lease ran out:
          // `taken_over` tells the caller it was taken from a dead or stalled worker, in the same
          // statement (rows of a branch beyond the final limit stay locked until it ends, unclaimed).
          sql<TaskRow & { taken_over: boolean }>`
          with pending_due as materialized (
            select id, run_at, false as taken_over from tasks
            where status = 'pending' and run_at <= ${p.now}
            order by run_at limit ${p.limit} for update skip locked
          ), processing_due as materialized (
            select id, run_at, lease_owner is not null as taken_over from tasks
            where status = 'processing' and run_at <= ${p.now}
              and (lease_owner is null or lease_expires_at <= ${p.now})
            order by run_at limit ${p.limit} for update skip locked
          ), due as (
            select id, taken_over from (
              select * from pending_due union all select * from processing_due
            ) both_kinds order by run_at limit ${p.limit}
          )
          update tasks set ${set} from due where tasks.id = due.id returning tasks.*, due.taken_over`
        : // Each kind of due task is read in run_at order straight off the (status, run_at) index,
          // at most `limit` of each; an OR of both would sort every pending task on each claim.
          sql<TaskRow>`
          update tasks set ${set}
          where id in (
            select id from (
              select * from (
                select id, run_at from tasks
                where status = 'pending' and run_at <= ${p.now}
                order by run_at limit ${p.limit})
              union all
              select * from (
                select id, run_at from tasks
                where status = 'processing' and run_at <= ${p.now}
                  and (lease_owner is null or lease_expires_at <= ${p.now})
                order by run_at limit ${p.limit})
            ) order by run_at limit ${p.limit})
          returning *`;
    },
  );
}
const CLAIM = { sqlite: claimQuery('sqlite'), postgres: claimQuery('postgres') };

/** The job id is stored, and the lease released (`keepLease` false) or kept (to poll at once). */
function submissionQuery(keepLease: boolean) {
  return prepared(
    (
      db,
      p: {
        taskId: string;
        workerId: string;
        jobId: string;
        provider: string;
        providerState: string | null;
        runAt: number;
        now: number;
      },
    ) =>
      db
        .updateTable('tasks')
        .set({
          provider: p.provider,
          provider_job_id: p.jobId,
          provider_state: p.providerState,
          attempts: sql`attempts + 1`,
          run_at: p.runAt,
          ...(keepLease ? {} : { ...bankAndKeepCounting(p.now), lease_owner: null, lease_expires_at: null }),
          updated_at: p.now,
        })
        .where('id', '=', p.taskId)
        .where('lease_owner', '=', p.workerId)
        .where('status', '=', 'processing')
        // A callback may have named this very job already (an upstream that calls back before
        // answering the submit): the same id is still this submission.
        .where((eb) => eb.or([eb('provider_job_id', 'is', null), eb('provider_job_id', '=', p.jobId)])),
  );
}
const RECORD_SUBMISSION = submissionQuery(false);
const RECORD_SUBMISSION_KEEPING_LEASE = submissionQuery(true);

/**
 * A task handed back to wait for its next poll: the time so far is banked and the clock keeps
 * running from now, because waiting for a scheduled poll is time the provider takes (the claim
 * counts it only up to run_at).
 */
function bankAndKeepCounting(now: number) {
  return {
    processing_ms: sql<number>`processing_ms + (${now} - coalesce(processing_started_at, ${now}))`,
    processing_started_at: now,
  };
}

const RELEASE = prepared(
  (
    db,
    p: {
      taskId: string;
      workerId: string;
      runAt: number;
      providerState: string | null;
      provider: string | null;
      now: number;
    },
  ) =>
    db
      .updateTable('tasks')
      .set({
        run_at: p.runAt,
        provider_state: p.providerState,
        provider: sql`coalesce(${p.provider}, provider)`,
        ...bankAndKeepCounting(p.now),
        lease_owner: null,
        lease_expires_at: null,
        updated_at: p.now,
      })
      .where('id', '=', p.taskId)
      .where('lease_owner', '=', p.workerId)
      .where('status', '=', 'processing'),
);

const FINISH = prepared(
  (
    db,
    p: {
      taskId: string;
      workerId: string;
      status: 'completed' | 'failed';
      result: string | null;
      error: string | null;
      cost: number;
      providerCost: number | null;
      providerJobId: string | null;
      provider: string | null;
      now: number;
    },
  ) =>
    db
      .updateTable('tasks')
      .set({
        status: p.status,
        provider: sql`coalesce(${p.provider}, provider)`,
        result: p.result,
        error: p.error,
        cost: p.cost,
        provider_cost: p.providerCost,
        provider_job_id: sql`coalesce(${p.providerJobId}, provider_job_id)`,
        processing_ms: sql`processing_ms + (${p.now} - coalesce(processing_started_at, ${p.now}))`,
        processing_started_at: null,
        lease_owner: null,
        lease_expires_at: null,
        updated_at: p.now,
        finished_at: p.now,
      })
      .where('id', '=', p.taskId)
      .where('lease_owner', '=', p.workerId)
      .where('status', '=', 'processing')
      .returningAll(),
);

export class TasksRepository {
  /** How the batched statements commit: relaxed, then a flush barrier (pg-flush-barrier.ts). */
  private readonly commits: FlushBarrier;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: Engine,
    commits?: FlushBarrier,
  ) {
    this.commits = commits ?? commitsOn(db);
  }

  // PostgreSQL, outside a transaction: the tasks created together are written with their holds as
  // one statement (pg-task-batch.ts); alone, or declined by a batch, as a one-task statement.
  private readonly pgCreations = new PgBatcher<TaskRow, boolean>(
    async (task) => (await this.commits.durably((db) => PG_INSERT_WITH_HOLDS(db, [task])))[0] ?? false,
    (tasks) => this.commits.durably((db) => PG_INSERT_WITH_HOLDS(db, tasks)),
  );

  // PostgreSQL, outside a transaction: final transitions batched with their settlements and outbox
  // rows (pg-finish-batch.ts). `null`: not finished here, run the one-task transaction instead.
  private readonly pgFinishes = new PgBatcher<PgFinish, TaskRow | null>(
    async (item) => (await this.commits.durably((db) => PG_FINISH(db, [item])))[0] ?? null,
    (items) => this.commits.durably((db) => PG_FINISH(db, items)),
    // Two statements at a time: the order of settlements changes no outcome.
    { maxInFlight: 2 },
  );

  /**
   * PostgreSQL, outside a transaction: the final transition (as `finish`), the settlement of the
   * hold (capture `cost`, release the rest) and the webhook outbox row (when the task has a
   * webhook_url) in one statement, batched with the tasks finishing alongside. Returns the final
   * row, or null when it did not finish the task here (another engine, inside a transaction, the
   * lease lost, a hold that is not intact): run the one-task transaction then, which answers exactly.
   */
  async finishBatched(item: PgFinish): Promise<TaskRow | null> {
    if (this.engine !== 'postgres' || this.db.isTransaction) return null;
    return this.pgFinishes.run(item);
  }

  /**
   * Writes a new task together with its hold of `hold_amount` on its key, or neither: false when the
   * balance does not cover the hold (or the key is gone). Inside a transaction, in that transaction.
   */
  async insertWithHold(task: TaskRow): Promise<boolean> {
    if (this.engine === 'postgres' && !this.db.isTransaction) return this.pgCreations.run(task);
    const ref = { keyId: task.key_id, accountId: task.account_id, now: task.created_at };
    // The hold first: refused, it wrote nothing, and the task is not written either.
    if (!(await new LedgerRepository(this.db, this.engine).hold(ref, task.id, task.hold_amount)))
      return false;
    await this.insert(task);
    return true;
  }

  async insert(task: NewTask): Promise<void> {
    // The prepared INSERT lists every column; a partial row (defaults wanted) goes through Kysely.
    if (TASK_COLUMNS.every((column) => task[column] !== undefined)) await INSERT(this.db, task as TaskRow);
    else await this.db.insertInto('tasks').values(task).execute();
  }

  /** Another account's task is simply not found. */
  async getForOwner(accountId: number, taskId: string): Promise<TaskRow | undefined> {
    const { rows } = await FOR_OWNER(this.db, { taskId, accountId });
    return rows[0];
  }

  /**
   * One page of the owner's video tasks, by creation (`desc`: newest first), strictly after the
   * `after` task in that order; videos deleted by their owner (`deleted_at` in the result) are left
   * out. `kind = 'video'` is a literal so the planner can use the partial index tasks_account_videos.
   */
  async videosForOwner(
    accountId: number,
    page: { order: 'asc' | 'desc'; limit: number; after?: { createdAt: number; id: string } },
  ): Promise<TaskRow[]> {
    const desc = page.order === 'desc';
    let query = this.db
      .selectFrom('tasks')
      .selectAll()
      .where('account_id', '=', accountId)
      .where(sql<boolean>`kind = 'video'`)
      .where(sql<boolean>`${this.deletedAt()} is null`);
    if (page.after) {
      const { createdAt, id } = page.after;
      const beyond = desc ? '<' : '>';
      // A row-value comparison: both engines seek the index to the cursor instead of filtering.
      query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), beyond, eb.tuple(createdAt, id)));
    }
    const direction = desc ? 'desc' : 'asc';
    return query.orderBy('created_at', direction).orderBy('id', direction).limit(page.limit).execute();
  }

  /**
   * One page of the owner's tasks of every kind, newest first (created_at, then id, descending),
   * strictly after the `after` task in that order; optionally of one status and/or one model. Read
   * off the tasks_account index (account_id, created_at); the filters are checked on the way.
   */
  async listForOwner(
    accountId: number,
    page: {
      limit: number;
      after?: { createdAt: number; id: string };
      status?: TaskRow['status'];
      modelId?: string;
    },
  ): Promise<TaskRow[]> {
    let query = this.db.selectFrom('tasks').selectAll().where('account_id', '=', accountId);
    if (page.status !== undefined) query = query.where('status', '=', page.status);
    if (page.modelId !== undefined) query = query.where('model_id', '=', page.modelId);
    if (page.after) {
      const { createdAt, id } = page.after;
      // created_at bounds the index range; the row value breaks ties within one millisecond.
      query = query
        .where('created_at', '<=', createdAt)
        .where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(createdAt, id)));
    }
    return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).execute();
  }

  /**
   * Records that the owner deleted a final video task's media: `result` (which carries `deleted_at`)
   * replaces the stored one. False when the task is not the owner's final, undeleted video.
   */
  async markVideoDeleted(
    accountId: number,
    taskId: string,
    change: { result: string; now: number },
  ): Promise<boolean> {
    const outcome = await this.db
      .updateTable('tasks')
      .set({ result: change.result, updated_at: change.now })
      .where('id', '=', taskId)
      .where('account_id', '=', accountId)
      .where('kind', '=', 'video')
      .where('status', 'in', ['completed', 'failed'])
      .where(sql<boolean>`${this.deletedAt()} is null`)
      .executeTakeFirst();
    return Number(outcome.numUpdatedRows) === 1;
  }

  /** The `deleted_at` field of the result JSON (null without a result). */
  private deletedAt() {
    return this.engine === 'postgres'
      ? sql`(cast(result as jsonb) ->> 'deleted_at')`
      : sql`json_extract(result, '$.deleted_at')`;
  }

  /** Workers and operators only: not owner-scoped by design. */
  async byIdForWorker(taskId: string): Promise<TaskRow | undefined> {
    return this.db.selectFrom('tasks').selectAll().where('id', '=', taskId).executeTakeFirst();
  }

  /**
   * Claims up to `limit` due tasks for `workerId`: pending tasks whose run_at has come, and processing
   * tasks due for their next poll whose lease is free or expired (a crashed worker's task is taken
   * over). PostgreSQL skips rows another worker is claiming (FOR UPDATE SKIP LOCKED); SQLite runs the
   * compare-and-set under BEGIN IMMEDIATE, which already serializes writers. The caller runs this in
   * a transaction.
   */
  async claimDue(workerId: string, now: number, leaseMs: number, limit: number): Promise<TaskRow[]> {
    return (await this.claimDueCountingTakeovers(workerId, now, leaseMs, limit)).rows;
  }

  /**
   * As claimDue; on PostgreSQL it also counts the claimed tasks taken over from a worker whose lease
   * had expired (undefined on SQLite, whose caller counts them in its transaction).
   */
  async claimDueCountingTakeovers(
    workerId: string,
    now: number | (() => number),
    leaseMs: number,
    limit: number,
  ): Promise<{ rows: TaskRow[]; takeovers: number | undefined }> {
    const claim = (db: Kysely<Database>) => {
      const at = typeof now === 'function' ? now() : now;
      return CLAIM[this.engine](db, { workerId, now: at, leaseUntil: at + leaseMs, leaseMs, limit });
    };
    // On PostgreSQL the time is read once a connection is ours: a claim that waited for one must not
    // commit a lease that already ran out (another worker would take the task at once).
    const { rows } =
      this.engine === 'postgres' && !this.db.isTransaction
        ? await this.db.connection().execute(claim)
        : await claim(this.db);
    if (this.engine !== 'postgres') return { rows, takeovers: undefined };
    let takeovers = 0;
    const tasks = rows.map((row) => {
      const { taken_over, ...task } = row as TaskRow & { taken_over: boolean };
      if (taken_over) takeovers++;
      return task as TaskRow;
    });
    return { rows: tasks, takeovers };
  }

  /** Extends the lease while a worker is busy with the task; false when the lease was lost. */
  async renewLease(taskId: string, workerId: string, until: number): Promise<boolean> {
    const result = await this.db
      .updateTable('tasks')
      .set({ lease_expires_at: until })
      .where('id', '=', taskId)
      .where('lease_owner', '=', workerId)
      .where('status', '=', 'processing')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Records the provider's job id (the recovery point: from now on the task is only ever polled) and
   * hands the task back to the queue until its first poll. False when the lease was lost.
   */
  async recordSubmission(
    taskId: string,
    workerId: string,
    change: {
      jobId: string;
      /** The provider (route) that accepted the job: polls go to it from now on. */
      provider: string;
      providerState: string | null;
      nextPollAt: number;
      now: number;
      keepLease?: boolean;
    },
  ): Promise<boolean> {
    const query = change.keepLease ? RECORD_SUBMISSION_KEEPING_LEASE : RECORD_SUBMISSION;
    const result = await query(this.db, {
      taskId,
      workerId,
      jobId: change.jobId,
      provider: change.provider,
      providerState: change.providerState,
      runAt: change.nextPollAt,
      now: change.now,
    });
    return Number(result.numAffectedRows) === 1;
  }

  /**
   * Hands a processing task back to the queue until `runAt` (its next poll). `provider` records the
   * route an uncertain submit went to, so its reconciliation and callbacks find the task.
   */
  async release(
    taskId: string,
    workerId: string,
    change: { runAt: number; providerState: string | null; now: number; provider?: string },
  ): Promise<boolean> {
    const result = await RELEASE(this.db, { taskId, workerId, ...change, provider: change.provider ?? null });
    return Number(result.numAffectedRows) === 1;
  }

  /**
   * "Concurrency limit exceeded": back to pending with error null, to run again at `runAt`. The
   * processing time so far is banked, so the time in the queue does not count toward the timeout.
   */
  async requeue(
    taskId: string,
    workerId: string,
    change: { runAt: number; now: number; providerState?: string | null },
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('tasks')
      .set({
        status: 'pending',
        run_at: change.runAt,
        requeues: sql`requeues + 1`,
        error: null,
        provider_job_id: null,
        provider_state: change.providerState ?? null,
        processing_ms: sql`processing_ms + (${change.now} - coalesce(processing_started_at, ${change.now}))`,
        processing_started_at: null,
        lease_owner: null,
        lease_expires_at: null,
        updated_at: change.now,
      })
      .where('id', '=', taskId)
      .where('lease_owner', '=', workerId)
      .where('status', '=', 'processing')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * The final transition, guarded by status and lease owner: of two workers racing to finish a task,
   * exactly one gets the row back, and only that one settles the ledger (in the same transaction).
   */
  async finish(
    taskId: string,
    workerId: string,
    change: {
      status: 'completed' | 'failed';
      result: string | null;
      error: string | null;
      cost: number;
      /** What the upstream cost the operator; null when the route carries no cost. */
      providerCost?: number | null;
      /** Set when the result came with the submit: the job id is stored with the final state. */
      providerJobId?: string;
      /** The route that produced the result, when it came with the submit. */
      provider?: string;
      now: number;
    },
  ): Promise<TaskRow | undefined> {
    const { rows } = await FINISH(this.db, {
      taskId,
      workerId,
      ...change,
      providerCost: change.providerCost ?? null,
      providerJobId: change.providerJobId ?? null,
      provider: change.provider ?? null,
    });
    return rows[0];
  }

  /**
   * An upstream callback says a job moved: poll it now. A task waiting for its next poll is made due
   * at once; a task a worker holds keeps its schedule (the worker is on it). `jobId` fills in the job
   * of a task whose submit was uncertain, held or not (see releaseUncertain). A final task never
   * changes. True when a processing task matched.
   */
  async pollNow(
    match: { taskId: string } | { provider: string; jobId: string },
    change: { now: number; jobId?: string },
  ): Promise<boolean> {
    let query = this.db
      .updateTable('tasks')
      .set({
        run_at: sql`case when lease_owner is null then ${change.now} else run_at end`,
        ...(change.jobId === undefined
          ? {}
          : { provider_job_id: sql`coalesce(provider_job_id, ${change.jobId})` }),
        updated_at: change.now,
      })
      .where('status', '=', 'processing');
    query =
      'taskId' in match
        ? query.where('id', '=', match.taskId)
        : query.where('provider', '=', match.provider).where('provider_job_id', '=', match.jobId);
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Hands back a task whose submit was uncertain until `runAt`, unless a callback named its job
   * while the worker held it: then it is due at once, to be polled.
   */
  async releaseUncertain(
    taskId: string,
    workerId: string,
    change: { runAt: number; providerState: string; provider?: string; now: number },
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('tasks')
      .set({
        run_at: sql`cast(case when provider_job_id is null then ${change.runAt} else ${change.now} end as bigint)`,
        provider_state: change.providerState,
        provider: sql`coalesce(${change.provider ?? null}, provider)`,
        ...bankAndKeepCounting(change.now),
        lease_owner: null,
        lease_expires_at: null,
        updated_at: change.now,
      })
      .where('id', '=', taskId)
      .where('lease_owner', '=', workerId)
      .where('status', '=', 'processing')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Task counts per status (operators, metrics, tests). */
  async countByStatus(): Promise<Record<string, number>> {
    const rows = await this.db
      .selectFrom('tasks')
      .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('status')
      .execute();
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  }
}
