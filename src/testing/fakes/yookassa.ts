// A loopback YooKassa payments API, written from its public documentation:
// - yookassa.ru/developers/using-api/basics: HTTP Basic auth (shop id : secret key), JSON bodies,
//   the Idempotence-Key header required on POST (the same key returns the first answer; the fake,
//   like a careful reading of the docs, refuses the same key with another body), errors as
//   {type: "error", code, description}.
// - yookassa.ru/developers/payments/quick-start and /developers/api (payment object): POST /payments
//   with amount {value: "100.00", currency: "RUB"}, capture, confirmation {type: "redirect",
//   return_url}, description (≤128), metadata; the answer is a payment with status "pending", paid
//   false and confirmation.confirmation_url. GET /payments/{id}. POST /refunds {payment_id, amount}.
// - yookassa.ru/developers/using-api/webhooks: notifications {type: "notification", event, object}.
// - 54-FZ receipts: receipt.customer.email, items[{description, quantity (string), amount, vat_code}].
// The fake also serves the payment page the payer is sent to (GET /pay/{id}, a Pay and a Cancel
// button), and can be told to fail, hang or succeed payments, and to send notifications.
import { randomUUID } from 'node:crypto';
import { type FakeReply, type FakeRequest, FakeServer } from './fake-server.js';

export interface YookassaFakePayment {
  id: string;
  status: 'pending' | 'succeeded' | 'canceled';
  paid: boolean;
  amount: { value: string; currency: string };
  description?: string;
  metadata: Record<string, string>;
  confirmation: { type: 'redirect'; return_url: string; confirmation_url: string };
  receipt?: any;
  cancellation_details?: { party: string; reason: string };
  created_at: string;
  test: true;
}

export type YookassaFault = 500 | 503 | 'hang' | 'drop';

export class YookassaFake {
  readonly server = new FakeServer();
  readonly payments = new Map<string, YookassaFakePayment>();
  readonly refunds = new Map<string, any>();
  /** Idempotence-Key → [body text, answer]. */
  private readonly keys = new Map<string, { body: string; reply: FakeReply }>();
  /** Faults of the next calls, in order (each consumed by one call; the payment is still created). */
  createFaults: YookassaFault[] = [];
  readFaults: YookassaFault[] = [];
  refundFaults: YookassaFault[] = [];
  /** Refunds answered as canceled by YooKassa (the refund is refused). */
  refuseRefunds = false;
  /** Notification target (the gengate hook URL); the payment page notifies it when set. */
  notifyUrl: string | undefined;

  constructor(
    readonly shopId = '123456',
    readonly secretKey = 'test_secret_key',
    /** Receipts are required on this shop (YOOKASSA_RECEIPTS on the gengate side). */
    readonly receiptsRequired = false,
  ) {
    this.server.on('POST', /\/v3\/payments/, (req) => this.guarded(req, () => this.create(req), 'create'));
    this.server.on('GET', /\/v3\/payments\/([^/]+)/, (req, m) =>
      this.guarded(req, () => this.read(m[1]), 'read'),
    );
    this.server.on('POST', /\/v3\/refunds/, (req) => this.guarded(req, () => this.refund(req), 'refund'));
    this.server.on('GET', /\/pay\/([^/]+)/, (_req, m) => this.page(m[1]));
    this.server.on('POST', /\/pay\/([^/]+)/, (req, m) => this.payerAction(m[1], req));
  }

  get apiUrl(): string {
    return `${this.server.origin}/v3`;
  }

  async start(): Promise<this> {
    await this.server.start();
    return this;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  /** Calls that created payments (POST /payments), answered or not. */
  createCalls(): FakeRequest[] {
    return this.server.calls(/^\/v3\/payments$/, 'POST');
  }

  succeed(id: string): YookassaFakePayment {
    const p = this.mustGet(id);
    p.status = 'succeeded';
    p.paid = true;
    return p;
  }

  cancel(id: string, reason = 'expired_on_confirmation'): YookassaFakePayment {
    const p = this.mustGet(id);
    p.status = 'canceled';
    p.cancellation_details = { party: 'yoo_money', reason };
    return p;
  }

  /** A notification body as YooKassa sends it (the object as it was at the event). */
  notification(id: string, event = 'payment.succeeded', object?: unknown) {
    return { type: 'notification', event, object: object ?? this.mustGet(id) };
  }

  /** Sends a notification to `notifyUrl` (what YooKassa does after a status change). */
  async notify(id: string, event = 'payment.succeeded'): Promise<number> {
    if (!this.notifyUrl) return 0;
    const res = await fetch(this.notifyUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(this.notification(id, event)),
    });
    await res.arrayBuffer();
    return res.status;
  }

  private mustGet(id: string): YookassaFakePayment {
    const p = this.payments.get(id);
    if (!p) throw new Error(`no fake payment ${id}`);
    return p;
  }

  private error(status: number, code: string, description: string, parameter?: string): FakeReply {
    return { status, json: { type: 'error', id: randomUUID(), code, description, parameter } };
  }

