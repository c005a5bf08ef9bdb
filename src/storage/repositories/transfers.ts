// Money moved by an owner between two of their own keys: one `transfer` entry on each key (the
// amount negative on the source, positive on the destination), written in the caller's transaction
// (Storage.transaction, the same entry point and group commit as every hold and settlement). Both
// keys are matched by the owner account, so another account's key is simply not found; the debit is
// guarded like a hold (`balance >= amount`), so a transfer never takes more than what is available.
import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema.js';
import { BalanceNoticesRepository } from './balance-notices.js';

export interface TransferInput {
  accountId: number;
  fromKeyId: number;
  toKeyId: number;
  /** Micro-rubles, a positive integer. */
  amount: number;
  note: string | null;
  now: number;
}

/** Nothing was moved: a key is not the owner's live key, or the source's balance does not cover it.
 * Thrown inside the caller's transaction, so a credit already written is rolled back with it. */
export class TransferRefusedError extends Error {
  constructor(readonly reason: 'not_found' | 'insufficient') {
    super(`transfer refused: ${reason}`);
  }
}

export class TransfersRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Must run inside a transaction (it throws otherwise): the two balance updates and their entries
   * commit together, and a refusal (TransferRefusedError) rolls back whatever was written. The keys are updated in id order, so two opposite transfers racing on
   * PostgreSQL wait for each other instead of deadlocking.
   */
  async transfer(input: TransferInput): Promise<{ fromBalance: number; toBalance: number }> {
    if (!this.db.isTransaction) throw new Error('TransfersRepository.transfer needs a transaction');
    const { accountId, fromKeyId, toKeyId, amount, now } = input;
    if (!Number.isSafeInteger(amount) || amount <= 0)
      throw new Error(`transfer amount must be a positive integer, got ${amount}`);
    if (fromKeyId === toKeyId) throw new TransferRefusedError('not_found');
    const balances = new Map<number, { balance: number; held: number }>();
    const order = fromKeyId < toKeyId ? [fromKeyId, toKeyId] : [toKeyId, fromKeyId];
    for (const keyId of order) {
      const debit = keyId === fromKeyId;
      let update = this.db
        .updateTable('api_keys')
        .set({ balance: debit ? sql`balance - ${amount}` : sql`balance + ${amount}`, updated_at: now })
        .where('id', '=', keyId)
        .where('account_id', '=', accountId)
        .where('deleted_at', 'is', null);
      if (debit) update = update.where('balance', '>=', amount);
      const after = await update.returning(['balance', 'held', 'low_balance']).executeTakeFirst();
      if (!after) {
        if (!debit) throw new TransferRefusedError('not_found');
        const exists = await this.db
          .selectFrom('api_keys')
          .select('id')
          .where('id', '=', keyId)
          .where('account_id', '=', accountId)
          .where('deleted_at', 'is', null)
          .executeTakeFirst();
        throw new TransferRefusedError(exists ? 'insufficient' : 'not_found');
      }
      balances.set(keyId, { balance: Number(after.balance), held: Number(after.held) });
      if (debit)
        await new BalanceNoticesRepository(this.db).recordIfCrossed({
          id: `lb:${randomUUID()}`,
          accountId,
          keyId,
          after,
          lowered: amount,
          now,
        });
    }
    const out = balances.get(fromKeyId)!;
    const into = balances.get(toKeyId)!;
    const entry = (
      keyId: number,
      signed: number,
      after: { balance: number; held: number },
      note: string,
    ) => ({
      key_id: keyId,
      account_id: accountId,
      task_id: null,
      kind: 'transfer' as const,
      amount: signed,
      balance_after: after.balance,
      held_after: after.held,
      note,
      created_at: now,
    });
    const suffix = input.note ? `: ${input.note}` : '';
    await this.db
      .insertInto('ledger_entries')
      .values([
        entry(fromKeyId, -amount, out, `to key ${toKeyId}${suffix}`),
        entry(toKeyId, amount, into, `from key ${fromKeyId}${suffix}`),
      ])
      .execute();
    return { fromBalance: out.balance, toBalance: into.balance };
  }
}
