// Top-ups as the operator sees them (admin API and CLI): the owner's view plus the key, the account
// and the provider's ids.
import { presentTopup } from '../../services/payments/topups.js';
import type { RefundRow, TopupRow } from '../../storage/repositories/topups.js';

export function presentAdminTopup(t: TopupRow & { messaging_id?: number }, messagingId?: number) {
  return {
    ...presentTopup(t),
    key_id: Number(t.key_id),
    messaging_id: Number(t.messaging_id ?? messagingId),
    provider_payment_id: t.provider_payment_id,
    charge: { currency: t.charge_currency, amount_minor: Number(t.charge_minor) },
    cancel_reason: t.cancel_reason,
    refunded_at: t.refunded_at === null ? null : new Date(Number(t.refunded_at)).toISOString(),
  };
}

export function presentRefund(r: RefundRow) {
  return {
    id: r.id,
    status: r.status,
    amount_rub: Number(r.amount) / 1e6,
    provider_refund_id: r.provider_refund_id,
    failure: r.failure,
  };
}
