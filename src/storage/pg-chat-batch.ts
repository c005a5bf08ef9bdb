// PostgreSQL: the chat holds (each with its pending usage row) and the chat settlements (each with its
// usage row's outcome) of many requests as ONE statement each, for PgBatcher (pg-batcher.ts).
//
// The balances of a key move once per statement, by the batch's total; every ledger entry still
// carries the balance and held amount right after its own movement, as if the requests had been
// applied one after another in arrival order (running sums over the batch, from the balances the
// key's UPDATE returned). The ledger check's chain per key therefore holds.
//
// - Holds: a key moves only when its balance covers ALL of the batch's holds on it. When it does
//   not, none of them is applied here, and they are declined (undefined): the batcher then runs
//   them one by one, in arrival order, which accepts exactly the ones that still fit.
// - Settlements: an item applies only while its usage row is pending and its hold is the one
//   expected (as the single statement); an item that did not apply is declined, and the single
//   statement gives its real answer (already settled: false; no such hold: an integrity error).
//   A usage id twice in one batch is declined the second time.
import { type Kysely, sql } from 'kysely';
import { holdCtes, settleCtes } from './pg-hold-ctes.js';
import { PLAN_EACH_CALL } from './pg-named-statements.js';
import type { UsageOutcome } from './repositories/usage.js';
import type { Database } from './schema.js';

export interface PgChatOpen {
  id: string;
  keyId: number;
  accountId: number;
  modelId: string;
  amount: number;
  now: number;
  processId: string | null;
}

export interface PgChatSettle {
  id: string;
  keyId: number;
  accountId: number;
  holdAmount: number;
  /** Captured; the rest of the hold is released. */
  cost: number;
  status: UsageOutcome['status'];
  inputTokens: number;
  outputTokens: number;
  latencyMs: number;
  now: number;
}

const column = <T, K extends keyof T>(items: T[], key: K): T[K][] => items.map((item) => item[key]);

/** For each item: true when its hold and usage row were written, undefined when declined. */
export async function pgOpenMany(db: Kysely<Database>, items: PgChatOpen[]): Promise<(true | undefined)[]> {
  const { rows } = await sql<{ id: string }>`
    with input as (
      select * from unnest(
        ${column(items, 'id')}::text[], ${column(items, 'keyId')}::bigint[],
        ${column(items, 'accountId')}::bigint[], ${column(items, 'modelId')}::text[],
        ${column(items, 'amount')}::bigint[], ${column(items, 'now')}::bigint[],
        ${column(items, 'processId')}::text[]
      ) with ordinality as i(id, key_id, account_id, model_id, amount, now, process_id, ord)
    ), ${holdCtes({ amount: 'amount', at: 'now' })}, usage as (
      insert into usage_records
        (id, account_id, key_id, model_id, input_tokens, output_tokens, cost, status, latency_ms,
         created_at, process_id)
      select id, account_id, key_id, model_id, 0, 0, 0, 'pending', 0, now, process_id from accepted
    )
    select id from accepted`.execute(db);
  const written = new Set(rows.map((r) => r.id));
  return items.map((item) => (written.has(item.id) ? true : undefined));
}

/** For each item: true when its usage row was completed and its hold settled, undefined when declined. */
export async function pgSettleMany(db: Kysely<Database>, all: PgChatSettle[]): Promise<(true | undefined)[]> {
  const seen = new Set<string>();
  const items = all.filter((item) => !seen.has(item.id) && seen.add(item.id));
  // Planned on every call. A kept (generic) plan found the pending usage rows through the partial
  // index of pending rows, whose dead entries grow with every settled request until a vacuum: on a
  // fresh database under chat load a settlement statement went from 0.5 to 3 ms within seconds.
  // Planned with its values, it looks each row up by its id.
  const { rows } = await sql<{ task_id: string }>`${sql.raw(PLAN_EACH_CALL)}
    with input as (
      select * from unnest(
        ${column(items, 'id')}::text[], ${column(items, 'keyId')}::bigint[],
        ${column(items, 'accountId')}::bigint[], ${column(items, 'holdAmount')}::bigint[],
        ${column(items, 'cost')}::bigint[], ${column(items, 'status')}::text[],
        ${column(items, 'inputTokens')}::bigint[], ${column(items, 'outputTokens')}::bigint[],
        ${column(items, 'latencyMs')}::bigint[], ${column(items, 'now')}::bigint[]
      ) with ordinality as i(id, key_id, account_id, hold_amount, cost, status, input_tokens,
                             output_tokens, latency_ms, now, ord)
    ), finished as (
      update usage_records u
      set status = i.status, input_tokens = i.input_tokens, output_tokens = i.output_tokens,
          cost = i.cost, latency_ms = i.latency_ms
      from input i
      where u.id = i.id and u.status = 'pending'
        -- The hold is found by its (task_id, kind) key alone: the LIMIT keeps the lookup out of the
        -- join, where a generic plan could scan every entry of the (hot) key instead.
        and exists (select 1 from (select key_id, amount from ledger_entries
                                   where task_id = i.id and kind = 'hold' limit 1) h
                    where h.key_id = i.key_id and h.amount = i.hold_amount)
      returning u.id
    ), done as (
      select i.*, i.hold_amount - i.cost as released
      from input i join finished f on f.id = i.id
    ), ${settleCtes({ captured: 'cost', at: 'now' })}
    select task_id from entries`.execute(db);
  const settled = new Set(rows.map((r) => r.task_id));
  return all.map((item, i) => (items.includes(all[i]) && settled.has(item.id) ? true : undefined));
}
