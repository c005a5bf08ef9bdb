// WAL checkpoints on a worker thread. SQLite checkpoints automatically inside a commit once the WAL
// holds 1,000 pages: it copies the pages into the database file and fsyncs both files, on whichever
// thread committed. The driver is synchronous, so that stalled the event loop every few hundred
// commits (and made an average commit several times slower than it needs to be). Here a second
// connection, on its own thread, runs PASSIVE checkpoints (they never wait for, nor block, the
// writer) every `intervalMs`; the writer's automatic checkpoint stays as a backstop at a larger size.
import { Worker } from 'node:worker_threads';
import { SQLITE_DRIVER_PATH } from './sqlite-connection.js';

/** The writer's own checkpoint threshold (pages) while the background one runs: about 40 MB. */
export const BACKSTOP_CHECKPOINT_PAGES = 10_000;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require(workerData.driver);
const db = new DatabaseSync(workerData.file);
db.exec('pragma busy_timeout = 0');
const timer = setInterval(() => {
  try {
    db.exec('pragma wal_checkpoint(PASSIVE)');
  } catch {
    // Busy (the writer is checkpointing itself) or a transient error: the next round retries.
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startCheckpointer(file: string, intervalMs = 250): Checkpointer {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file, driver: SQLITE_DRIVER_PATH, intervalMs },
  });
  // Never keeps the process alive; an error in it must not take the process down either.
  worker.unref();
  worker.on('error', () => {});
  return {
    async stop() {
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      // Waited for: the process must not end while its connection is still closing.
      worker.ref();
      worker.postMessage('stop');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
      await worker.terminate();
    },
  };
}
