// The webhook sender loop: polls the outbox every WORKER_POLL_INTERVAL_MS (200 ms by default, so an
// embedded server delivers promptly) and keeps up to WORKER_CONCURRENCY attempts in flight, so one
// slow receiver never holds back the others. A delivery leased by a process that died is claimed
// again once its lease expires.
import type { AppContext } from '../context.js';
import { type RunningWorker, startLoop } from './index.js';

export function startWebhookSender(
  ctx: AppContext,
  log: (msg: string, err?: unknown) => void,
): RunningWorker {
  const inFlight = new Set<Promise<void>>();
  const capacity = ctx.config.workerConcurrency;
  const loop = startLoop(
    'webhook-sender',
    ctx.config.workerPollIntervalMs,
    async () => {
      const claimed = await ctx.webhooks.claimDue(capacity - inFlight.size);
      for (const delivery of claimed) {
        const attempt: Promise<void> = ctx.webhooks
          .attempt(delivery)
          .then(
            () => undefined,
            (error) => log(`webhook ${delivery.delivery.id} attempt failed`, error),
          )
          .finally(() => inFlight.delete(attempt));
        inFlight.add(attempt);
      }
    },
    (error) => log('webhook sender failed', error),
  );
  return {
    name: 'webhook-sender',
    async stop() {
      await loop.stop();
      await Promise.all(inFlight);
    },
  };
}
