// What the top-up service needs from a payment provider. services/payments/ uses only this; each
// folder beside it (yookassa/, stripe/) maps it onto one provider's API.

/** A payment as its provider reports it: the facts a credit or a cancel is decided on. */
export interface ObservedPayment {
  providerPaymentId: string;
  status: 'pending' | 'succeeded' | 'canceled';
  /** The top-up id the provider carries back (metadata / client_reference_id). */
  topupId: string | null;
  /** What was paid, in the currency's minor units; null while unpaid. */
  paidMinor: number | null;
  currency: string;
  /** Why it was canceled, when it was. */
  reason?: string;
}

export interface CreatePaymentInput {
  topupId: string;
  /** Micro-rubles to credit. */
  amountMicro: number;
  charge: { currency: string; minor: number };
  email: string | null;
  /** Where the payer returns after paying (or giving up). */
  returnUrl: string;
  description: string;
}

export interface CreatedPayment {
  providerPaymentId: string;
  confirmationUrl: string;
}

export interface RefundInput {
  /** Our refund id: also the idempotency key of the provider's call. */
  refundId: string;
  providerPaymentId: string;
  charge: { currency: string; minor: number };
}

export type RefundOutcome =
  | { status: 'succeeded' | 'pending'; providerRefundId: string }
  | { status: 'refused'; reason: string };

/** What a notification told us, once its sender is checked. */
export type NotificationHint =
  /** Read this payment back from the provider and act on that answer. */
  | { kind: 'check'; providerPaymentId: string }
  /** A signed event the provider vouches for (Stripe): act on it. */
  | { kind: 'observed'; payment: ObservedPayment }
  /** Authentic, and nothing to do (another event type). */
  | { kind: 'ignored' }
  /** Not from the provider: refused (the code says how the hook answers). */
  | { kind: 'refused'; status: 400 | 403; message: string };

export interface IncomingNotification {
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
  /** The caller's address as the HTTP layer resolved it (TRUST_PROXY applies). */
  ip: string;
}

export interface PaymentMethod {
  readonly name: string;
  /** The payer's email is required (a receipt is sent with each payment). */
  readonly receipts: boolean;
  /** The charge for a ruble amount in the provider's currency, minor units, rounded up. */
  charge(amountMicro: number): { currency: string; minor: number };
  createPayment(input: CreatePaymentInput): Promise<CreatedPayment>;
  readPayment(providerPaymentId: string): Promise<ObservedPayment>;
  refund(input: RefundInput): Promise<RefundOutcome>;
  readNotification(notification: IncomingNotification): Promise<NotificationHint>;
}

/**
 * The provider could not be reached, timed out, or failed (5xx) after the retries: the outcome is
 * unknown, and a retry with the same idempotency key is safe.
 */
export class PaymentProviderUnavailable extends Error {
  constructor(
    message: string,
    readonly timedOut: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The provider refused the request (a 4xx): retrying it unchanged will not help. */
export class PaymentProviderRefused extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}
