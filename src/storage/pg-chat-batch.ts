// PostgreSQL: the chat holds (each with its chat_holds row) and the chat settlements (each closing
// that row and writing the request's usage row) of many requests as ONE statement each, for
// PgBatcher (pg-batcher.ts).
//
// The balances of a key move once per statement, by the batch's total; every ledger entry still
// carries the balance and held amount right after its own movement, as if the requests had been
// applied one after another in arrival order (running sums over the batch, from the balances the
// key's UPDATE returned). The ledger check's chain per key therefore holds.
//
// - Holds: a key moves only when its balance covers ALL of the batch's holds on it. When it does
//   not, none of them is applied here, and they are declined (undefined): the batcher then runs
//   them one by one, in arrival order, which accepts exactly the ones that still fit.
// - Settlements: an item applies only while its hold is open and is the one expected (as the single
//   statement); an item that did not apply is declined, and the single statement gives its real
//   answer (already settled: false; another key or amount: an integrity error). A request id twice
//   in one batch is declined the second time.
import { type Kysely, sql } from 'kysely';
import { holdCtes, settleCtes } from './ledger/pg-batch-ctes.js';
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
  provider?: string | null;
  providerCost?: number | null;
}

const column = <T, K extends keyof T>(items: T[], key: K): T[K][] => items.map((item) => item[key]);
const latest = (times: number[]): number => times.reduce((a, b) => Math.max(a, b), 0);

/**
 * For each item: the key's available balance right after its hold when the hold and its open-hold
 * row were written, undefined when declined.
 */
export async function pgOpenMany(db: Kysely<Database>, items: PgChatOpen[]): Promise<(number | undefined)[]> {
  const { rows } = await sql<{ id: string; balance_after: string }>`
    with input as (
      select * from unnest(
        ${column(items, 'id')}::text[], ${column(items, 'keyId')}::bigint[],
        ${column(items, 'accountId')}::bigint[], ${column(items, 'modelId')}::text[],
        ${column(items, 'amount')}::bigint[], ${column(items, 'now')}::bigint[],
        ${column(items, 'processId')}::text[]
      ) with ordinality as i(id, key_id, account_id, model_id, amount, now, process_id, ord)
    ), ${holdCtes({ amount: 'amount', at: 'now' }, latest(column(items, 'now')))}, opened as (
      insert into chat_holds (id, account_id, key_id, model_id, amount, process_id, created_at)
      select id, account_id, key_id, model_id, amount, process_id, now from accepted
    )
    select id, balance_after from accepted`.execute(db);
  const written = new Map(rows.map((r) => [r.id, Number(r.balance_after)]));
  return items.map((item) => written.get(item.id));
}

/** For each item: true when its hold was closed and settled and its usage row written, undefined when declined. */
export async function pgSettleMany(db: Kysely<Database>, all: PgChatSettle[]): Promise<(true | undefined)[]> {
  const seen = new Set<string>();
  const items = all.filter((item) => !seen.has(item.id) && seen.add(item.id));
  const { rows } = await sql<{ task_id: string }>`
    with input as (
      select * from unnest(
        ${column(items, 'id')}::text[], ${column(items, 'keyId')}::bigint[],
        ${column(items, 'accountId')}::bigint[], ${column(items, 'holdAmount')}::bigint[],
        ${column(items, 'cost')}::bigint[], ${column(items, 'status')}::text[],
        ${column(items, 'inputTokens')}::bigint[], ${column(items, 'outputTokens')}::bigint[],
        ${column(items, 'latencyMs')}::bigint[], ${column(items, 'now')}::bigint[],
        ${items.map((i) => i.provider ?? null)}::text[], ${items.map((i) => i.providerCost ?? null)}::bigint[]
      ) with ordinality as i(id, key_id, account_id, hold_amount, cost, status, input_tokens,
                             output_tokens, latency_ms, now, provider, provider_cost, ord)
    ), closed as (
      delete from chat_holds h using input i
      where h.id = i.id and h.key_id = i.key_id and h.amount = i.hold_amount
      returning h.id, h.model_id, h.created_at
    ), done as (
      select i.*, c.model_id, c.created_at, i.hold_amount - i.cost as released
      from input i join closed c on c.id = i.id
    ), usage as (
      insert into usage_records
        (id, account_id, key_id, model_id, input_tokens, output_tokens, cost, status, latency_ms, created_at,
         provider, provider_cost)
      select id, account_id, key_id, model_id, input_tokens, output_tokens, cost, status, latency_ms, created_at,
             provider, provider_cost
      from done
    ), ${settleCtes({ captured: 'cost', at: 'now' })}
    select task_id from entries`.execute(db);
  const settled = new Set(rows.map((r) => r.task_id));
  return all.map((item, i) => (items.includes(all[i]) && settled.has(item.id) ? true : undefined));
}
