// Periodic upkeep: audit entries past their 90-day retention, expired Idempotency-Keys, and the
// panel's daily usage totals of finished days (sealed here so no owner's page view has to).
import type { AppContext } from '../context.js';
import { purgeExpiredIdempotencyKeys } from '../services/idempotency.js';
import { MAX_CUSTOM_DAYS } from '../services/panel/analytics-panel.js';

export const AUDIT_RETENTION_MS = 90 * 24 * 3600 * 1000;
/** A day finishes once a day; looking more often than hourly only costs queries. */
export const SEAL_INTERVAL_MS = 3600 * 1000;

/** When each gengate of this process last sealed (a test or a bench may run several). */
const lastSealedAt = new WeakMap<AppContext, number>();

export async function runJanitorOnce(
  ctx: AppContext,
): Promise<{ audit: number; idempotencyKeys: number; sealedAccounts: number }> {
  const now = ctx.clock.now();
  const audit = await ctx.storage.audit.purgeOlderThan(now - AUDIT_RETENTION_MS);
  const idempotencyKeys = await purgeExpiredIdempotencyKeys(ctx.storage, now);
  let sealedAccounts = 0;
  if (now - (lastSealedAt.get(ctx) ?? Number.NEGATIVE_INFINITY) >= SEAL_INTERVAL_MS) {
    sealedAccounts = await ctx.storage.analytics.sealFinishedDays(now, MAX_CUSTOM_DAYS);
    lastSealedAt.set(ctx, now);
  }
  return { audit, idempotencyKeys, sealedAccounts };
}
