// The payment settings: each method is on only when its secrets are set. Parsed with the rest of
// the configuration (config.ts), which reports every problem at once.
import { parseAllowedIpCidrs } from '../domain/keys/restrictions.js';

type Env = Record<string, string | undefined>;

/**
 * YooKassa's published notification sources (yookassa.ru/developers/using-api/webhooks, "IP
 * addresses"; the same list ships in its official SDKs).
 */
export const YOOKASSA_PUBLISHED_IPS = [
  '185.71.76.0/27',
  '185.71.77.0/27',
  '77.75.153.0/25',
  '77.75.156.11',
  '77.75.156.35',
  '77.75.154.128/25',
  '2a02:5180::/32',
];

export interface YookassaSettings {
  shopId: string;
  secretKey: string;
  apiUrl: string;
  receipts: boolean;
  vatCode: number;
  /** Receipt item fields (54-FZ): an advance for services by default. */
  paymentMode: string;
  paymentSubject: string;
}

export interface StripeSettings {
  secretKey: string;
  webhookSecret: string;
  apiUrl: string;
  /** Lower-case ISO code, as Stripe writes it. */
  currency: string;
  /** Micro-rubles per one unit of the currency (STRIPE_RUB_PER_UNIT). */
  microRubPerUnit: number;
}

export interface PaymentsConfig {
  yookassa: YookassaSettings | undefined;
  stripe: StripeSettings | undefined;
  /** Notifications are read only from these sources (checked even while YooKassa is off). */
  yookassaNotifyIps: string[];
  /** Bounds of one top-up, micro-rubles. */
  minMicro: number;
  maxMicro: number;
  reconcileMs: number;
  /** One attempt at a payment provider's API; attempts are retried with the same key. */
  providerTimeoutMs: number;
}

const MICRO = 1_000_000;

/** A positive decimal with at most 6 places as an integer count of millionths, or undefined. */
function decimalMicro(text: string): number | undefined {
  const match = /^(\d{1,12})(?:\.(\d{1,6}))?$/.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * MICRO + Number((match[2] ?? '').padEnd(6, '0'));
}

function apiUrl(env: Env, name: string, fallback: string, problems: string[]): string {
  const raw = (env[name] || fallback).replace(/\/+$/, '');
  try {
    if (!/^https?:$/.test(new URL(raw).protocol)) throw new Error('not http');
  } catch {
    problems.push(`${name} must be an absolute http(s) URL, got "${raw}"`);
  }
  return raw;
}

export function parsePaymentsConfig(
  env: Env,
  problems: string[],
  helpers: {
    int(name: string, fallback: number, min?: number): number;
    bool(name: string, fallback: boolean): boolean;
  },
): PaymentsConfig {
  const rubBound = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback * MICRO;
    const micro = decimalMicro(raw);
    if (micro === undefined || micro <= 0 || micro % 10_000 !== 0) {
      problems.push(`${name} must be a positive ruble amount with at most 2 decimals, got "${raw}"`);
      return fallback * MICRO;
    }
    return micro;
  };
  const minMicro = rubBound('TOPUP_MIN_RUB', 100);
  const maxMicro = rubBound('TOPUP_MAX_RUB', 100_000);
  if (minMicro > maxMicro) problems.push('TOPUP_MIN_RUB must not be above TOPUP_MAX_RUB');

  let yookassaNotifyIps = YOOKASSA_PUBLISHED_IPS;
  if (env.YOOKASSA_NOTIFY_IPS) {
    try {
      yookassaNotifyIps = parseAllowedIpCidrs(env.YOOKASSA_NOTIFY_IPS.split(',').map((s) => s.trim())) ?? [];
    } catch {
      problems.push(
        `YOOKASSA_NOTIFY_IPS must be a comma-separated list of addresses or CIDRs, got "${env.YOOKASSA_NOTIFY_IPS}"`,
      );
    }
  }

  let yookassa: YookassaSettings | undefined;
  const shopId = env.YOOKASSA_SHOP_ID || undefined;
  const secretKey = env.YOOKASSA_SECRET_KEY || undefined;
  const receipts = helpers.bool('YOOKASSA_RECEIPTS', false);
  const vatCode = helpers.int('YOOKASSA_VAT_CODE', 1, 1);
  if (vatCode > 12)
    problems.push(`YOOKASSA_VAT_CODE must be a vat_code of YooKassa (1 to 12), got ${vatCode}`);
  if (Boolean(shopId) !== Boolean(secretKey))
    problems.push('YOOKASSA_SHOP_ID and YOOKASSA_SECRET_KEY must be set together');
  if (shopId && secretKey) {
    yookassa = {
      shopId,
      secretKey,
      apiUrl: apiUrl(env, 'YOOKASSA_API_URL', 'https://api.yookassa.ru/v3', problems),
      receipts,
      vatCode,
      paymentMode: env.YOOKASSA_PAYMENT_MODE || 'full_prepayment',
      paymentSubject: env.YOOKASSA_PAYMENT_SUBJECT || 'service',
    };
  }

  let stripe: StripeSettings | undefined;
  const stripeKey = env.STRIPE_SECRET_KEY || undefined;
  const webhookSecret = env.STRIPE_WEBHOOK_SECRET || undefined;
  if (Boolean(stripeKey) !== Boolean(webhookSecret))
    problems.push('STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET must be set together');
  const currency = (env.STRIPE_CURRENCY || 'usd').toLowerCase();
  if (!/^[a-z]{3}$/.test(currency))
    problems.push(`STRIPE_CURRENCY must be an ISO currency code, got "${currency}"`);
  let microRubPerUnit = currency === 'rub' ? MICRO : 0;
  if (env.STRIPE_RUB_PER_UNIT) {
    const rate = decimalMicro(env.STRIPE_RUB_PER_UNIT);
    if (rate === undefined || rate <= 0)
      problems.push(
        `STRIPE_RUB_PER_UNIT must be a positive number of rubles, got "${env.STRIPE_RUB_PER_UNIT}"`,
      );
    else microRubPerUnit = rate;
  }
  if (stripeKey && webhookSecret) {
    if (microRubPerUnit === 0)
      problems.push(`STRIPE_RUB_PER_UNIT must be set: the price of one ${currency.toUpperCase()} in rubles`);
    stripe = {
      secretKey: stripeKey,
      webhookSecret,
      apiUrl: apiUrl(env, 'STRIPE_API_URL', 'https://api.stripe.com', problems),
      currency,
      microRubPerUnit,
    };
  }

  return {
    yookassa,
    stripe,
    yookassaNotifyIps,
    minMicro,
    maxMicro,
    reconcileMs: helpers.int('TOPUP_RECONCILE_MS', 60_000, 100),
    providerTimeoutMs: helpers.int('PAYMENT_PROVIDER_TIMEOUT_MS', 10_000, 1),
  };
}
