// Refunds of paid top-ups, by the operator. The key is debited (a `refund` entry carrying the
// refund's id) in one transaction with the refund record and the top-up's `refunded` state, before
// the provider is asked: money that is being paid back can no longer be spent. A refund the
// provider refuses is reversed (`refund_reversal`, same id) and the top-up is `succeeded` again.
// When the provider's answer is lost, the refund stays pending and reconcile asks again with the
// same idempotency key, which cannot refund twice.
import { randomBytes } from 'node:crypto';
import { kopeckAmount } from '../../domain/billing/topup-amount.js';
import { AppError } from '../../domain/errors.js';
import type { PaymentMethod, RefundOutcome } from '../../payments/method.js';
import type { RefundRow, TopupRow } from '../../storage/repositories/topups.js';
import type { Storage } from '../../storage/storage.js';
import type { Clock } from '../clock.js';
import type { TopupEvents } from './topups.js';

/** A pending refund is asked again once its last attempt is this old. */
const REFUND_RETRY_AFTER_MS = 60_000;

export class RefundService {
  constructor(
    private readonly deps: {
      storage: Storage;
      clock: Clock;
      methods: Map<string, PaymentMethod>;
      events?: TopupEvents;
    },
  ) {}

  /** POST /admin/topups/{id}/refund: answers the top-up after the refund, and the refund. */
  async refund(topupId: string, amountRub: unknown): Promise<{ topup: TopupRow; refund: RefundRow }> {
    const { storage, clock } = this.deps;
    const topup = await storage.topups.byId(topupId);
    if (!topup) throw new AppError('not_found', 'Top-up not found');
    const method = this.deps.methods.get(topup.method);
    if (!method)
      throw new AppError(
        'topup_method_unavailable',
        `${topup.method} is off: its refunds cannot be made here`,
      );
    const full = Number(topup.amount);
    let amount = full;
    if (amountRub !== undefined && amountRub !== null) {
      const asked = kopeckAmount(amountRub);
      if (asked === undefined || asked <= 0 || asked > full)
        throw new AppError(
          'invalid_amount',
          `amount_rub must be a positive number of rubles with at most 2 decimals, up to the top-up's ${full / 1e6}`,
          'amount_rub',
        );
      amount = asked;
    }
    // The provider pays back in its own currency: the share of what was charged, never more.
    const chargeMinor =
      amount === full
        ? Number(topup.charge_minor)
        : Math.min(Number(topup.charge_minor), method.charge(amount).minor);
    const now = clock.now();
    const refund: RefundRow = {
      id: `rf_${randomBytes(16).toString('hex')}`,
      topup_id: topup.id,
      account_id: Number(topup.account_id),
      key_id: Number(topup.key_id),
      amount,
      status: 'pending',
      provider_refund_id: null,
      failure: null,
      created_at: now,
      updated_at: now,
    };
    await storage.transaction(async (tx) => {
      if (!(await tx.topups.markRefunded(topup.id, now)))
        throw new AppError(
          'topup_not_refundable',
          `The top-up is ${topup.status}: only a succeeded one can be refunded`,
        );
      await tx.topups.insertRefund(refund);
      const ref = { keyId: refund.key_id, accountId: refund.account_id, now };
      const balance = await tx.ledger.moveBalance(ref, 'refund', amount, refund.id, `refund of ${topup.id}`);
      if (balance === undefined)
        throw new AppError(
          'refund_exceeds_balance',
          `The key holds less than ${amount / 1e6} RUB available: it cannot be refunded that much`,
          'amount_rub',
        );
    });
    await this.ask(method, refund, topup, chargeMinor);
    const after = (await storage.topups.byId(topup.id)) ?? topup;
    return { topup: after, refund: (await storage.topups.refundById(refund.id)) ?? refund };
  }

  /** Asks the provider; settles the refund on a definite answer, leaves it pending otherwise. */
  private async ask(
    method: PaymentMethod,
    refund: RefundRow,
    topup: TopupRow,
    chargeMinor: number,
  ): Promise<void> {
    let outcome: RefundOutcome;
    try {
      outcome = await method.refund({
        refundId: refund.id,
        providerPaymentId: topup.provider_payment_id ?? '',
        charge: { currency: topup.charge_currency, minor: chargeMinor },
      });
    } catch (error) {
      this.deps.events?.warn?.(
        `refund ${refund.id}: no answer from the provider yet; reconcile asks again`,
        error,
      );
      await this.deps.storage.topups.touchRefund(refund.id, this.deps.clock.now());
      return;
    }
    await this.settle(refund, outcome, topup.method);
  }

  private async settle(refund: RefundRow, outcome: RefundOutcome, methodName: string): Promise<void> {
    const { storage, clock } = this.deps;
    const now = clock.now();
    if (outcome.status !== 'refused') {
      const done = await storage.topups.settleRefund(refund.id, now, {
        status: 'succeeded',
        providerRefundId: outcome.providerRefundId,
      });
      if (done) this.deps.events?.refunded?.(methodName, Number(refund.amount));
      return;
    }
    await storage.transaction(async (tx) => {
      if (!(await tx.topups.settleRefund(refund.id, now, { status: 'refused', failure: outcome.reason })))
        return;
      const ref = { keyId: Number(refund.key_id), accountId: Number(refund.account_id), now };
      await tx.ledger.moveBalance(ref, 'refund_reversal', Number(refund.amount), refund.id, 'refund refused');
      await tx.topups.unmarkRefunded(refund.topup_id, now);
    });
  }

  /** Refunds left pending by a lost answer: asked again with the same idempotency key. */
  async retryPending(now: number): Promise<void> {
    const { storage } = this.deps;
    for (const refund of await storage.topups.pendingRefunds(now - REFUND_RETRY_AFTER_MS, 20)) {
      const topup = await storage.topups.byId(refund.topup_id);
      const method = topup ? this.deps.methods.get(topup.method) : undefined;
      if (!topup || !method) continue;
      const chargeMinor =
        Number(refund.amount) === Number(topup.amount)
          ? Number(topup.charge_minor)
          : Math.min(Number(topup.charge_minor), method.charge(Number(refund.amount)).minor);
      await this.ask(method, refund, topup, chargeMinor);
    }
  }
}
