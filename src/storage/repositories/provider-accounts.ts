// The shared state of PROVIDERS_FILE accounts: their health rows (one per account name) and the
// places tasks hold at them (max_concurrency and the in-flight count). Every worker process reads
// and writes the same rows, so a cap and a breaker hold across a scaled-out deployment.
import { type Kysely, sql } from 'kysely';
import type { AccountHealth, AccountState } from '../../domain/providers/breaker.js';
import type { Engine } from '../db.js';
import type { Database } from '../schema.js';

export interface ProviderHealthTable {
  name: string;
  state: string;
  window_start: number;
  window_total: number;
  window_failures: number;
  open_until: number | null;
  probe_task: string | null;
  probe_at: number | null;
  last_error: string | null;
  checked_at: number | null;
  version: number;
}

export interface ProviderSlotsTable {
  task_id: string;
  provider: string;
  acquired_at: number;
}

type Tables = { provider_health: ProviderHealthTable; provider_slots: ProviderSlotsTable };

export interface StoredHealth {
  name: string;
  health: AccountHealth;
  version: number;
}

const num = (value: unknown): number => Number(value);
const numOrNull = (value: unknown): number | null => (value === null ? null : Number(value));

function fromRow(row: ProviderHealthTable): StoredHealth {
  return {
    name: row.name,
    version: num(row.version),
    health: {
      state: row.state as AccountState,
      windowStart: num(row.window_start),
      windowTotal: num(row.window_total),
      windowFailures: num(row.window_failures),
      openUntil: numOrNull(row.open_until),
      probeTask: row.probe_task,
      probeAt: numOrNull(row.probe_at),
      lastError: row.last_error,
      checkedAt: numOrNull(row.checked_at),
    },
  };
}

function toColumns(health: AccountHealth) {
  return {
    state: health.state,
    window_start: health.windowStart,
    window_total: health.windowTotal,
    window_failures: health.windowFailures,
    open_until: health.openUntil,
    probe_task: health.probeTask,
    probe_at: health.probeAt,
    last_error: health.lastError,
    checked_at: health.checkedAt,
  };
}

/** Serializes place-taking at one account on PostgreSQL (SQLite's BEGIN IMMEDIATE already does). */
const SLOT_LOCK_SPACE = 7_463_127;

export class ProviderAccountsRepository {
  private readonly db: Kysely<Database & Tables>;

  constructor(
    db: Kysely<Database>,
    private readonly engine: Engine,
  ) {
    this.db = db.withTables<Tables>();
  }

  /** Creates the rows of accounts never seen (up, empty window); existing rows are kept. */
  async ensure(names: string[], fresh: AccountHealth): Promise<void> {
    if (names.length === 0) return;
    await this.db
      .insertInto('provider_health')
      .values(names.map((name) => ({ name, ...toColumns(fresh), version: 0 })))
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
  }

  async get(name: string): Promise<StoredHealth | undefined> {
    const row = await this.db
      .selectFrom('provider_health')
      .selectAll()
      .where('name', '=', name)
      .executeTakeFirst();
    return row ? fromRow(row) : undefined;
  }

  async all(): Promise<StoredHealth[]> {
    const rows = await this.db.selectFrom('provider_health').selectAll().orderBy('name').execute();
    return rows.map(fromRow);
  }

  /** Writes `health` if the row is still at `version`; false when another process changed it first. */
  async compareAndSet(name: string, version: number, health: AccountHealth): Promise<boolean> {
    const result = await this.db
      .updateTable('provider_health')
      .set({ ...toColumns(health), version: version + 1 })
      .where('name', '=', name)
      .where('version', '=', version)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Takes a place for `taskId` at `provider` when fewer than `cap` processing tasks hold one
   * (`cap` undefined: no limit, the place only counts the task as in flight). A task that already
   * holds a place keeps it. Takings at one account are serialized, so the cap is exact.
   *
   * Every step of a pooled task comes through here, so the lock is held as briefly as possible:
   * one statement counts and inserts (SQLite runs it alone anyway; PostgreSQL takes the account's
   * lock first, in the same transaction, so the count sees every place committed before it). The
   * longer form (delete, count, insert under the lock) kept the lock over four round trips, and
   * under load the waiting transactions held the connections that lease renewals needed.
   */
  async acquireSlot(
    provider: string,
    taskId: string,
    cap: number | undefined,
    now: number,
  ): Promise<boolean> {
    // A task holds one place at a time: a place left at another account is given back.
    await this.db
      .deleteFrom('provider_slots')
      .where('task_id', '=', taskId)
      .where('provider', '<>', provider)
      .execute();
    if (cap === undefined) {
      await this.db
        .insertInto('provider_slots')
        .values({ task_id: taskId, provider, acquired_at: now })
        .onConflict((oc) => oc.column('task_id').doNothing())
        .execute();
      return true;
    }
    // A row back: a place taken now or already held (the no-op update returns it).
    const take = (db: Kysely<Database & Tables>) =>
      sql<{ task_id: string }>`
        insert into provider_slots (task_id, provider, acquired_at)
        select ${taskId}, ${provider}, cast(${now} as bigint)
        where (select count(*) from provider_slots s join tasks t on t.id = s.task_id
               where s.provider = ${provider} and t.status = 'processing' and s.task_id <> ${taskId}) < ${cap}
        on conflict (task_id) do update set acquired_at = provider_slots.acquired_at
        returning task_id`.execute(db);
    if (this.engine !== 'postgres') return (await take(this.db)).rows.length === 1;
    return this.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${SLOT_LOCK_SPACE}, hashtext(${provider}))`.execute(trx);
      return (await take(trx)).rows.length === 1;
    });
  }

  /** Gives back the place of a task (refused submit, re-queue, final state). */
  async releaseSlot(taskId: string): Promise<void> {
    await this.db.deleteFrom('provider_slots').where('task_id', '=', taskId).execute();
  }

  /** Deletes places whose task is no longer processing (a worker died before giving them back). */
  async sweepSlots(): Promise<number> {
    const result = await this.db
      .deleteFrom('provider_slots')
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('tasks')
              .select('tasks.id')
              .whereRef('tasks.id', '=', 'provider_slots.task_id')
              .where('tasks.status', '=', 'processing'),
          ),
        ),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Processing tasks holding a place, per account. */
  async inFlight(): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('provider_slots as s')
      .innerJoin('tasks as t', 't.id', 's.task_id')
      .select(['s.provider', (eb) => eb.fn.countAll<number>().as('held')])
      .where('t.status', '=', 'processing')
      .groupBy('s.provider')
      .execute();
    return new Map(rows.map((row) => [row.provider, Number(row.held)]));
  }
}
