// The low-balance notice sender: every WORKER_POLL_INTERVAL_MS it leases the due notices (up to
// WORKER_CONCURRENCY) and sends them at once. It runs only when TELEGRAM_BOT_TOKEN is set.
import type { AppContext } from '../context.js';
import { LowBalanceNotices } from '../services/notices/low-balance.js';
import { type RunningWorker, startLoop } from './loop.js';

export function startNoticeSender(
  ctx: AppContext,
  log: (msg: string, err?: unknown) => void,
): RunningWorker | undefined {
  const notices = new LowBalanceNotices(ctx);
  if (!notices.enabled) return undefined;
  return startLoop(
    'balance-notices',
    ctx.config.workerPollIntervalMs,
    async () => {
      const due = await notices.claimDue(ctx.config.workerConcurrency);
      await Promise.all(
        due.map((notice) =>
          notices.attempt(notice).catch((error) => log(`low-balance notice ${notice.id} failed`, error)),
        ),
      );
    },
    (error) => log('low-balance notice sender failed', error),
  );
}
