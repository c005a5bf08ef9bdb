// A task's webhook deliveries, for its owner (the panel's task page). Read off webhook_task
// (migration 008); another account's task id shows nothing.
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { WebhookDeliveryRow } from './webhooks.js';

export class TaskDeliveriesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async forTask(accountId: number, taskId: string): Promise<WebhookDeliveryRow[]> {
    return this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('task_id', '=', taskId)
      .where('account_id', '=', accountId)
      .orderBy('created_at')
      .execute();
  }
}
