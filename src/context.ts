// What the composition root hands to routes and workers: every service, built once.
import type { Config } from './config.js';
import type { AccountsService } from './services/accounts.js';
import type { AuthService } from './services/auth.js';
import type { CatalogService } from './services/catalog.js';
import type { ChatService } from './services/chat/chat-service.js';
import type { Clock } from './services/clock.js';
import type { KeyInvalidation } from './services/key-invalidation.js';
import type { MaintenanceService } from './services/maintenance.js';
import type { Metrics } from './services/metrics.js';
import type { SyncImageService } from './services/openai/sync-image.js';
import type { OperatorServices } from './services/operator/build.js';
import type { PanelServices } from './services/panel/build.js';
import type { PaymentServices } from './services/payments/build.js';
import type { RateLimiter } from './services/rate-limit.js';
import type { TaskServices } from './services/tasks/build.js';
import type { WebhookDeliveryService } from './services/webhooks/delivery.js';
import type { Wakeups } from './storage/pg-wakeups.js';
import type { Storage } from './storage/storage.js';

/** Task services (issue 3): tasks, taskEvents, taskProviders, idempotency, objects. */
export interface AppContext extends TaskServices {
  config: Config;
  clock: Clock;
  storage: Storage;
  accounts: AccountsService;
  catalog: CatalogService;
  maintenance: MaintenanceService;
  auth: AuthService;
  /** Evicts a changed key from the auth cache of every process. */
  keyInvalidation: KeyInvalidation;
  rateLimiter: RateLimiter;
  /** The process's Prometheus registry; add metrics to `metrics.registry`. */
  metrics: Metrics;
  webhooks: WebhookDeliveryService;
  /** POST /v1/chat/completions: token-billed chat over the chat adapters. */
  chat: ChatService;
  /** POST /v1/images/generations: an image task awaited up to SYNC_IMAGE_WAIT_MS, idempotent. */
  syncImages: SyncImageService;
  /** The owner panel's services (src/panel pages use only these and the services above). */
  panel: PanelServices;
  /** The operator console's and the operator-only admin API's services. */
  operator: OperatorServices;
  /** PostgreSQL: LISTEN/NOTIFY wake-ups of the worker loops across processes (pg-wakeups.ts). */
  wakeups?: Wakeups;
  /** Top-ups by card and by code, refunds (services/payments/). */
  payments: PaymentServices;
}
