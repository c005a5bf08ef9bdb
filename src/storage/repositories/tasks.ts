// Tasks are also the work queue. Reads for clients are scoped by the owner account; the worker
// methods are compare-and-set writes guarded by the lease owner, so a worker that lost its lease
// (it stalled, another took over) can never overwrite the task.
import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import type { Engine } from '../db.js';
import type { Database, TasksTable } from '../schema.js';

export type TaskRow = Selectable<TasksTable>;
export type NewTask = Insertable<TasksTable>;

export class TasksRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly engine: Engine,
  ) {}

  async insert(task: NewTask): Promise<void> {
    await this.db.insertInto('tasks').values(task).execute();
  }

  /** Another account's task is simply not found. */
  async getForOwner(accountId: number, taskId: string): Promise<TaskRow | undefined> {
    return this.db
      .selectFrom('tasks')
      .selectAll()
      .where('id', '=', taskId)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
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
    const due = sql`(
      (status = 'pending' and run_at <= ${now})
      or (status = 'processing' and run_at <= ${now} and (lease_owner is null or lease_expires_at <= ${now}))
    )`;
    const set = sql`
      status = 'processing',
      lease_owner = ${workerId},
      lease_expires_at = ${now + leaseMs},
      processing_started_at = case when status = 'pending' then ${now} else processing_started_at end,
      updated_at = ${now}`;
    const query =
      this.engine === 'postgres'
        ? sql<TaskRow>`
          with due as (
            select id from tasks where ${due} order by run_at limit ${limit} for update skip locked
          )
          update tasks set ${set} from due where tasks.id = due.id returning tasks.*`
        : sql<TaskRow>`
          update tasks set ${set}
          where id in (select id from tasks where ${due} order by run_at limit ${limit})
          returning *`;
    const { rows } = await query.execute(this.db);
    return rows;
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
    change: { jobId: string; providerState: string | null; nextPollAt: number; now: number },
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('tasks')
      .set({
        provider_job_id: change.jobId,
        provider_state: change.providerState,
        attempts: sql`attempts + 1`,
        run_at: change.nextPollAt,
        lease_owner: null,
        lease_expires_at: null,
        updated_at: change.now,
      })
      .where('id', '=', taskId)
      .where('lease_owner', '=', workerId)
      .where('status', '=', 'processing')
      .where('provider_job_id', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Hands a processing task back to the queue until `runAt` (its next poll). */
  async release(
    taskId: string,
    workerId: string,
    change: { runAt: number; providerState: string | null; now: number },
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('tasks')
      .set({
        run_at: change.runAt,
        provider_state: change.providerState,
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
   * "Concurrency limit exceeded": back to pending with error null, to run again at `runAt`. The
   * processing time so far is banked, so the time in the queue does not count toward the timeout.
   */
  async requeue(taskId: string, workerId: string, change: { runAt: number; now: number }): Promise<boolean> {
    const result = await this.db
      .updateTable('tasks')
      .set({
        status: 'pending',
        run_at: change.runAt,
        requeues: sql`requeues + 1`,
        error: null,
        provider_job_id: null,
        provider_state: null,
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
      now: number;
    },
  ): Promise<TaskRow | undefined> {
    return this.db
      .updateTable('tasks')
      .set({
        status: change.status,
        result: change.result,
        error: change.error,
        cost: change.cost,
        processing_ms: sql`processing_ms + (${change.now} - coalesce(processing_started_at, ${change.now}))`,
        processing_started_at: null,
        lease_owner: null,
        lease_expires_at: null,
        updated_at: change.now,
        finished_at: change.now,
      })
      .where('id', '=', taskId)
      .where('lease_owner', '=', workerId)
      .where('status', '=', 'processing')
      .returningAll()
      .executeTakeFirst();
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