  private async guarded(req: FakeRequest, handle: () => FakeReply, kind: 'create' | 'read' | 'refund') {
    const expected = `Basic ${Buffer.from(`${this.shopId}:${this.secretKey}`).toString('base64')}`;
    if (req.headers.authorization !== expected)
      return this.error(
        401,
        'invalid_credentials',
        'Basic authentication with shopId and secret key is required',
      );
    if (req.method === 'POST') {
      const key = req.headers['idempotence-key'];
      if (typeof key !== 'string' || key.length === 0 || key.length > 64)
        return this.error(400, 'invalid_request', 'Idempotence-Key header is required (up to 64 characters)');
      const seen = this.keys.get(`${req.path} ${key}`);
      const bodyText = req.raw.toString('utf8');
      let reply: FakeReply;
      if (seen) {
        reply =
          seen.body === bodyText
            ? seen.reply
            : this.error(400, 'invalid_request', 'Idempotence-Key was used with other parameters');
      } else {
        reply = handle();
        if (typeof reply === 'object' && reply.status < 500)
          this.keys.set(`${req.path} ${key}`, { body: bodyText, reply });
      }
      return this.fault(
        kind === 'create' ? this.createFaults : kind === 'refund' ? this.refundFaults : [],
        reply,
      );
    }
    return this.fault(kind === 'read' ? this.readFaults : [], handle());
  }

  private async fault(faults: YookassaFault[], reply: FakeReply): Promise<FakeReply> {
    const fault = faults.shift();
    if (fault === undefined) return reply;
    if (fault === 'hang' || fault === 'drop') return fault;
    return this.error(fault, 'internal_server_error', 'Internal server error');
  }

  private create(req: FakeRequest): FakeReply {
    const b = req.json;
    if (!b || typeof b !== 'object') return this.error(400, 'invalid_request', 'Body must be JSON');
    if (!/^\d+\.\d{2}$/.test(b.amount?.value ?? '') || b.amount?.currency !== 'RUB')
      return this.error(
        400,
        'invalid_request',
        'amount.value must be a string with 2 decimals in RUB',
        'amount',
      );
    if (b.capture !== true) return this.error(400, 'invalid_request', 'capture must be true here', 'capture');
    if (b.confirmation?.type !== 'redirect' || typeof b.confirmation?.return_url !== 'string')
      return this.error(
        400,
        'invalid_request',
        'confirmation {type: redirect, return_url} is required',
        'confirmation',
      );
    if (typeof b.description === 'string' && b.description.length > 128)
      return this.error(400, 'invalid_request', 'description is longer than 128', 'description');
    if (typeof b.metadata?.topup_id !== 'string')
      return this.error(400, 'invalid_request', 'the fake expects metadata.topup_id', 'metadata');
    if (this.receiptsRequired || b.receipt !== undefined) {
      const r = b.receipt;
      const item = r?.items?.[0];
      if (
        typeof r?.customer?.email !== 'string' ||
        !item ||
        typeof item.description !== 'string' ||
        typeof item.quantity !== 'string' ||
        item.amount?.value !== b.amount.value ||
        !Number.isInteger(item.vat_code)
      )
        return this.error(400, 'invalid_request', 'receipt is missing or malformed', 'receipt');
    }
    const id = randomUUID();
    const payment: YookassaFakePayment = {
      id,
      status: 'pending',
      paid: false,
      amount: b.amount,
      description: b.description,
      metadata: b.metadata,
      confirmation: {
        type: 'redirect',
        return_url: b.confirmation.return_url,
        confirmation_url: `${this.server.origin}/pay/${id}`,
      },
      receipt: b.receipt,
      created_at: new Date().toISOString(),
      test: true,
    };
    this.payments.set(id, payment);
    return { status: 200, json: payment };
  }

  private read(id: string): FakeReply {
    const p = this.payments.get(id);
    return p ? { status: 200, json: p } : this.error(404, 'not_found', 'Payment not found');
  }

  private refund(req: FakeRequest): FakeReply {
    const p = this.payments.get(req.json?.payment_id);
    if (!p) return this.error(404, 'not_found', 'Payment not found');
    if (!/^\d+\.\d{2}$/.test(req.json?.amount?.value ?? ''))
      return this.error(400, 'invalid_request', 'amount.value must have 2 decimals', 'amount');
    if (p.status !== 'succeeded')
      return this.error(400, 'invalid_request', 'Only a succeeded payment can be refunded');
    const refund = {
      id: randomUUID(),
      payment_id: p.id,
      status: this.refuseRefunds ? 'canceled' : 'succeeded',
      amount: req.json.amount,
      created_at: new Date().toISOString(),
      ...(this.refuseRefunds
        ? { cancellation_details: { party: 'yoo_money', reason: 'rejected_by_payee' } }
        : {}),
    };
    this.refunds.set(refund.id, refund);
    return { status: 200, json: refund };
  }

  private page(id: string): FakeReply {
    const p = this.payments.get(id);
    if (!p) return { status: 404, body: 'no such payment' };
    return {
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: `<!doctype html><title>Fake YooKassa</title><h1>Pay ${p.amount.value} ${p.amount.currency}</h1>
<form method="post"><button name="action" value="pay">Pay</button><button name="action" value="cancel">Cancel</button></form>`,
    };
  }

  private async payerAction(id: string, req: FakeRequest): Promise<FakeReply> {
    const p = this.payments.get(id);
    if (!p) return { status: 404, body: 'no such payment' };
    const action = new URLSearchParams(req.raw.toString('utf8')).get('action');
    if (action === 'pay') this.succeed(id);
    else this.cancel(id, 'canceled_by_merchant');
    await this.notify(id, action === 'pay' ? 'payment.succeeded' : 'payment.canceled').catch(() => 0);
    return { status: 303, headers: { location: p.confirmation.return_url } };
  }
}
