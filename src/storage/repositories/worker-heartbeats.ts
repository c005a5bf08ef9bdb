// One row per running worker process, touched every few seconds: how the status page tells live
// workers from none, even when no task is running (an idle worker leaves no other trace). A worker
// that stops cleanly removes its row; a crashed one's row goes stale and is swept after a day.
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

export interface WorkerHeartbeatsTable {
  worker_id: string;
  started_at: number;
  seen_at: number;
}

/** How long a stale row is kept (it tells nothing after that). */
const KEEP_STALE_MS = 86_400_000;

export class WorkerHeartbeatsRepository {
  private readonly db: Kysely<Database & { worker_heartbeats: WorkerHeartbeatsTable }>;

  constructor(db: Kysely<Database>) {
    this.db = db.withTables<{ worker_heartbeats: WorkerHeartbeatsTable }>();
  }

  async beat(workerId: string, startedAt: number, now: number): Promise<void> {
    await this.db
      .insertInto('worker_heartbeats')
      .values({ worker_id: workerId, started_at: startedAt, seen_at: now })
      .onConflict((oc) => oc.column('worker_id').doUpdateSet({ seen_at: now }))
      .execute();
    await this.db
      .deleteFrom('worker_heartbeats')
      .where('seen_at', '<', now - KEEP_STALE_MS)
      .execute();
  }

  async remove(workerId: string): Promise<void> {
    await this.db.deleteFrom('worker_heartbeats').where('worker_id', '=', workerId).execute();
  }

  /** Workers seen at or after `since`. */
  async liveCount(since: number): Promise<number> {
    const row = await this.db
      .selectFrom('worker_heartbeats')
      .select((eb) => eb.fn.countAll<number>().as('live'))
      .where('seen_at', '>=', since)
      .executeTakeFirst();
    return Number(row?.live ?? 0);
  }
}
