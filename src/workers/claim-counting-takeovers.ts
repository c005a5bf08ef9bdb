// A claim of due tasks that also tells how many of them were taken over from a worker whose lease
// had expired (a crashed or stalled worker). On PostgreSQL the claim statement says so for each row
// it locked and claimed (one statement, exact). On SQLite the ids with expired leases are read first,
// in the claim's own transaction, which serializes writers, so the count is exact too.
import type { Metrics } from '../services/metrics.js';
import { expiredLeaseIds } from '../storage/queue-stats.js';
import type { TaskRow } from '../storage/repositories/tasks.js';
import type { Storage } from '../storage/storage.js';

export async function claimDueCountingTakeovers(
  storage: Storage,
  metrics: Metrics | undefined,
  claim: { workerId: string; now: number | (() => number); leaseMs: number; limit: number },
): Promise<TaskRow[]> {
  const { workerId, leaseMs, limit } = claim;
  if (storage.engine === 'postgres') {
    const claimed = await storage.tasks.claimDueCountingTakeovers(workerId, claim.now, leaseMs, limit);
    if (claimed.takeovers) metrics?.leaseTakeovers.inc(claimed.takeovers);
    return claimed.rows;
  }
  let takeovers = 0;
  const rows = await storage.transaction(async (tx) => {
    // The time is read when the transaction runs, not when it was queued: under load a claim can
    // wait in the group commit for longer than a lease, and a lease dated from the queueing would
    // already have run out when it commits, so another worker would take the task at once and both
    // would submit it.
    const now = typeof claim.now === 'function' ? claim.now() : claim.now;
    const expired = metrics ? await expiredLeaseIds(tx.db, now, limit) : [];
    const claimed = await tx.tasks.claimDue(workerId, now, leaseMs, limit);
    if (expired.length > 0) for (const row of claimed) if (expired.includes(row.id)) takeovers++;
    return claimed;
  });
  if (takeovers > 0) metrics?.leaseTakeovers.inc(takeovers);
  return rows;
}
