// Starts the background workers of this process. Each worker is a loop with its own stop().
import type { AppContext } from '../context.js';
import { releaseAbandonedChatHolds, releaseHoldsOfDeadProcesses } from '../services/chat/abandoned-holds.js';
import { startWorkerHeartbeat } from '../services/status-heartbeat.js';
import { WorkerHeartbeatsRepository } from '../storage/repositories/worker-heartbeats.js';
import { runJanitorOnce } from './janitor.js';
import { type RunningWorker, startLoop } from './loop.js';
import { startNoticeSender } from './notice-sender.js';
import { startProviderRecheck } from './provider-recheck.js';
import { startTaskRunner } from './task-runner.js';
import { startTopupReconcile } from './topup-reconcile.js';
import { startWebhookSender } from './webhook-sender.js';

export async function startWorkers(
  ctx: AppContext,
  log: (msg: string, err?: unknown) => void,
  info?: (msg: string, fields: Record<string, unknown>) => void,
): Promise<RunningWorker[]> {
  const noticeSender = startNoticeSender(ctx, log);
  const reconcile = startTopupReconcile(ctx, log);
  return [
    ...(noticeSender ? [noticeSender] : []),
    ...(reconcile ? [reconcile] : []),
    startTaskRunner(ctx, log, info),
    startLoop(
      'janitor',
      60_000,
      () => runJanitorOnce(ctx),
      (e) => log('janitor failed', e),
    ),
    startWebhookSender(ctx, log),
    startProviderRecheck(ctx, log, info),
    // For the status page: a live worker is known even while no task runs.
    startWorkerHeartbeat(new WorkerHeartbeatsRepository(ctx.storage.db), ctx.clock, (e) =>
      log('worker heartbeat failed', e),
    ),
    // Holds of dead processes go within LEASE_MS plus one interval, even with no API process alive.
    startLoop(
      'chat-holds',
      Math.min(60_000, Math.max(10, Math.floor(ctx.config.leaseMs / 3))),
      async () => {
        await releaseHoldsOfDeadProcesses(ctx.storage, ctx.clock.now(), ctx.metrics);
        await releaseAbandonedChatHolds(ctx.storage, ctx.clock.now(), undefined, ctx.metrics);
      },
      (e) => log('chat hold sweep failed', e),
    ),
  ];
}
