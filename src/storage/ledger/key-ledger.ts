// One key's ledger history for its owner: newest first, filtered by kind and time, paged by entry id
// (the ledger's (key_id, id) index gives the order). The key is matched with its owner account, so
// another account's key id shows nothing.
import type { Kysely } from 'kysely';
import type { Database, LedgerKind } from '../schema.js';
import type { LedgerEntryRow } from './ledger.js';

export interface LedgerHistoryQuery {
  accountId: number;
  keyId: number;
  kinds?: LedgerKind[];
  /** created_at in [from, to), epoch ms. */
  from?: number;
  to?: number;
  /** Entries with an id below this one (the previous page's last id). */
  beforeId?: number;
  limit: number;
}

export class KeyLedgerRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async history(q: LedgerHistoryQuery): Promise<LedgerEntryRow[]> {
    let query = this.db
      .selectFrom('ledger_entries')
      .selectAll()
      .where('key_id', '=', q.keyId)
      .where('account_id', '=', q.accountId);
    if (q.kinds && q.kinds.length > 0) query = query.where('kind', 'in', q.kinds);
    if (q.from !== undefined) query = query.where('created_at', '>=', q.from);
    if (q.to !== undefined) query = query.where('created_at', '<', q.to);
    if (q.beforeId !== undefined) query = query.where('id', '<', q.beforeId);
    return query.orderBy('id', 'desc').limit(q.limit).execute();
  }
}
