// The webhook sender loop: polls the outbox every WORKER_POLL_INTERVAL_MS (200 ms by default) and
// keeps up to WORKER_CONCURRENCY attempts in flight, so one slow receiver never holds back the
// others. It does not wait for the next poll when there is work: a task that became final in this
// process, or an attempt that freed a slot while more deliveries were due, starts a claim at once
// (nudges are coalesced, so a burst of finished tasks costs one claim per batch, not one each).
// A delivery leased by a process that died is claimed again once its lease expires.
import type { AppContext } from '../context.js';
import type { RunningWorker } from './loop.js';

export function startWebhookSender(
  ctx: AppContext,
  log: (msg: string, err?: unknown) => void,
): RunningWorker {
  const inFlight = new Set<Promise<void>>();
  const capacity = ctx.config.workerConcurrency;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let timerAt = 0;
  let ticking: Promise<void> | undefined;
  /** A nudge came while a claim was running: claim again when it ends. */
  let again = false;
  /** The last claim filled every free slot: there may be more due deliveries behind it. */
  let backlog = false;

  const schedule = (delayMs: number) => {
    if (stopped) return;
    // A timer that fires as soon keeps its place: a stream of nudges must not postpone the claim.
    if (timer && timerAt <= Date.now() + delayMs) return;
    if (timer) clearTimeout(timer);
    timerAt = Date.now() + delayMs;
    timer = setTimeout(() => {
      timer = undefined;
      ticking = tick()
        .catch((error) => log('webhook sender failed', error))
        .finally(() => {
          ticking = undefined;
          const more = again;
          again = false;
          schedule(more ? 0 : ctx.config.workerPollIntervalMs);
        });
    }, delayMs);
    timer.unref?.();
  };

  const nudge = () => {
    if (stopped) return;
    if (ticking) again = true;
    else schedule(0);
  };

  async function tick(): Promise<void> {
    const free = capacity - inFlight.size;
    if (free <= 0) return;
    const claimed = await ctx.webhooks.claimDue(free);
    backlog = claimed.length === free;
    for (const delivery of claimed) {
      const attempt: Promise<void> = ctx.webhooks
        .attempt(delivery)
        .then(
          () => undefined,
          (error) => log(`webhook ${delivery.delivery.id} attempt failed`, error),
        )
        .finally(() => {
          inFlight.delete(attempt);
          if (backlog) nudge();
        });
      inFlight.add(attempt);
    }
  }

  // Tasks finished in this process nudge it directly; tasks finished by a process without a sender
  // wake it through NOTIFY (PostgreSQL). Others are found at the next poll.
  const unsubscribe = [
    ctx.taskEvents.webhookSenderStarted(),
    ctx.taskEvents.onFinished(nudge),
    ...(ctx.wakeups ? [ctx.wakeups.on('webhooks', nudge)] : []),
  ];
  schedule(ctx.config.workerPollIntervalMs);
  return {
    name: 'webhook-sender',
    async stop() {
      stopped = true;
      for (const stop of unsubscribe) stop();
      if (timer) clearTimeout(timer);
      timer = undefined;
      await ticking;
      await Promise.all(inFlight);
    },
  };
}
