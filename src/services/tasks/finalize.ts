// The final transition of a task, in ONE transaction: the status change (a compare-and-set on status
// and lease owner), the ledger settlement (capture + release of the rest, or a full release) and the
// webhook outbox row. A second finalization finds no row to update and changes nothing; the
// ledger's UNIQUE(task_id, kind) would refuse a second settlement anyway.
import type { TaskRow } from '../../storage/repositories/tasks.js';
import type { Storage } from '../../storage/storage.js';
import { enqueueTaskWebhook, newDeliveryId, webhookPayload } from '../webhooks/outbox.js';
import type { TaskEvents } from './events.js';

export type FinalOutcome =
  /** `cost` is what is captured: at most the hold (see actualCost). */
  /** `providerJobId`: the job id of a result the provider answered at submit, stored with it. */
  (
    | { status: 'completed'; result: Record<string, unknown>; cost: number; providerJobId?: string }
    | { status: 'failed'; error: string }
  ) & {
    /** The route that ended the task, when it is not the one stored (a fallback at submit). */
    provider?: string;
    /** What the upstream cost the operator (micro-rubles); null or absent when unknown. */
    providerCost?: number | null;
  };

/** Returns the final row, or undefined when this worker no longer owns the task. */
export async function finalizeTask(
  storage: Storage,
  events: TaskEvents,
  taskId: string,
  workerId: string,
  outcome: FinalOutcome,
  now: number,
): Promise<TaskRow | undefined> {
  const completed = outcome.status === 'completed';
  // PostgreSQL: one statement, batched with the tasks finishing alongside (pg-finish-batch.ts);
  // null when not finished there, and the transaction below gives the exact answer.
  const batched = await storage.tasks.finishBatched({
    taskId,
    workerId,
    status: outcome.status,
    result: completed ? JSON.stringify(outcome.result) : null,
    error: completed ? null : outcome.error,
    cost: completed ? outcome.cost : 0,
    providerCost: outcome.providerCost ?? null,
    providerJobId: (completed ? outcome.providerJobId : undefined) ?? null,
    provider: outcome.provider ?? null,
    now,
    webhookId: newDeliveryId(),
    webhookPayload: webhookPayload({
      id: taskId,
      account_id: 0,
      webhook_url: null,
      status: outcome.status,
      result: completed ? outcome.result : null,
      error: completed ? null : outcome.error,
    }),
  });
  if (batched) {
    events.finished(batched.id);
    return batched;
  }
  const final = await storage.transaction(async (tx) => {
    const row = await tx.tasks.finish(taskId, workerId, {
      status: outcome.status,
      result: completed ? JSON.stringify(outcome.result) : null,
      error: completed ? null : outcome.error,
      cost: completed ? outcome.cost : 0,
      providerCost: outcome.providerCost ?? null,
      providerJobId: completed ? outcome.providerJobId : undefined,
      provider: outcome.provider,
      now,
    });
    if (!row) return undefined;
    const ref = { keyId: row.key_id, accountId: row.account_id, now };
    if (completed) {
      await tx.ledger.settle(ref, row.id, row.hold_amount, outcome.cost);
    } else {
      await tx.ledger.release(ref, row.id, row.hold_amount);
    }
    await enqueueTaskWebhook(
      tx,
      {
        id: row.id,
        account_id: row.account_id,
        webhook_url: row.webhook_url,
        status: outcome.status,
        result: completed ? outcome.result : null,
        error: completed ? null : outcome.error,
      },
      now,
    );
    return row;
  });
  if (final) events.finished(final.id);
  return final;
}
