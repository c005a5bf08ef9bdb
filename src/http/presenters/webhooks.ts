// A webhook delivery as the admin API (and later the panel) shows it. The payload is left out: it is
// the task's result, readable through GET /tasks/{id}.
import type { WebhookDeliveryRow } from '../../storage/repositories/webhooks.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function presentDelivery(row: WebhookDeliveryRow) {
  return {
    id: row.id,
    task_id: row.task_id,
    url: row.url,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    delivered_at: iso(row.delivered_at),
  };
}
