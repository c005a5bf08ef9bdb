// Periodic clean-up: audit entries past their 90-day retention, expired Idempotency-Keys.
import type { AppContext } from '../context.js';
import { purgeExpiredIdempotencyKeys } from '../services/idempotency.js';

export const AUDIT_RETENTION_MS = 90 * 24 * 3600 * 1000;

export async function runJanitorOnce(ctx: AppContext): Promise<{ audit: number; idempotencyKeys: number }> {
  const now = ctx.clock.now();
  const audit = await ctx.storage.audit.purgeOlderThan(now - AUDIT_RETENTION_MS);
  const idempotencyKeys = await purgeExpiredIdempotencyKeys(ctx.storage, now);
  return { audit, idempotencyKeys };
}
