// A chat hold lives as long as its request, in the memory of the process serving it. If that
// process dies mid-request, the hold must not stay open:
// - every hold names its process, whose lease (hold-lease.ts) is renewed while it lives; once the
//   lease has run out, any process releases the hold (releaseHoldsOfDeadProcesses);
// - a backstop sweep releases any hold still open long after a live request could have ended
//   (holds opened before leases existed, or a bug), whatever its process.
// Released means: the hold is settled with nothing captured (the whole hold goes back to the
// balance) and the request's usage row is written as failed, in one transaction that only applies
// while the hold is open, so each hold is released exactly once, however many processes sweep at the
// same time. A request still running when swept (its process stalled past its lease) settles nothing
// afterwards: its hold is no longer open.
import type { ChatHoldRow } from '../../storage/repositories/chat-holds.js';
import type { Storage } from '../../storage/storage.js';
import type { Metrics } from '../metrics.js';

/** Far beyond any live chat request: PROVIDER_TIMEOUT_MS bounds each wait, and streams end long before. */
export const ABANDONED_CHAT_HOLD_MS = 6 * 3600 * 1000;
/** Rows released per query; a sweep repeats until fewer come back. */
const SWEEP_BATCH = 100;

/** The backstop: releases holds open for more than `olderThanMs`, whatever their process. */
export async function releaseAbandonedChatHolds(
  storage: Storage,
  now: number,
  olderThanMs = ABANDONED_CHAT_HOLD_MS,
  metrics?: Metrics,
): Promise<number> {
  return releaseAll(storage, now, metrics, () => storage.chatHolds.openSince(now - olderThanMs, SWEEP_BATCH));
}

/** Releases the holds of every process whose lease ran out before `now`. */
export async function releaseHoldsOfDeadProcesses(
  storage: Storage,
  now: number,
  metrics?: Metrics,
): Promise<number> {
  return releaseAll(storage, now, metrics, () => storage.chatHolds.ofDeadProcesses(now, SWEEP_BATCH));
}

async function releaseAll(
  storage: Storage,
  now: number,
  metrics: Metrics | undefined,
  batch: () => Promise<ChatHoldRow[]>,
): Promise<number> {
  let released = 0;
  for (;;) {
    const rows = await batch();
    for (const row of rows) if (await release(storage, row, now, metrics)) released++;
    // A hold another sweeper closed first is gone from the next batch too; a short batch is the last.
    if (rows.length < SWEEP_BATCH) return released;
  }
}

async function release(
  storage: Storage,
  hold: ChatHoldRow,
  now: number,
  metrics?: Metrics,
): Promise<boolean> {
  const outcome = {
    status: 'failed' as const,
    inputTokens: 0,
    outputTokens: 0,
    cost: 0,
    latencyMs: Math.max(0, now - Number(hold.created_at)),
  };
  const amount = Number(hold.amount);
  const released = await storage.chatBilling.settle(
    { keyId: Number(hold.key_id), accountId: Number(hold.account_id), now },
    hold.id,
    amount,
    outcome,
  );
  if (released) metrics?.holdAbandoned(hold.model_id, amount);
  return released;
}
