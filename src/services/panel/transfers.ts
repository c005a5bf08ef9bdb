// An owner moves money between two of their own keys: both ledger entries, both balance updates and
// the audit record in one transaction. The amount arrives as text typed in rubles ("1 250,50") and
// becomes integer micro-rubles without a float; it never exceeds the source's available balance.
import { MICRO_PER_RUB, rubToMicro } from '../../domain/billing/money.js';
import { AppError } from '../../domain/errors.js';
import { TransferRefusedError, TransfersRepository } from '../../storage/repositories/transfers.js';
import type { Storage } from '../../storage/storage.js';
import type { Actor } from '../accounts.js';
import type { Clock } from '../clock.js';

const NOTE_MAX = 200;

/**
 * Rubles typed by a person: digits with an optional decimal point or comma and at most 6 decimals,
 * spaces between thousands allowed. Exact: the text is converted digit by digit, never through a float.
 */
export function parseRubText(text: string, param = 'amount'): number {
  const compact = text.replace(/[\s\u00a0\u202f]/g, '').replace(',', '.');
  if (!/^\d+(\.\d{1,6})?$/.test(compact))
    throw new AppError(
      'invalid_parameter',
      'Give the amount in rubles, e.g. 150 or 99.50 (at most 6 decimals)',
      param,
    );
  const micro = rubToMicro(compact, param);
  if (micro <= 0) throw new AppError('invalid_parameter', 'The amount must be more than zero', param);
  return micro;
}

export interface TransferResult {
  amount: number;
  fromBalance: number;
  toBalance: number;
}

export class TransferService {
  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
  ) {}

  async transfer(
    accountId: number,
    input: { fromKeyId: number; toKeyId: number; amount: string; note?: string | null },
    by: Actor,
  ): Promise<TransferResult> {
    const amount = parseRubText(input.amount);
    const note = (input.note ?? '').trim() || null;
    if (note && note.length > NOTE_MAX)
      throw new AppError('invalid_parameter', `The note may have at most ${NOTE_MAX} characters`, 'note');
    if (!Number.isSafeInteger(input.fromKeyId) || !Number.isSafeInteger(input.toKeyId))
      throw new AppError('not_found', 'Key not found');
    if (input.fromKeyId === input.toKeyId)
      throw new AppError('invalid_parameter', 'Choose two different keys', 'to_key_id');
    const now = this.clock.now();
    try {
      return await this.storage.transaction(async (tx) => {
        const moved = await new TransfersRepository(tx.db).transfer({
          accountId,
          fromKeyId: input.fromKeyId,
          toKeyId: input.toKeyId,
          amount,
          note,
          now,
        });
        await tx.audit.append({
          accountId,
          ...by,
          action: 'key.transfer',
          details: { from_key_id: input.fromKeyId, to_key_id: input.toKeyId, amount_micro: amount, note },
          now,
        });
        return { amount, ...moved };
      });
    } catch (error) {
      if (!(error instanceof TransferRefusedError)) throw error;
      if (error.reason === 'not_found') throw new AppError('not_found', 'Key not found');
      const source = await this.storage.keys.forAccount(accountId, input.fromKeyId);
      const available = source ? `${(source.balance / MICRO_PER_RUB).toFixed(2)} RUB` : 'less';
      throw new AppError(
        'insufficient_balance',
        `The source key has ${available} available, less than the transfer`,
        'amount',
      );
    }
  }
}
