// The reads and audit entries the owner's panel pages need beyond their feature services, each
// scoped by the signed-in owner's account: pages call this instead of reaching into storage.
import type { ApiKeyRow } from '../../storage/repositories/keys.js';
import { TaskDeliveriesRepository } from '../../storage/repositories/task-deliveries.js';
import type { Storage } from '../../storage/storage.js';
import type { Actor } from '../accounts.js';
import type { Clock } from '../clock.js';
import { listTasks, type TaskPage, type TaskPageQuery } from '../tasks/list-tasks.js';

export class OwnerReads {
  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
  ) {}

  account(accountId: number) {
    return this.storage.accounts.byId(accountId);
  }

  /** Telegram sign-in: the account whose messaging id is the Telegram user id. */
  accountByMessagingId(messagingId: number) {
    return this.storage.accounts.byMessagingId(messagingId);
  }

  /** The signed-in owner of a session: account id and messaging id. */
  async owner(accountId: number): Promise<{ accountId: number; messagingId: number } | undefined> {
    const account = await this.storage.accounts.byId(accountId);
    return account ? { accountId, messagingId: Number(account.messaging_id) } : undefined;
  }

  keys(accountId: number): Promise<ApiKeyRow[]> {
    return this.storage.keys.listForAccount(accountId);
  }

  key(accountId: number, keyId: number) {
    return this.storage.keys.forAccount(accountId, keyId);
  }

  spendByKey(accountId: number, since: number) {
    return this.storage.analytics.spendByKey(accountId, since);
  }

  recentTasks(accountId: number, limit: number) {
    return this.storage.tasks.listForOwner(accountId, { limit });
  }

  task(accountId: number, taskId: string) {
    return this.storage.tasks.getForOwner(accountId, taskId.toLowerCase());
  }

  tasks(accountId: number, query: TaskPageQuery): Promise<TaskPage> {
    return listTasks(this.storage, accountId, query);
  }

  taskDeliveries(accountId: number, taskId: string) {
    return new TaskDeliveriesRepository(this.storage.db).forTask(accountId, taskId);
  }

  delivery(accountId: number, deliveryId: string) {
    return this.storage.webhooks.byId(deliveryId, accountId);
  }

  /** An owner's action in the account's audit log. */
  async record(accountId: number, by: Actor, action: string, details?: unknown): Promise<void> {
    await this.storage.audit.append({ accountId, ...by, action, details, now: this.clock.now() });
  }
}
