// PostgreSQL: new tasks with their holds, many in ONE statement, for PgBatcher (pg-batcher.ts). POST
// /generate wrote each task in a transaction of its own (BEGIN, task row, hold, COMMIT), and the
// tasks of one key waited for each other's commits on the key's row; a batch now takes that row once.
//
// As with chat holds (pg-chat-batch.ts): a key moves only when its balance covers ALL of the batch's
// holds on it; otherwise nothing of that key's tasks is written and they are declined (undefined),
// for the batcher to run them one by one in arrival order, which accepts exactly the ones that
// still fit. A task is written only together with its hold, never without it. Each hold entry
// carries the balances right after its own movement, in arrival order.
import { type Kysely, sql } from 'kysely';
import type { TaskRow } from './repositories/tasks.js';
import type { Database } from './schema.js';

/** The tasks table's columns, in the order the batch inserts them. */
export function pgInsertTasksWithHolds(columns: readonly string[]) {
  const list = sql.raw(columns.join(', '));
  return async (db: Kysely<Database>, tasks: TaskRow[]): Promise<(true | undefined)[]> => {
    const { rows } = await sql<{ id: string }>`
      with input as (
        select t.*, e.ord
        from json_array_elements(${JSON.stringify(tasks)}::json) with ordinality as e(task, ord)
        cross join lateral json_populate_record(null::tasks, e.task) as t
      ), locked as materialized (
        -- The batch's keys locked in id order: two batches never wait for each other in a cycle.
        select id from api_keys where id in (select key_id from input) order by id for no key update
      ), want as (
        select key_id, sum(hold_amount)::bigint as total, max(created_at) as now
        from input where key_id in (select id from locked) group by key_id
      ), moved as (
        update api_keys k
        set balance = k.balance - w.total, held = k.held + w.total, updated_at = w.now
        from want w
        where k.id = w.key_id and k.deleted_at is null and k.balance >= w.total
        returning k.id, k.balance, k.held, w.total
      ), accepted as (
        select i.*,
               m.balance + m.total - (sum(i.hold_amount) over through)::bigint as balance_after,
               m.held - m.total + (sum(i.hold_amount) over through)::bigint as held_after
        from input i join moved m on m.id = i.key_id
        window through as (partition by i.key_id order by i.ord)
      ), entries as (
        insert into ledger_entries
          (key_id, account_id, task_id, kind, amount, balance_after, held_after, note, created_at)
        select key_id, account_id, id, 'hold', hold_amount, balance_after, held_after, null, created_at
        from accepted order by ord
      )
      insert into tasks (${list})
      select ${list} from accepted order by ord
      returning id`.execute(db);
    const written = new Set(rows.map((r) => r.id));
    return tasks.map((task) => (written.has(task.id) ? true : undefined));
  };
}
