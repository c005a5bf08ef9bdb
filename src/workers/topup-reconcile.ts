// Re-reads pending top-ups from their payment provider every TOPUP_RECONCILE_MS, so a lost
// notification still credits (once: the credit is guarded), unpaid ones are canceled after 24 h,
// and refunds whose answer was lost are asked again. Any number of processes may run it: each
// top-up due is taken by one of them (services/payments/topups.ts, reconcileOnce).
import type { AppContext } from '../context.js';
import { type RunningWorker, startLoop } from './loop.js';

export function startTopupReconcile(
  ctx: AppContext,
  log: (msg: string, err?: unknown) => void,
): RunningWorker | undefined {
  if (ctx.payments.methods.size === 0) return undefined;
  return startLoop(
    'topup-reconcile',
    ctx.config.payments.reconcileMs,
    async () => {
      await ctx.payments.topups.reconcileOnce();
    },
    (e) => log('top-up reconcile failed', e),
  );
}
