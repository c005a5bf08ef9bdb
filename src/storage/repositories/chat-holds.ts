// The open holds of chat requests in flight: one row per request, written with its hold and
// deleted with its settlement (chat-billing.ts), so the table holds only what is in flight. The
// sweeps read it to release the holds of requests whose process died (services/chat/hold-lease.ts)
// or that outlived any live request (services/chat/abandoned-holds.ts).
import type { Kysely, Selectable } from 'kysely';
import { prepared } from '../prepared.js';
import type { ChatHoldsTable, Database } from '../schema.js';

export type ChatHoldRow = Selectable<ChatHoldsTable>;

export interface ChatHoldOpening {
  id: string;
  accountId: number;
  keyId: number;
  modelId: string;
  amount: number;
  now: number;
  /** The process serving the request (its lease keeps the hold open), or null for none. */
  processId: string | null;
}

const OPEN = prepared((db, p: ChatHoldOpening) =>
  db.insertInto('chat_holds').values({
    id: p.id,
    account_id: p.accountId,
    key_id: p.keyId,
    model_id: p.modelId,
    amount: p.amount,
    process_id: p.processId,
    created_at: p.now,
  }),
);

// The columns named: a row of fixed columns is built faster on SQLite (storage/sqlite-connection.ts).
const CLOSE = prepared((db, p: { id: string }) =>
  db
    .deleteFrom('chat_holds')
    .where('id', '=', p.id)
    .returning(['id', 'account_id', 'key_id', 'model_id', 'amount', 'process_id', 'created_at']),
);

export class ChatHoldsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** SQLite, inside the caller's transaction (with the hold's ledger entry), synchronously. */
  openInSqliteTransaction(hold: ChatHoldOpening): void {
    OPEN.direct(this.db, hold);
  }

  /**
   * SQLite, inside the caller's transaction: deletes the open hold and returns it, or undefined when
   * there is none (settled already). The caller checks it is the hold it expected; throwing rolls
   * the deletion back.
   */
  closeInSqliteTransaction(id: string): ChatHoldRow | undefined {
    return CLOSE.direct(this.db, { id }).rows[0];
  }

  async byId(id: string): Promise<ChatHoldRow | undefined> {
    return this.db.selectFrom('chat_holds').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Operator access (the backstop sweep): holds open since before `createdBefore`, oldest first. */
  async openSince(createdBefore: number, limit: number): Promise<ChatHoldRow[]> {
    return this.db
      .selectFrom('chat_holds')
      .selectAll()
      .where('created_at', '<', createdBefore)
      .orderBy('created_at')
      .limit(limit)
      .execute();
  }

  /**
   * Operator access (the lease sweep): holds whose process holds no lease alive at `now` (it died,
   * or stalled past its lease), oldest first. Holds without a process are the backstop's (openSince).
   */
  async ofDeadProcesses(now: number, limit: number): Promise<ChatHoldRow[]> {
    return this.db
      .selectFrom('chat_holds as h')
      .selectAll('h')
      .where('h.process_id', 'is not', null)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('process_leases as l')
              .select('l.process_id')
              .whereRef('l.process_id', '=', 'h.process_id')
              .where('l.expires_at', '>=', now),
          ),
        ),
      )
      .orderBy('h.created_at')
      .limit(limit)
      .execute();
  }
}
