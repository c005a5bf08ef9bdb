// The webhook delivery use cases: lease due deliveries, attempt one, record its result on the
// retry schedule, and the operator's manual redelivery.
import type { Agent } from 'undici';
import type { Config } from '../../config.js';
import { AppError } from '../../domain/errors.js';
import { afterAttempt, type DeliveryUpdate } from '../../domain/webhooks/schedule.js';
import { signingSecrets } from '../../domain/webhooks/signing.js';
import type {
  LeasedDelivery,
  LeasedWithSecrets,
  WebhookDeliveryRow,
} from '../../storage/repositories/webhooks.js';
import type { Storage } from '../../storage/storage.js';
import type { Actor } from '../accounts.js';
import type { Clock } from '../clock.js';
import type { Metrics } from '../metrics.js';
import { createEgressAgent } from './egress.js';
import { sendWebhook } from './sender.js';
import type { ResolveHost } from './target-policy.js';

type WebhookConfig = Pick<
  Config,
  'webhookTimeoutMs' | 'webhookRetryDelaysMs' | 'webhookAllowPrivate' | 'leaseMs'
>;

interface PendingRecord {
  delivery: LeasedDelivery;
  update: DeliveryUpdate;
  last: { statusCode: number | null; error: string | null };
  now: number;
  done: (recorded: boolean) => void;
  fail: (error: unknown) => void;
}

export class WebhookDeliveryService {
  private agent: Agent | undefined;
  /** Attempt results waiting to be written; see record(). */
  private pendingRecords: PendingRecord[] = [];

  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly config: WebhookConfig,
    private readonly metrics: Metrics,
    private readonly options: { resolve?: ResolveHost; random?: () => number } = {},
  ) {}

  /**
   * The lease covers a whole attempt (at most WEBHOOK_TIMEOUT_MS) plus LEASE_MS of slack, so a live
   * sender never loses its lease, and a dead one's deliveries are taken over LEASE_MS after its
   * attempt would have timed out.
   */
  get leaseMs(): number {
    return this.config.webhookTimeoutMs + this.config.leaseMs;
  }

  async claimDue(limit: number): Promise<LeasedWithSecrets[]> {
    return this.storage.webhooks.claimDueWithSecrets(this.clock.now(), this.leaseMs, limit);
  }

  /** One attempt. Returns what was recorded, or undefined when the lease was lost meanwhile. */
  async attempt({ delivery, secrets }: LeasedWithSecrets): Promise<DeliveryUpdate | undefined> {
    const message = {
      id: delivery.id,
      url: delivery.url,
      payload: delivery.payload,
      secrets: signingSecrets(secrets, this.clock.now()),
    };
    const outcome = await sendWebhook(this.egress(), message, this.config.webhookTimeoutMs, this.clock.now());
    const now = this.clock.now();
    const update = afterAttempt(
      delivery.attempts,
      outcome,
      now,
      this.config.webhookRetryDelaysMs,
      this.options.random,
    );
    const last = outcome.ok
      ? { statusCode: outcome.statusCode, error: null }
      : { statusCode: outcome.statusCode, error: outcome.error };
    if (!(await this.record(delivery, update, last, now))) return undefined;
    this.metrics.webhookDeliveries.inc({ outcome: outcome.ok ? 'delivered' : 'failed_attempt' });
    if (update.status === 'undelivered') this.metrics.webhookDeliveries.inc({ outcome: 'undelivered' });
    return update;
  }

  /**
   * Sends a delivery again with fresh attempts and the same webhook-id, whatever its status, and
   * audits it. `ownerAccountId` scopes the lookup for an owner (the panel).
   */
  async redeliver(id: string, by: Actor, ownerAccountId?: number): Promise<WebhookDeliveryRow> {
    const now = this.clock.now();
    return this.storage.transaction(async (tx) => {
      const delivery = await tx.webhooks.resetForRedelivery(id, now, ownerAccountId);
      if (!delivery) throw new AppError('not_found', 'Webhook delivery not found');
      await tx.audit.append({
        accountId: delivery.account_id,
        ...by,
        action: 'webhook.redelivered',
        details: { delivery_id: delivery.id, task_id: delivery.task_id },
        now,
      });
      return delivery;
    });
  }

  /**
   * Records an attempt's result. The results of attempts that end in the same turn of the event
   * loop are written together in one transaction (one commit instead of one each); each write is
   * still its own compare-and-set on its delivery's lease.
   */
  private record(
    delivery: LeasedDelivery,
    update: DeliveryUpdate,
    last: PendingRecord['last'],
    now: number,
  ): Promise<boolean> {
    return new Promise((done, fail) => {
      if (this.pendingRecords.length === 0) setImmediate(() => this.flushRecords());
      this.pendingRecords.push({ delivery, update, last, now, done, fail });
    });
  }

  private async flushRecords(): Promise<void> {
    const batch = this.pendingRecords;
    this.pendingRecords = [];
    try {
      // One statement on PostgreSQL, one transaction of compare-and-sets on SQLite.
      const recorded = await this.storage.recordWebhookAttempts(batch);
      for (const [i, r] of batch.entries()) r.done(recorded[i]);
    } catch (error) {
      for (const r of batch) r.fail(error);
    }
  }

  async close(): Promise<void> {
    await this.agent?.close();
    this.agent = undefined;
  }

  /** Created on first use, so processes that never deliver (CLI, API-only) open nothing. */
  private egress(): Agent {
    this.agent ??= createEgressAgent({
      allowPrivate: this.config.webhookAllowPrivate,
      connectTimeoutMs: this.config.webhookTimeoutMs,
      resolve: this.options.resolve,
    });
    return this.agent;
  }
}
