// Verifies every ledger invariant of DESIGN.md section 3 with plain SQL that runs on both engines.
// Used by `gengate ledger check` and by tests after every chaos or load run. Each query returns only
// the offending rows, so the check stays cheap in memory however large the ledger grows.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema.js';
import { fundsEffect, heldEffectOf, signedLedgerSum } from './kind-sql.js';

export interface LedgerViolation {
  rule: string;
  subject: string;
  detail: string;
}

export const LEDGER_RULES = {
  nonNegative: 'balance >= 0',
  funds: 'balance + held = sum of ledger entries',
  held: 'held = open holds',
  settlement: 'hold = capture + release',
  finalTask: 'no final task has an open hold',
  openTask: 'an open task has its hold',
  entryKey: 'every ledger entry names an existing key',
  taskKey: 'every task names an existing key of its account',
  chatHold: 'an open chat request has its hold, unsettled',
  spendCounter: 'spend counted in the period >= 0',
  topupCredit: 'a paid top-up has one credit of its amount, an unpaid one none',
  refundDebit: 'a refund has its debit, and a refused one its reversal',
  codeCredit: 'a redeemed code has one credit of its amount, an unused one none',
} as const;

const FINAL = sql`('completed', 'failed')`;
const SETTLEMENT = sql`('capture', 'release')`;

