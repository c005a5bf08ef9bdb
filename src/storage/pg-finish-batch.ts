// PostgreSQL: the final transitions of many tasks in ONE statement, for PgBatcher (pg-batcher.ts).
// Each task's final transition was a transaction of its own (BEGIN, status, key lock, settlement,
// outbox row, COMMIT: six round trips), and the tasks of one key waited for each other's commits on
// the key's row. A batch now finishes its tasks, settles their holds (capture the cost, release the
// rest) and writes their webhook outbox rows together, taking the key's row once.
//
// A task finishes here only while it is processing under this worker's lease AND its hold is intact
// (the hold entry of that key and amount, no capture or release yet). A task that does not qualify
// is declined (undefined) and nothing of it is written: the caller then runs the one-task
// transaction, which gives the exact answer (lease lost: undefined; a broken hold: an error).
import { type Kysely, sql } from 'kysely';
import { settleCtes } from './ledger/pg-batch-ctes.js';
import type { Database, TaskRow } from './schema.js';

export interface PgFinish {
  taskId: string;
  workerId: string;
  status: 'completed' | 'failed';
  result: string | null;
  error: string | null;
  /** Captured (at most the hold); the rest of the hold is released. 0 for a failed task. */
  cost: number;
  /** What the upstream cost the operator; null when the route carries no cost. */
  providerCost?: number | null;
  providerJobId: string | null;
  provider: string | null;
  now: number;
  /** The outbox row, written when the task has a webhook_url. */
  webhookId: string;
  webhookPayload: string;
}

export function pgFinishTasks(columns: readonly string[]) {
  const returned = sql.raw(columns.map((c) => `d.${c}`).join(', '));
  return async (db: Kysely<Database>, items: PgFinish[]): Promise<(TaskRow | undefined)[]> => {
    // A task twice in one batch: the second is declined (and then finds the task final).
    const seen = new Set<string>();
    const unique = items.filter((item) => !seen.has(item.taskId) && seen.add(item.taskId));
    const input = unique.map((item, i) => ({ ...item, ord: i + 1 }));
    const { rows } = await sql<TaskRow>`
      with input as (
        select * from json_to_recordset(${JSON.stringify(input)}::json) as i(
          "taskId" text, "workerId" text, status text, result text, error text, cost bigint,
          "providerCost" bigint,
          "providerJobId" text, provider text, now bigint, "webhookId" text, "webhookPayload" text,
          ord int)
      ), fin as (
        update tasks t
        set status = i.status, provider = coalesce(i.provider, t.provider), result = i.result,
            error = i.error, cost = i.cost, provider_cost = i."providerCost",
            provider_job_id = coalesce(i."providerJobId", t.provider_job_id),
            processing_ms = t.processing_ms + (i.now - coalesce(t.processing_started_at, i.now)),
            processing_started_at = null, lease_owner = null, lease_expires_at = null,
            updated_at = i.now, finished_at = i.now
        from input i
        where t.id = i."taskId" and t.lease_owner = i."workerId" and t.status = 'processing'
          and exists (select 1 from ledger_entries e where e.task_id = t.id and e.kind = 'hold'
                      and e.key_id = t.key_id and e.amount = t.hold_amount)
          and not exists (select 1 from ledger_entries e where e.task_id = t.id
                          and e.kind in ('capture', 'release'))
        returning t.*, i.ord, i."webhookId" as webhook_id, i."webhookPayload" as webhook_payload,
                  i.now as at
      ), done as (
        select f.*, least(greatest(f.cost, 0), f.hold_amount) as captured,
               f.hold_amount - least(greatest(f.cost, 0), f.hold_amount) as released
        from fin f
      ), ${settleCtes({ captured: 'captured', at: 'at' })}, outbox as (
        insert into webhook_deliveries
          (id, task_id, account_id, url, payload, status, attempts, next_attempt_at, created_at, updated_at)
        select webhook_id, id, account_id, webhook_url, webhook_payload, 'pending', 0, at, at, at
        from done where webhook_url is not null
      )
      select ${returned} from done d`.execute(db);
    const finished = new Map(rows.map((row) => [row.id, row]));
    return items.map((item) => (unique.includes(item) ? finished.get(item.taskId) : undefined));
  };
}
