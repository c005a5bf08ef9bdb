// The webhook outbox: the delivery row is written in the same transaction that makes a task final,
// so a crash between finishing a task and sending its webhook loses nothing.
import { timeOrderedHex } from '../../domain/ids.js';
import type { Storage } from '../../storage/storage.js';

export interface FinalTask {
  id: string;
  account_id: number;
  webhook_url: string | null;
  status: 'completed' | 'failed';
  result: unknown;
  error: string | null;
}

/** The payload of the spec's Events section: result when completed, error when failed. */
export function webhookPayload(task: FinalTask): string {
  return JSON.stringify(
    task.status === 'completed'
      ? { task_id: task.id, status: task.status, result: task.result }
      : { task_id: task.id, status: task.status, error: task.error },
  );
}

/** A delivery's id, also its webhook-id header: time-ordered. */
export function newDeliveryId(): string {
  return `msg_${timeOrderedHex()}`;
}

/** Must be called with the transaction that finalizes the task. No-op when there is no webhook_url. */
export async function enqueueTaskWebhook(
  tx: Storage,
  task: FinalTask,
  now: number,
): Promise<string | undefined> {
  if (!task.webhook_url) return undefined;
  const id = newDeliveryId();
  await tx.webhooks.insert({
    id,
    task_id: task.id,
    account_id: task.account_id,
    url: task.webhook_url,
    payload: webhookPayload(task),
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    created_at: now,
    updated_at: now,
  });
  return id;
}
