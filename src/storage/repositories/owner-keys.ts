// Owner-side key changes the panel makes beyond restrictions: rename, deletion of an emptied key,
// and when each key was last used. Every statement is matched by the owner account.
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { ApiKeyRow } from './keys.js';

export class OwnerKeysRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async rename(
    accountId: number,
    keyId: number,
    name: string | null,
    now: number,
  ): Promise<ApiKeyRow | undefined> {
    return this.db
      .updateTable('api_keys')
      .set({ name, updated_at: now })
      .where('id', '=', keyId)
      .where('account_id', '=', accountId)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
  }

  /**
   * Deletes the key only while it holds nothing (no balance, no open hold): the guard is part of the
   * UPDATE, so a top-up or hold racing with the deletion either lands first and blocks it, or finds
   * the key deleted. Undefined when the key is not the owner's live key or still holds money.
   */
  async deleteIfEmpty(accountId: number, keyId: number, now: number): Promise<ApiKeyRow | undefined> {
    return this.db
      .updateTable('api_keys')
      .set({ deleted_at: now, updated_at: now })
      .where('id', '=', keyId)
      .where('account_id', '=', accountId)
      .where('deleted_at', 'is', null)
      .where('balance', '=', 0)
      .where('held', '=', 0)
      .returningAll()
      .executeTakeFirst();
  }

  /**
   * When each of the keys last paid for a request (its newest hold), read backwards off the ledger's
   * (key_id, id) index: one short seek per key, whatever the ledger's size.
   */
  async lastUsed(accountId: number, keyIds: number[]): Promise<Map<number, number>> {
    const used = new Map<number, number>();
    await Promise.all(
      keyIds.map(async (keyId) => {
        const row = await this.db
          .selectFrom('ledger_entries')
          .select('created_at')
          .where('key_id', '=', keyId)
          .where('account_id', '=', accountId)
          .where('kind', '=', 'hold')
          .orderBy('id', 'desc')
          .limit(1)
          .executeTakeFirst();
        if (row) used.set(keyId, Number(row.created_at));
      }),
    );
    return used;
  }
}
