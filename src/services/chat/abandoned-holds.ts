// A chat hold lives as long as its request, in the memory of one process. If that process dies
// mid-request, the hold would stay open forever; this sweep releases holds whose usage row is still
// pending long after any live request could have ended, and marks the row failed. A request still
// running when swept (none should be) settles nothing: its usage row is no longer pending.
import type { Storage } from '../../storage/storage.js';

/** Far beyond any live chat request: PROVIDER_TIMEOUT_MS bounds each wait, and streams end long before. */
export const ABANDONED_CHAT_HOLD_MS = 6 * 3600 * 1000;

export async function releaseAbandonedChatHolds(
  storage: Storage,
  now: number,
  olderThanMs = ABANDONED_CHAT_HOLD_MS,
): Promise<number> {
  const stale = await storage.usage.stalePending(now - olderThanMs, 100);
  let released = 0;
  for (const row of stale) {
    const outcome = {
      status: 'failed' as const,
      inputTokens: 0,
      outputTokens: 0,
      cost: 0,
      latencyMs: now - row.created_at,
    };
    const hold = (await storage.ledger.entriesForTask(row.id)).find((entry) => entry.kind === 'hold');
    // The row and its hold are opened together, so a row without one has no money to return; it is
    // still closed, or it would come back first in every sweep.
    const closed = hold
      ? await storage.chatBilling.settle(
          { keyId: row.key_id, accountId: row.account_id, now },
          row.id,
          hold.amount,
          outcome,
        )
      : await storage.usage.finish(row.id, outcome);
    if (closed) released++;
  }
  return released;
}
