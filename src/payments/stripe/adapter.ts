// Stripe Checkout through the official `stripe` package, pointed at STRIPE_API_URL (host, port and
// protocol are options of the client, so tests reach a loopback fake). A top-up is one Checkout
// Session in payment mode (docs.stripe.com/api/checkout/sessions/create), created with the top-up id
// as Idempotency-Key (docs.stripe.com/api/idempotent_requests): the package retries network errors
// and 5xx with that key. Events are verified with the package's Stripe-Signature check
// (docs.stripe.com/webhooks#verify-events: HMAC-SHA256 of "t.payload", 300 s tolerance).
import Stripe from 'stripe';
import type { StripeSettings } from '../config.js';
import {
  type CreatedPayment,
  type CreatePaymentInput,
  type IncomingNotification,
  type NotificationHint,
  type ObservedPayment,
  type PaymentMethod,
  PaymentProviderRefused,
  PaymentProviderUnavailable,
  type RefundInput,
  type RefundOutcome,
} from '../method.js';

/** Stripe's default tolerance for the signature's timestamp, seconds. */
export const STRIPE_SIGNATURE_TOLERANCE_S = 300;

export interface StripeOptions {
  settings: StripeSettings;
  timeoutMs: number;
  /** Retries of one call after the first (network errors, 409 idempotency races, 5xx). */
  retries?: number;
}

/** micro-rubles → minor units of the currency, rounded up to the cent, integers only. */
export function stripeCharge(amountMicro: number, microRubPerUnit: number): number {
  const minor = (BigInt(amountMicro) * 100n + BigInt(microRubPerUnit) - 1n) / BigInt(microRubPerUnit);
  return Number(minor);
}

function clientFor(options: StripeOptions): Stripe {
  const url = new URL(options.settings.apiUrl);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return new Stripe(options.settings.secretKey, {
    host: url.hostname,
    port: url.port ? Number(url.port) : protocol === 'http' ? 80 : 443,
    protocol,
    maxNetworkRetries: options.retries ?? 2,
    timeout: options.timeoutMs,
    telemetry: false,
  });
}

function observedSession(session: Stripe.Checkout.Session): ObservedPayment {
  const paid = session.status === 'complete' && session.payment_status === 'paid';
  return {
    providerPaymentId: session.id,
    status: paid ? 'succeeded' : session.status === 'expired' ? 'canceled' : 'pending',
    topupId: session.client_reference_id ?? null,
    paidMinor: paid ? (session.amount_total ?? null) : null,
    currency: (session.currency ?? '').toLowerCase(),
    reason: session.status === 'expired' ? 'expired' : undefined,
  };
}

/** A package error as ours: a 4xx the request's fault, anything else an unknown outcome. */
function mapError(error: unknown): Error {
  if (error instanceof Stripe.errors.StripeError) {
    const status = error.statusCode ?? 0;
    if (status >= 400 && status < 500 && status !== 409 && status !== 429)
      return new PaymentProviderRefused(`Stripe refused: ${status} ${error.message}`, status);
    const timedOut = /time(d)? ?out/i.test(error.message);
    return new PaymentProviderUnavailable(
      timedOut ? 'Stripe did not answer in time' : `Stripe failed: ${error.message}`,
      timedOut,
      { cause: error },
    );
  }
  return error as Error;
}

export class StripeMethod implements PaymentMethod {
  readonly name = 'stripe';
  readonly receipts = false;
  private readonly stripe: Stripe;

  constructor(private readonly options: StripeOptions) {
    this.stripe = clientFor(options);
  }

  charge(amountMicro: number) {
    const { currency, microRubPerUnit } = this.options.settings;
    return { currency, minor: stripeCharge(amountMicro, microRubPerUnit) };
  }

  async createPayment(input: CreatePaymentInput): Promise<CreatedPayment> {
    let session: Stripe.Checkout.Session;
    try {
      session = await this.stripe.checkout.sessions.create(
        {
          mode: 'payment',
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency: input.charge.currency,
                unit_amount: input.charge.minor,
                product_data: { name: input.description },
              },
            },
          ],
          client_reference_id: input.topupId,
          metadata: { topup_id: input.topupId },
          success_url: input.returnUrl,
          cancel_url: input.returnUrl,
          ...(input.email ? { customer_email: input.email } : {}),
        },
        { idempotencyKey: input.topupId },
      );
    } catch (error) {
      throw mapError(error);
    }
    if (!session.url) throw new PaymentProviderUnavailable('Stripe answered a session without a url', false);
    return { providerPaymentId: session.id, confirmationUrl: session.url };
  }

  async readPayment(providerPaymentId: string): Promise<ObservedPayment> {
    try {
      return observedSession(await this.stripe.checkout.sessions.retrieve(providerPaymentId));
    } catch (error) {
      throw mapError(error);
    }
  }

  async refund(input: RefundInput): Promise<RefundOutcome> {
    try {
      const session = await this.stripe.checkout.sessions.retrieve(input.providerPaymentId);
      const intent =
        typeof session.payment_intent === 'string' ? session.payment_intent : session.payment_intent?.id;
      if (!intent) return { status: 'refused', reason: 'the session has no payment to refund' };
      const refund = await this.stripe.refunds.create(
        { payment_intent: intent, amount: input.charge.minor },
        { idempotencyKey: input.refundId },
      );
      if (refund.status === 'failed' || refund.status === 'canceled')
        return { status: 'refused', reason: refund.failure_reason ?? refund.status };
      return { status: refund.status === 'succeeded' ? 'succeeded' : 'pending', providerRefundId: refund.id };
    } catch (error) {
      const mapped = mapError(error);
      if (mapped instanceof PaymentProviderRefused) return { status: 'refused', reason: mapped.message };
      throw mapped;
    }
  }

  async readNotification(n: IncomingNotification): Promise<NotificationHint> {
    const header = n.headers['stripe-signature'];
    if (typeof header !== 'string' || header === '')
      return { kind: 'refused', status: 400, message: 'Stripe-Signature is missing' };
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(
        n.rawBody,
        header,
        this.options.settings.webhookSecret,
        STRIPE_SIGNATURE_TOLERANCE_S,
      );
    } catch {
      return { kind: 'refused', status: 400, message: 'The Stripe-Signature does not verify' };
    }
    const session = event.data?.object as Stripe.Checkout.Session;
    if (session?.object !== 'checkout.session') return { kind: 'ignored' };
    const observed = observedSession(session);
    switch (event.type) {
      case 'checkout.session.completed':
        // A delayed method completes unpaid, then reports with async_payment_succeeded or _failed.
        return session.payment_status === 'paid'
          ? { kind: 'observed', payment: observed }
          : { kind: 'ignored' };
      case 'checkout.session.async_payment_succeeded':
        return {
          kind: 'observed',
          payment: { ...observed, status: 'succeeded', paidMinor: session.amount_total ?? null },
        };
      case 'checkout.session.expired':
      case 'checkout.session.async_payment_failed':
        return {
          kind: 'observed',
          payment: {
            ...observed,
            status: 'canceled',
            paidMinor: null,
            reason: event.type.slice('checkout.session.'.length),
          },
        };
      default:
        return { kind: 'ignored' };
    }
  }
}
