// The bench's view of the webhook receiver process: reset it, read its counts, wait for tasks.
import { call, sleep } from '../http.js';
import type { BenchEnvironment } from './context.js';

const STALL_MS = 20_000;

export interface ReceiverStats {
  tasks: number;
  completed: number;
  failed: number;
  deliveries: number;
  malformed: number;
  lastFinalAtMs: number | null;
  /** From each task's creation to its webhook's arrival (first delivery), in ms. */
  createdToWebhookMs: { p50: number | null; p99: number | null; max: number | null };
}

export function webhookUrl(env: BenchEnvironment): string {
  return `${env.receiver.origin}/hook`;
}

export async function resetReceiver(env: BenchEnvironment): Promise<void> {
  await call(env.receiver.origin, 'POST', '/reset');
}

export async function receiverStats(env: BenchEnvironment): Promise<ReceiverStats> {
  return (await call(env.receiver.origin, 'GET', '/stats')).json;
}

/** Ids of tasks whose webhook said completed. */
export async function completedIds(env: BenchEnvironment, limit: number): Promise<string[]> {
  const answer = await call(env.receiver.origin, 'GET', `/ids?limit=${limit}`);
  return Array.isArray(answer.json) ? answer.json : [];
}

/** Polls until `expected` tasks are final, the deadline passes, or nothing moves for 20 s. */
export async function waitForFinal(
  env: BenchEnvironment,
  expected: number,
  deadlineMs: number,
): Promise<ReceiverStats> {
  let stats = await receiverStats(env);
  let lastProgress = Date.now();
  let seen = stats.tasks;
  while (stats.tasks < expected && Date.now() < deadlineMs && Date.now() - lastProgress < STALL_MS) {
    await sleep(100);
    stats = await receiverStats(env);
    if (stats.tasks > seen) {
      seen = stats.tasks;
      lastProgress = Date.now();
    }
  }
  return stats;
}
