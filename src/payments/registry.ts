// The payment methods that are on (their secrets are set), by name. The only place that names them.
import type { PaymentsConfig } from './config.js';
import type { PaymentMethod } from './method.js';
import { YookassaMethod } from './yookassa/adapter.js';

/**
 * The Stripe adapter is imported only when Stripe is on: loading the `stripe` package takes 65-85 ms,
 * which every start (and every CLI command) would otherwise pay for a method most operators leave off.
 */
export async function paymentMethodsOf(config: PaymentsConfig): Promise<Map<string, PaymentMethod>> {
  const methods = new Map<string, PaymentMethod>();
  if (config.yookassa) {
    methods.set(
      'yookassa',
      new YookassaMethod({
        settings: config.yookassa,
        notifyIps: config.yookassaNotifyIps,
        timeoutMs: config.providerTimeoutMs,
      }),
    );
  }
  if (config.stripe) {
    const { StripeMethod } = await import('./stripe/adapter.js');
    methods.set('stripe', new StripeMethod({ settings: config.stripe, timeoutMs: config.providerTimeoutMs }));
  }
  return methods;
}

/** Every method gengate knows, on or off: a hook for a method that is off answers 404. */
export const KNOWN_METHODS = ['yookassa', 'stripe'] as const;
