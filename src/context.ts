// What the composition root hands to routes and workers: every service, built once.
import type { Config } from './config.js';
import type { AccountsService } from './services/accounts.js';
import type { AuthService } from './services/auth.js';
import type { CatalogService } from './services/catalog.js';
import type { Clock } from './services/clock.js';
import type { MaintenanceService } from './services/maintenance.js';
import type { RateLimiter } from './services/rate-limit.js';
import type { Storage } from './storage/storage.js';

export interface AppContext {
  config: Config;
  clock: Clock;
  storage: Storage;
  accounts: AccountsService;
  catalog: CatalogService;
  maintenance: MaintenanceService;
  auth: AuthService;
  rateLimiter: RateLimiter;
}
