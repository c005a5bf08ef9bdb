// YooKassa (api.yookassa.ru/v3) over undici: HTTP Basic `shopId:secretKey`, JSON bodies, an
// `Idempotence-Key` on every POST (the top-up or refund id), so a retry after a 5xx or a timeout
// returns the first answer instead of making a second payment (yookassa.ru/developers/using-api/basics,
// "Idempotency" and "Response codes"). Notifications are not signed: only those from the allowed
// sources are read, and each is just the id of a payment to read back with GET /payments/{id}.
import { request } from 'undici';
import { ipAllowed } from '../../domain/keys/restrictions.js';
import type { YookassaSettings } from '../config.js';
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
import { kopecksToValue, observedPayment, paymentRequest } from './mapping.js';

export interface YookassaOptions {
  settings: YookassaSettings;
  notifyIps: readonly string[];
  timeoutMs: number;
  /** Attempts of one call (the first included) on 5xx and timeouts. */
  attempts?: number;
  /** Pause before each retry, ms (YooKassa asks integrators to wait before repeating). */
  retryDelayMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class YookassaMethod implements PaymentMethod {
  readonly name = 'yookassa';
  readonly receipts: boolean;
  private readonly auth: string;

  constructor(private readonly options: YookassaOptions) {
    this.receipts = options.settings.receipts;
    const { shopId, secretKey } = options.settings;
    this.auth = `Basic ${Buffer.from(`${shopId}:${secretKey}`).toString('base64')}`;
  }

  charge(amountMicro: number) {
    // Amounts are validated to whole kopecks before this.
    return { currency: 'rub', minor: Math.ceil(amountMicro / 10_000) };
  }

  async createPayment(input: CreatePaymentInput): Promise<CreatedPayment> {
    const body = await this.call(
      'POST',
      '/payments',
      paymentRequest(input, this.options.settings),
      input.topupId,
    );
    const url = body?.confirmation?.confirmation_url;
    if (typeof body?.id !== 'string' || typeof url !== 'string')
      throw new PaymentProviderUnavailable(
        'YooKassa answered a payment without an id or confirmation_url',
        false,
      );
    return { providerPaymentId: body.id, confirmationUrl: url };
  }

  async readPayment(providerPaymentId: string): Promise<ObservedPayment> {
    return observedPayment(await this.call('GET', `/payments/${encodeURIComponent(providerPaymentId)}`));
  }

  async refund(input: RefundInput): Promise<RefundOutcome> {
    try {
      const body = await this.call(
        'POST',
        '/refunds',
        {
          payment_id: input.providerPaymentId,
          amount: { value: kopecksToValue(input.charge.minor), currency: 'RUB' },
        },
        input.refundId,
      );
      if (body?.status === 'canceled')
        return { status: 'refused', reason: body?.cancellation_details?.reason ?? 'canceled' };
      return {
        status: body?.status === 'succeeded' ? 'succeeded' : 'pending',
        providerRefundId: String(body?.id),
      };
    } catch (error) {
      if (error instanceof PaymentProviderRefused) return { status: 'refused', reason: error.message };
      throw error;
    }
  }

  async readNotification(n: IncomingNotification): Promise<NotificationHint> {
    if (!ipAllowed(n.ip, this.options.notifyIps))
      return { kind: 'refused', status: 403, message: 'Notifications are accepted from YooKassa only' };
    let body: any;
    try {
      body = JSON.parse(n.rawBody.toString('utf8'));
    } catch {
      return { kind: 'refused', status: 400, message: 'The notification is not JSON' };
    }
    const id = body?.object?.id;
    const event = typeof body?.event === 'string' ? body.event : '';
    if (!event.startsWith('payment.')) return { kind: 'ignored' };
    if (typeof id !== 'string' || id.length === 0 || id.length > 100)
      return { kind: 'refused', status: 400, message: 'The notification names no payment' };
    // Only the id is taken from the body; the payment is read back before anything changes.
    return { kind: 'check', providerPaymentId: id };
  }

  /** One API call with its retries; answers the parsed body of a 2xx. */
  private async call(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    idempotenceKey?: string,
  ): Promise<any> {
    const { timeoutMs, attempts = 3, retryDelayMs = 500 } = this.options;
    let lastError: PaymentProviderUnavailable | undefined;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) await sleep(retryDelayMs * (attempt - 1));
      try {
        const response = await request(`${this.options.settings.apiUrl}${path}`, {
          method,
          headers: {
            authorization: this.auth,
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
            ...(idempotenceKey ? { 'idempotence-key': idempotenceKey } : {}),
          },
          body: body !== undefined ? JSON.stringify(body) : undefined,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          signal: AbortSignal.timeout(timeoutMs),
        });
        const text = await response.body.text();
        let parsed: any;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        if (response.statusCode >= 200 && response.statusCode < 300) return parsed;
        if (response.statusCode >= 500) {
          lastError = new PaymentProviderUnavailable(`YooKassa answered ${response.statusCode}`, false);
          continue;
        }
        throw new PaymentProviderRefused(
          `YooKassa refused: ${response.statusCode} ${parsed?.code ?? ''} ${parsed?.description ?? ''}`.trim(),
          response.statusCode,
        );
      } catch (error) {
        if (error instanceof PaymentProviderRefused) throw error;
        const timedOut = isTimeout(error);
        lastError = new PaymentProviderUnavailable(
          timedOut
            ? 'YooKassa did not answer in time'
            : `YooKassa is unreachable: ${(error as Error).message}`,
          timedOut,
          { cause: error },
        );
      }
    }
    throw lastError ?? new PaymentProviderUnavailable('YooKassa failed', false);
  }
}

function isTimeout(error: unknown): boolean {
  const e = error as { name?: string; code?: string };
  return (
    e?.name === 'TimeoutError' ||
    e?.name === 'AbortError' ||
    e?.code === 'UND_ERR_HEADERS_TIMEOUT' ||
    e?.code === 'UND_ERR_BODY_TIMEOUT'
  );
}
