// A chat hold lives as long as its request, in the memory of the process serving it. If that
// process dies mid-request, the hold must not stay open:
// - every hold names its process, whose lease (hold-lease.ts) is renewed while it lives; once the
//   lease has run out, any process releases the hold (releaseHoldsOfDeadProcesses);
// - a backstop sweep releases any hold still pending long after a live request could have ended
//   (rows opened before leases existed, or a bug), whatever its process.
// Released means: the usage row is marked failed and the whole hold goes back to the balance, in one
// transaction that only applies while the row is pending, so each hold is released exactly once,
// however many processes sweep at the same time. A request still running when swept (its process
// stalled past its lease) settles nothing afterwards: its usage row is no longer pending.
import type { UsageRow } from '../../storage/repositories/usage.js';
import type { Storage } from '../../storage/storage.js';
import type { Metrics } from '../metrics.js';

/** Far beyond any live chat request: PROVIDER_TIMEOUT_MS bounds each wait, and streams end long before. */
export const ABANDONED_CHAT_HOLD_MS = 6 * 3600 * 1000;
/** Rows released per query; a sweep repeats until fewer come back. */
const SWEEP_BATCH = 100;

/** The backstop: releases holds pending since more than `olderThanMs`, whatever their process. */
export async function releaseAbandonedChatHolds(
  storage: Storage,
  now: number,
  olderThanMs = ABANDONED_CHAT_HOLD_MS,
  metrics?: Metrics,
): Promise<number> {
  return releaseAll(storage, now, metrics, () => storage.usage.stalePending(now - olderThanMs, SWEEP_BATCH));
}

/** Releases the holds of every process whose lease ran out before `now`. */
export async function releaseHoldsOfDeadProcesses(
  storage: Storage,
  now: number,
  metrics?: Metrics,
): Promise<number> {
  return releaseAll(storage, now, metrics, () => storage.usage.pendingOfDeadProcesses(now, SWEEP_BATCH));
}

async function releaseAll(
  storage: Storage,
  now: number,
  metrics: Metrics | undefined,
  batch: () => Promise<UsageRow[]>,
): Promise<number> {
  let released = 0;
  for (;;) {
    const rows = await batch();
    for (const row of rows) if (await release(storage, row, now, metrics)) released++;
    // A row another sweeper closed first is gone from the next batch too; a short batch is the last.
    if (rows.length < SWEEP_BATCH) return released;
  }
}

async function release(storage: Storage, row: UsageRow, now: number, metrics?: Metrics): Promise<boolean> {
  const outcome = {
    status: 'failed' as const,
    inputTokens: 0,
    outputTokens: 0,
    cost: 0,
    latencyMs: Math.max(0, now - Number(row.created_at)),
  };
  const hold = (await storage.ledger.entriesForTask(row.id)).find((entry) => entry.kind === 'hold');
  // The row and its hold are opened together, so a row without one has no money to return; it is
  // still closed, or it would come back first in every sweep.
  if (!hold) return storage.usage.finish(row.id, outcome);
  const released = await storage.chatBilling.settle(
    { keyId: Number(row.key_id), accountId: Number(row.account_id), now },
    row.id,
    Number(hold.amount),
    outcome,
  );
  if (released) metrics?.holdAbandoned(row.model_id, Number(hold.amount));
  return released;
}
