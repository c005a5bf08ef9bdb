// Re-checks provider accounts marked down (an auth or billing refusal) with the same call as
// `gengate providers check`, every PROVIDER_RECHECK_MS, until the upstream accepts them again. Every
// worker process runs this loop; the pool lets one process check each account per interval.
import type { AppContext } from '../context.js';
import { checkProvider } from '../services/providers-check.js';
import { type RunningWorker, startLoop } from './loop.js';

export function startProviderRecheck(
  ctx: Pick<AppContext, 'providerPool' | 'taskProviders' | 'config'>,
  log: (msg: string, err?: unknown) => void,
  info: (msg: string, fields: Record<string, unknown>) => void = () => {},
): RunningWorker {
  const recheckMs = ctx.config.providerRecheckMs;
  // Ticks a few times per interval, so an account comes back within PROVIDER_RECHECK_MS of its fix.
  const tickMs = Math.max(10, Math.min(1_000, Math.floor(recheckMs / 4)));
  return startLoop(
    'provider-recheck',
    tickMs,
    async () => {
      if (ctx.taskProviders.config.providers.size === 0) return;
      const back = await ctx.providerPool.recheckDown(async (name) => {
        const row = await checkProvider(ctx.taskProviders, name);
        // A type without a check (null) cannot prove anything: its account is let back in to try.
        return {
          reachable: row.reachable !== false,
          authOk: row.authOk !== false && row.reachable !== false,
          detail: row.detail || undefined,
        };
      });
      for (const name of back) info('provider account is up again', { provider: name });
    },
    (error) => log('provider re-check failed', error),
  );
}
