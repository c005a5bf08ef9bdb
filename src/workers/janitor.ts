// Periodic clean-up: audit entries past their 90-day retention.
import type { AppContext } from '../context.js';

export const AUDIT_RETENTION_MS = 90 * 24 * 3600 * 1000;

export async function runJanitorOnce(ctx: AppContext): Promise<{ audit: number }> {
  const now = ctx.clock.now();
  const audit = await ctx.storage.audit.purgeOlderThan(now - AUDIT_RETENTION_MS);
  return { audit };
}