export async function checkLedger(db: Kysely<Database>): Promise<LedgerViolation[]> {
  const violations: LedgerViolation[] = [];
  const add = (rule: string, subject: string, detail: string) => violations.push({ rule, subject, detail });

  const negative = await db
    .selectFrom('api_keys')
    .select(['id', 'balance', 'held'])
    .where((eb) => eb.or([eb('balance', '<', 0), eb('held', '<', 0)]))
    .execute();
  for (const k of negative)
    add(LEDGER_RULES.nonNegative, `key ${k.id}`, `balance=${k.balance} held=${k.held}`);

  // The spend cap's counter only ever gives back what it counted (a release of a counted hold).
  const undercounted = await db
    .selectFrom('api_keys')
    .select(['id', 'spend_in_period'])
    .where('spend_in_period', '<', 0)
    .execute();
  for (const k of undercounted)
    add(LEDGER_RULES.spendCounter, `key ${k.id}`, `spend_in_period=${k.spend_in_period}`);

  // Funds: balance + held = Σ of every entry's effect on both; open holds: held = Σ of the effects on
  // held. The effects are those ledger-kinds.ts declares (topup + adjust + … − capture − refund).
  const sums = await sql<{
    id: number;
    balance: number;
    held: number;
    funds: number | null;
    open: number | null;
  }>`
    select k.id, k.balance, k.held, coalesce(e.funds, 0) as funds, coalesce(e.open, 0) as open
    from api_keys k
    left join (
      select key_id,
        ${signedLedgerSum(fundsEffect)} as funds,
        ${signedLedgerSum(heldEffectOf)} as open
      from ledger_entries group by key_id
    ) e on e.key_id = k.id
    where k.balance + k.held <> coalesce(e.funds, 0) or k.held <> coalesce(e.open, 0)`.execute(db);
  for (const row of sums.rows) {
    const [balance, held, funds, open] = [row.balance, row.held, row.funds, row.open].map(Number);
    if (balance + held !== funds)
      add(LEDGER_RULES.funds, `key ${row.id}`, `balance=${balance} held=${held} ledger=${funds}`);
    if (held !== open) add(LEDGER_RULES.held, `key ${row.id}`, `held=${held} open holds=${open}`);
  }

  // Each settled hold resolves to capture + release exactly (a settlement without a hold included).
  const unbalanced = await sql<{ task_id: string; hold: number; capture: number; release: number }>`
    select task_id,
      sum(case when kind = 'hold' then amount else 0 end) as hold,
      sum(case when kind = 'capture' then amount else 0 end) as capture,
      sum(case when kind = 'release' then amount else 0 end) as release
    from ledger_entries where task_id is not null
    group by task_id
    having sum(case when kind in ${SETTLEMENT} then 1 else 0 end) > 0
      and sum(case when kind = 'hold' then amount when kind in ${SETTLEMENT} then -amount else 0 end) <> 0`.execute(
    db,
  );
  for (const row of unbalanced.rows) {
    add(
      LEDGER_RULES.settlement,
      `task ${row.task_id}`,
      `hold=${Number(row.hold)} capture=${Number(row.capture)} release=${Number(row.release)}`,
    );
  }

  const openHold = sql`exists (select 1 from ledger_entries h where h.task_id = t.id and h.kind = 'hold')
    and not exists (select 1 from ledger_entries s where s.task_id = t.id and s.kind in ${SETTLEMENT})`;
  const finalWithOpenHold = await sql<{ id: string; status: string }>`
    select t.id, t.status from tasks t where t.status in ${FINAL} and ${openHold}`.execute(db);
  for (const task of finalWithOpenHold.rows)
    add(LEDGER_RULES.finalTask, `task ${task.id}`, `status=${task.status}`);

  // A task that is not final and was charged keeps its hold open until it ends.
  const openWithoutHold = await sql<{ id: string; status: string }>`
    select t.id, t.status from tasks t
    where t.status not in ${FINAL} and t.hold_amount > 0 and not (${openHold})`.execute(db);
  for (const task of openWithoutHold.rows)
    add(LEDGER_RULES.openTask, `task ${task.id}`, `status=${task.status}`);

  // PostgreSQL enforces no foreign key from entries to keys (migration 010): checked here.
  const orphans = await sql<{ key_id: number; entries: number }>`
    select e.key_id, count(*) as entries from ledger_entries e
    where not exists (select 1 from api_keys k where k.id = e.key_id)
    group by e.key_id`.execute(db);
  for (const row of orphans.rows)
    add(LEDGER_RULES.entryKey, `key ${row.key_id}`, `${Number(row.entries)} entries, no such key`);

  // Nor from tasks to their key and account (migration 011).
  const keyless = await sql<{ id: string; key_id: number }>`
    select t.id, t.key_id from tasks t
    where not exists (select 1 from api_keys k where k.id = t.key_id and k.account_id = t.account_id)`.execute(
    db,
  );
  for (const row of keyless.rows) add(LEDGER_RULES.taskKey, `task ${row.id}`, `key ${row.key_id}`);

  // A recorded open chat request whose hold is missing or already settled.
  const chatHolds = await sql<{ id: string; amount: number }>`
    select c.id, c.amount from chat_holds c
    where not exists (select 1 from ledger_entries h where h.task_id = c.id and h.kind = 'hold'
                        and h.key_id = c.key_id and h.amount = c.amount)
       or exists (select 1 from ledger_entries s where s.task_id = c.id and s.kind in ${SETTLEMENT})`.execute(
    db,
  );
  for (const row of chatHolds.rows)
    add(LEDGER_RULES.chatHold, `chat ${row.id}`, `amount=${Number(row.amount)}`);

  // Money in (migration 015): each top-up, refund and code against the entries carrying its id.
  const topups = await sql<{
    id: string;
    status: string;
    amount: number;
    credited: number | null;
    n: number;
  }>`
    select t.id, t.status, t.amount, sum(e.amount) as credited, count(e.id) as n
    from topups t left join ledger_entries e on e.task_id = t.id and e.kind = 'topup' and e.key_id = t.key_id
    group by t.id, t.status, t.amount
    having (t.status in ('succeeded', 'refunded') and (count(e.id) <> 1 or sum(e.amount) <> t.amount))
        or (t.status in ('pending', 'canceled') and count(e.id) <> 0)`.execute(db);
  for (const row of topups.rows)
    add(
      LEDGER_RULES.topupCredit,
      `topup ${row.id}`,
      `status=${row.status} amount=${Number(row.amount)} credits=${Number(row.n)}`,
    );

  const refunds = await sql<{ id: string; status: string }>`
    select r.id, r.status from topup_refunds r
    where not exists (select 1 from ledger_entries d where d.task_id = r.id and d.kind = 'refund'
                        and d.amount = r.amount and d.key_id = r.key_id)
       or (r.status = 'refused') <> exists (select 1 from ledger_entries v where v.task_id = r.id
                        and v.kind = 'refund_reversal' and v.amount = r.amount)`.execute(db);
  for (const row of refunds.rows) add(LEDGER_RULES.refundDebit, `refund ${row.id}`, `status=${row.status}`);

  const codes = await sql<{ id: string; redeemed: number | null }>`
    select c.id, c.redeemed_at as redeemed from topup_codes c
    where (c.redeemed_at is not null) <> exists (select 1 from ledger_entries e where e.task_id = c.id
                        and e.kind = 'redeem' and e.amount = c.amount and e.key_id = c.redeemed_key_id)`.execute(
    db,
  );
  for (const row of codes.rows)
    add(LEDGER_RULES.codeCredit, `code ${row.id}`, `redeemed_at=${row.redeemed ?? 'null'}`);
  return violations;
}
