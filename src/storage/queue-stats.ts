// Read-only queue figures for the metrics: how many tasks are waiting or at a provider, and which
// processing tasks a dead or stalled worker left behind (an expired lease). Both read the
// (status, run_at) index range of the non-final tasks only; final tasks are never scanned.
import { type Kysely, sql } from 'kysely';
import type { QueueDepth } from '../services/metrics.js';
import type { Database } from './schema.js';

export async function readQueueDepth(db: Kysely<Database>, now: number): Promise<QueueDepth> {
  const rows = await db
    .selectFrom('tasks')
    .select([
      'status',
      (eb) => eb.fn.countAll<string | number>().as('n'),
      sql<
        string | number | null
      >`sum(case when lease_owner is not null and lease_expires_at <= ${now} then 1 else 0 end)`.as(
        'expired',
      ),
    ])
    .where('status', 'in', ['pending', 'processing'])
    .groupBy('status')
    .execute();
  const depth: QueueDepth = { pending: 0, processing: 0, expiredLeases: 0 };
  for (const row of rows) {
    if (row.status === 'pending') depth.pending = Number(row.n);
    if (row.status === 'processing') {
      depth.processing = Number(row.n);
      depth.expiredLeases = Number(row.expired ?? 0);
    }
  }
  return depth;
}

/**
 * The ids of up to `limit` processing tasks, due now, whose lease has expired: the ones a claim at
 * `now` takes over from their previous worker (read in the claim's transaction, before it).
 */
export async function expiredLeaseIds(db: Kysely<Database>, now: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('tasks')
    .select('id')
    .where('status', '=', 'processing')
    .where('run_at', '<=', now)
    .where('lease_owner', 'is not', null)
    .where('lease_expires_at', '<=', now)
    .orderBy('run_at')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}
