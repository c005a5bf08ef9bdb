// The owner panel's services, built once by the composition root (app.ts): pages receive them and
// never build their own or reach into storage.
import type { Storage } from '../../storage/storage.js';
import type { AccountsService } from '../accounts.js';
import type { Clock } from '../clock.js';
import type { KeyInvalidation } from '../key-invalidation.js';
import type { RateLimiter } from '../rate-limit.js';
import { PanelAnalyticsService } from './analytics-panel.js';
import { LedgerHistoryService } from './ledger-history.js';
import { OwnerKeysService } from './owner-keys.js';
import { OwnerReads } from './owner-reads.js';
import { PanelAudit } from './panel-audit.js';
import { PanelSessions } from './panel-sessions.js';
import { PanelSignInGuard } from './panel-sign-in-guard.js';
import { PanelTwoFactor } from './panel-two-factor.js';
import { TransferService } from './transfers.js';

export interface PanelServices {
  sessions: PanelSessions;
  twoFactor: PanelTwoFactor;
  guard: PanelSignInGuard;
  audit: PanelAudit;
  analytics: PanelAnalyticsService;
  keys: OwnerKeysService;
  history: LedgerHistoryService;
  transfers: TransferService;
  owner: OwnerReads;
}

export function buildPanelServices(deps: {
  storage: Storage;
  clock: Clock;
  accounts: AccountsService;
  keyInvalidation: KeyInvalidation;
  rateLimiter: RateLimiter;
}): PanelServices {
  const { storage, clock } = deps;
  return {
    sessions: new PanelSessions(storage, clock),
    twoFactor: new PanelTwoFactor(storage, clock),
    guard: new PanelSignInGuard(deps.rateLimiter, storage, clock),
    audit: new PanelAudit(storage, clock),
    analytics: new PanelAnalyticsService(storage, clock),
    keys: new OwnerKeysService(deps),
    history: new LedgerHistoryService(storage),
    transfers: new TransferService(storage, clock),
    owner: new OwnerReads(storage, clock),
  };
}
