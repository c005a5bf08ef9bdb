// YooKassa's payment and refund objects, mapped to and from what the top-up service speaks.
// Shapes: yookassa.ru/developers/api (payment object, refund object), 54-FZ receipt:
// yookassa.ru/developers/payment-acceptance/receipts/54fz/yoomoney/parameters-values.

import type { YookassaSettings } from '../config.js';
import type { CreatePaymentInput, ObservedPayment } from '../method.js';

/** Minor units (kopecks) as YooKassa's amount string: 50000 → "500.00". */
export function kopecksToValue(minor: number): string {
  return `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;
}

/** "500.00" (or "500", "500.5") → 50000; undefined when it is not such a number. */
export function valueToKopecks(value: unknown): number | undefined {
  const match = typeof value === 'string' ? /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(value) : null;
  return match ? Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0')) : undefined;
}

export function paymentRequest(input: CreatePaymentInput, settings: YookassaSettings) {
  const amount = { value: kopecksToValue(input.charge.minor), currency: 'RUB' };
  return {
    amount,
    capture: true,
    confirmation: { type: 'redirect', return_url: input.returnUrl },
    description: input.description.slice(0, 128),
    metadata: { topup_id: input.topupId },
    ...(settings.receipts && input.email
      ? {
          receipt: {
            customer: { email: input.email },
            items: [
              {
                description: input.description.slice(0, 128),
                quantity: '1.00',
                amount,
                vat_code: settings.vatCode,
                payment_mode: settings.paymentMode,
                payment_subject: settings.paymentSubject,
              },
            ],
          },
        }
      : {}),
  };
}

/** A payment object as an ObservedPayment; anything it cannot read is treated as not paid. */
export function observedPayment(body: any): ObservedPayment {
  const status = body?.status;
  const paid = status === 'succeeded' && body?.paid === true;
  const paidMinor = paid ? (valueToKopecks(body?.amount?.value) ?? null) : null;
  return {
    providerPaymentId: String(body?.id ?? ''),
    // waiting_for_capture does not occur with capture: true; it is still not money taken.
    status: paid && paidMinor !== null ? 'succeeded' : status === 'canceled' ? 'canceled' : 'pending',
    topupId: typeof body?.metadata?.topup_id === 'string' ? body.metadata.topup_id : null,
    paidMinor,
    currency: typeof body?.amount?.currency === 'string' ? body.amount.currency.toLowerCase() : '',
    reason:
      typeof body?.cancellation_details?.reason === 'string' ? body.cancellation_details.reason : undefined,
  };
}
