import type { Kysely, Selectable } from 'kysely';
import type { AccountsTable, Database } from '../schema.js';

export type AccountRow = Selectable<AccountsTable>;

export class AccountsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async create(input: {
    messagingId: number;
    coefficientPpm: number;
    webhookSecret: string;
    now: number;
  }): Promise<AccountRow> {
    return this.db
      .insertInto('accounts')
      .values({
        messaging_id: input.messagingId,
        coefficient_ppm: input.coefficientPpm,
        webhook_secret: input.webhookSecret,
        created_at: input.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async byMessagingId(messagingId: number): Promise<AccountRow | undefined> {
    return this.db
      .selectFrom('accounts')
      .selectAll()
      .where('messaging_id', '=', messagingId)
      .executeTakeFirst();
  }

  async byId(accountId: number): Promise<AccountRow | undefined> {
    return this.db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirst();
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('accounts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async update(accountId: number, patch: Partial<Omit<AccountRow, 'id'>>): Promise<AccountRow | undefined> {
    return this.db
      .updateTable('accounts')
      .set(patch)
      .where('id', '=', accountId)
      .returningAll()
      .executeTakeFirst();
  }
}
