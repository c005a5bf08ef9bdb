// The payment services of one process, built from the settings: the methods that are on, and the
// top-up, refund and code services over them.
import type { Config } from '../../config.js';
import type { PaymentMethod } from '../../payments/method.js';
import { paymentMethodsOf } from '../../payments/registry.js';
import type { Storage } from '../../storage/storage.js';
import type { Clock } from '../clock.js';
import type { IdempotencyService } from '../idempotency.js';
import type { RateLimiter } from '../rate-limit.js';
import { CodeService } from './codes.js';
import { RefundService } from './refunds.js';
import { type TopupEvents, TopupService } from './topups.js';

export interface PaymentServices {
  methods: Map<string, PaymentMethod>;
  topups: TopupService;
  refunds: RefundService;
  codes: CodeService;
}

export async function buildPaymentServices(deps: {
  config: Config;
  storage: Storage;
  clock: Clock;
  idempotency: IdempotencyService;
  rateLimiter: RateLimiter;
  events?: TopupEvents;
  /** Tests replace the methods built from the settings. */
  methods?: Map<string, PaymentMethod>;
}): Promise<PaymentServices> {
  const { config, storage, clock, events } = deps;
  const methods = deps.methods ?? (await paymentMethodsOf(config.payments));
  const topups = new TopupService({
    storage,
    clock,
    config: config.payments,
    publicUrl: () => config.publicUrl,
    methods,
    idempotency: deps.idempotency,
    events,
  });
  const refunds = new RefundService({ storage, clock, methods, events });
  topups.retryPendingRefunds = (now) => refunds.retryPending(now);
  return { methods, topups, refunds, codes: new CodeService(storage, clock, deps.rateLimiter) };
}
