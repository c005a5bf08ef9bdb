// Each process that runs workers says so every HEARTBEAT_INTERVAL_MS (a row in worker_heartbeats),
// so the status page can count live workers even while no task runs. Stopping removes the row;
// a crashed worker's row stops being counted after HEARTBEAT_STALE_MS.
import { randomBytes } from 'node:crypto';
import type { WorkerHeartbeatsRepository } from '../storage/repositories/worker-heartbeats.js';
import type { Clock } from './clock.js';

export const HEARTBEAT_INTERVAL_MS = 5_000;
/** Three missed beats: a worker under load may be late once, not three times. */
export const HEARTBEAT_STALE_MS = 3 * HEARTBEAT_INTERVAL_MS;

export interface WorkerHeartbeat {
  name: string;
  workerId: string;
  stop(): Promise<void>;
}

export function startWorkerHeartbeat(
  heartbeats: WorkerHeartbeatsRepository,
  clock: Clock,
  onError: (error: unknown) => void,
  intervalMs = HEARTBEAT_INTERVAL_MS,
): WorkerHeartbeat {
  // Random, not the host name: nothing about the machine needs to be in the database.
  const workerId = randomBytes(9).toString('base64url');
  const startedAt = clock.now();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const beat = () => {
    running = heartbeats
      .beat(workerId, startedAt, clock.now())
      .catch(onError)
      .then(() => {
        if (stopped) return;
        timer = setTimeout(beat, intervalMs);
        timer.unref?.();
      });
  };
  beat();
  return {
    name: 'worker-heartbeat',
    workerId,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      await heartbeats.remove(workerId).catch(onError);
    },
  };
}
