// Verifies every ledger invariant of DESIGN.md section 3 with plain SQL that runs on both engines.
// Used by `gengate ledger check` and by tests after every chaos or load run.
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';

export interface LedgerViolation {
  rule: string;
  subject: string;
  detail: string;
}

export async function checkLedger(db: Kysely<Database>): Promise<LedgerViolation[]> {
  const violations: LedgerViolation[] = [];

  const negative = await db
    .selectFrom('api_keys')
    .select(['id', 'balance', 'held'])
    .where((eb) => eb.or([eb('balance', '<', 0), eb('held', '<', 0)]))
    .execute();
  for (const k of negative) {
    violations.push({ rule: 'balance >= 0', subject: `key ${k.id}`, detail: `balance=${k.balance} held=${k.held}` });
  }

  // balance + held = Σ(topup + adjust − capture); held = Σ(hold − capture − release).
  const sums = await sql<{ id: number; balance: number; held: number; funds: number | null; open: number | null }>`
    select k.id, k.balance, k.held,
      coalesce(sum(case when e.kind in ('topup', 'adjust') then e.amount when e.kind = 'capture' then -e.amount else 0 end), 0) as funds,
      coalesce(sum(case when e.kind = 'hold' then e.amount when e.kind in ('capture', 'release') then -e.amount else 0 end), 0) as open
    from api_keys k left join ledger_entries e on e.key_id = k.id
    group by k.id, k.balance, k.held`.execute(db);
  for (const row of sums.rows) {
    const funds = Number(row.funds ?? 0);
    const open = Number(row.open ?? 0);
    if (Number(row.balance) + Number(row.held) !== funds) {
      violations.push({
        rule: 'balance + held = sum of ledger entries',
        subject: `key ${row.id}`,
        detail: `balance=${row.balance} held=${row.held} ledger=${funds}`,
      });
    }
    if (Number(row.held) !== open) {
      violations.push({ rule: 'held = open holds', subject: `key ${row.id}`, detail: `held=${row.held} open holds=${open}` });
    }
  }

  // Each hold resolves to capture + release exactly, or is still open.
  const perTask = await sql<{ task_id: string; hold: number | null; capture: number | null; release: number | null; settled: number }>`
    select task_id,
      sum(case when kind = 'hold' then amount else 0 end) as hold,
      sum(case when kind = 'capture' then amount else 0 end) as capture,
      sum(case when kind = 'release' then amount else 0 end) as release,
      sum(case when kind in ('capture', 'release') then 1 else 0 end) as settled
    from ledger_entries where task_id is not null group by task_id`.execute(db);
  const openHolds = new Set<string>();
  for (const row of perTask.rows) {
    const hold = Number(row.hold ?? 0);
    const resolved = Number(row.capture ?? 0) + Number(row.release ?? 0);
    if (Number(row.settled) === 0) {
      openHolds.add(row.task_id);
    } else if (hold !== resolved) {
      violations.push({
        rule: 'hold = capture + release',
        subject: `task ${row.task_id}`,
        detail: `hold=${hold} capture=${row.capture} release=${row.release}`,
      });
    }
  }

  // No final task has an open hold; a task that is not final has one.
  const tasks = await db.selectFrom('tasks').select(['id', 'status', 'hold_amount']).execute();
  for (const task of tasks) {
    const final = task.status === 'completed' || task.status === 'failed';
    if (final && openHolds.has(task.id)) {
      violations.push({ rule: 'no final task has an open hold', subject: `task ${task.id}`, detail: `status=${task.status}` });
    }
    if (!final && !openHolds.has(task.id) && task.hold_amount > 0) {
      violations.push({ rule: 'an open task has its hold', subject: `task ${task.id}`, detail: `status=${task.status}` });
    }
  }
  return violations;
}
