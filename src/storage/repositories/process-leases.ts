// The lease of each process that serves chat: one row per process, renewed by a heartbeat. A chat
// hold names its process (chat_holds.process_id); once that process's lease has run out, any
// other process may release the hold (services/chat/hold-lease.ts).
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

export class ProcessLeaseRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Creates or extends the lease of `processId` to `expiresAt`. */
  async renew(processId: string, now: number, expiresAt: number): Promise<void> {
    await this.db
      .insertInto('process_leases')
      .values({ process_id: processId, expires_at: expiresAt, started_at: now })
      .onConflict((oc) =>
        oc.column('process_id').doUpdateSet((eb) => ({ expires_at: eb.ref('excluded.expires_at') })),
      )
      .execute();
  }

  /** Ends the lease at once (a clean shutdown): any holds still open become releasable. */
  async end(processId: string): Promise<void> {
    await this.db.deleteFrom('process_leases').where('process_id', '=', processId).execute();
  }

  async expiresAt(processId: string): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('process_leases')
      .select('expires_at')
      .where('process_id', '=', processId)
      .executeTakeFirst();
    return row === undefined ? undefined : Number(row.expires_at);
  }

  /**
   * Deletes leases that ran out before `now` and name no open chat hold any more, so the
   * table holds about one row per live process. A process that was only stalled re-creates its row
   * at its next renewal.
   */
  async purgeExpired(now: number): Promise<number> {
    const result = await this.db
      .deleteFrom('process_leases')
      .where('expires_at', '<', now)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('chat_holds as h')
              .select('h.id')
              .whereRef('h.process_id', '=', 'process_leases.process_id'),
          ),
        ),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
