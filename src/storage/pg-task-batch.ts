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
import { holdCtes } from './ledger/pg-batch-ctes.js';
import type { Database, TaskRow } from './schema.js';

const latestCreation = (tasks: TaskRow[]): number => tasks.reduce((a, t) => Math.max(a, t.created_at), 0);

/** The tasks table's columns, in the order the batch inserts them. */
export function pgInsertTasksWithHolds(columns: readonly string[]) {
  const list = sql.raw(columns.join(', '));
  return async (db: Kysely<Database>, tasks: TaskRow[]): Promise<(true | undefined)[]> => {
    const { rows } = await sql<{ id: string }>`
      with input as (
        select t.*, e.ord
        from json_array_elements(${JSON.stringify(tasks)}::json) with ordinality as e(task, ord)
        cross join lateral json_populate_record(null::tasks, e.task) as t
      ), ${holdCtes({ amount: 'hold_amount', at: 'created_at' }, latestCreation(tasks))}
      insert into tasks (${list})
      select ${list} from accepted order by ord
      returning id`.execute(db);
    const written = new Set(rows.map((r) => r.id));
    return tasks.map((task) => (written.has(task.id) ? true : undefined));
  };
}
