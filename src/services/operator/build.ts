// The operator's services (the console and the operator-only admin API), built once by the
// composition root.
import type { Config } from '../../config.js';
import type { TaskProviderRegistry } from '../../providers/task-registry.js';
import type { Storage } from '../../storage/storage.js';
import type { AccountsService } from '../accounts.js';
import type { CatalogService } from '../catalog.js';
import type { Clock } from '../clock.js';
import type { MaintenanceService } from '../maintenance.js';
import type { Metrics } from '../metrics.js';
import type { PanelSessions } from '../panel/panel-sessions.js';
import type { PaymentServices } from '../payments/build.js';
import type { ProviderPool } from '../provider-pool.js';
import type { RateLimiter } from '../rate-limit.js';
import type { WebhookDeliveryService } from '../webhooks/delivery.js';
import { ConsoleSessions } from './console-sessions.js';
import { MarginReportService } from './margin-report.js';
import { OperatorConsole } from './operator-console.js';
import { OperatorPayments } from './operator-payments.js';
import { ProviderStatus } from './provider-status.js';

export interface OperatorServices {
  margin: MarginReportService;
  sessions: ConsoleSessions;
  console: OperatorConsole;
  payments: OperatorPayments;
  providers: ProviderStatus;
}

export function buildOperatorServices(deps: {
  config: Config;
  storage: Storage;
  clock: Clock;
  rateLimiter: RateLimiter;
  accounts: AccountsService;
  catalog: CatalogService;
  maintenance: MaintenanceService;
  webhooks: WebhookDeliveryService;
  panelSessions: PanelSessions;
  taskProviders: TaskProviderRegistry;
  providerPool: ProviderPool;
  metrics: Metrics;
  /** Built after these (they share nothing at build time): read when a page is used. */
  payments: () => PaymentServices;
}): OperatorServices {
  const { config, storage, clock } = deps;
  return {
    margin: new MarginReportService(storage, clock),
    sessions: new ConsoleSessions(storage, clock, deps.rateLimiter, config.adminToken),
    console: new OperatorConsole({ ...deps, publicUrl: config.publicUrl }),
    payments: new OperatorPayments({ storage, clock, payments: deps.payments }),
    providers: new ProviderStatus(
      deps.taskProviders.config,
      deps.metrics,
      async () => new Map((await deps.providerPool.status()).map((account) => [account.name, account.state])),
    ),
  };
}
