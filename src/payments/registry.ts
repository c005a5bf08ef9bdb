// The payment methods that are on (their secrets are set), by name. The only place that names them.
import type { PaymentsConfig } from './config.js';
import type { PaymentMethod } from './method.js';
import { StripeMethod } from './stripe/adapter.js';
import { YookassaMethod } from './yookassa/adapter.js';

export function paymentMethodsOf(config: PaymentsConfig): Map<string, PaymentMethod> {
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
  if (config.stripe)
    methods.set('stripe', new StripeMethod({ settings: config.stripe, timeoutMs: config.providerTimeoutMs }));
  return methods;
}

/** Every method gengate knows, on or off: a hook for a method that is off answers 404. */
export const KNOWN_METHODS = ['yookassa', 'stripe'] as const;
