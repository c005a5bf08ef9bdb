// Stored responses of idempotent POSTs, scoped per API key. A row is written in the same transaction
// as the task it answers for, so "committed" implies "cached"; UNIQUE(key_id, idem_key) guarantees
// that two concurrent requests with one key cannot both commit.
import type { Kysely, Selectable } from 'kysely';
import type { Database, IdempotencyKeysTable } from '../schema.js';

export type IdempotencyRow = Selectable<IdempotencyKeysTable>;

export interface NewIdempotencyRow {
  keyId: number;
  idemKey: string;
  fingerprint: string;
  state: 'in_progress' | 'done';
  responseStatus: number | null;
  responseBody: string | null;
  taskId: string | null;
  now: number;
  expiresAt: number;
}

export class IdempotencyRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** The live (unexpired) row of this API key and Idempotency-Key. */
  async find(keyId: number, idemKey: string, now: number): Promise<IdempotencyRow | undefined> {
    return this.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('key_id', '=', keyId)
      .where('idem_key', '=', idemKey)
      .where('expires_at', '>', now)
      .executeTakeFirst();
  }

  /**
   * Inserts the row unless one exists, and returns its id. An expired row of the same key is
   * forgotten first. Returns undefined when a live row already exists (committed by a concurrent
   * request: on PostgreSQL the insert waits for that transaction, then does nothing).
   */
  async tryInsert(row: NewIdempotencyRow): Promise<number | undefined> {
    await this.db
      .deleteFrom('idempotency_keys')
      .where('key_id', '=', row.keyId)
      .where('idem_key', '=', row.idemKey)
      .where('expires_at', '<=', row.now)
      .execute();
    const inserted = await this.db
      .insertInto('idempotency_keys')
      .values({
        key_id: row.keyId,
        idem_key: row.idemKey,
        fingerprint: row.fingerprint,
        state: row.state,
        response_status: row.responseStatus,
        response_body: row.responseBody,
        task_id: row.taskId,
        created_at: row.now,
        expires_at: row.expiresAt,
      })
      .onConflict((oc) => oc.columns(['key_id', 'idem_key']).doNothing())
      .returning('id')
      .executeTakeFirst();
    return inserted === undefined ? undefined : Number(inserted.id);
  }

  /** Stores the final response of an in-progress row (e.g. a synchronous image that is now ready). */
  async complete(id: number, response: { status: number; body: string }): Promise<boolean> {
    const result = await this.db
      .updateTable('idempotency_keys')
      .set({ state: 'done', response_status: response.status, response_body: response.body })
      .where('id', '=', id)
      .where('state', '=', 'in_progress')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Forgets an in-progress row whose request ended without a cacheable (2xx/4xx) response. */
  async abandon(id: number): Promise<void> {
    await this.db
      .deleteFrom('idempotency_keys')
      .where('id', '=', id)
      .where('state', '=', 'in_progress')
      .execute();
  }

  async purgeExpired(now: number): Promise<number> {
    const result = await this.db
      .deleteFrom('idempotency_keys')
      .where('expires_at', '<=', now)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
