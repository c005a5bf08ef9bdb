// A loopback Stripe API for Checkout, written from Stripe's public documentation:
// - docs.stripe.com/api/authentication: `Authorization: Bearer sk_…`; errors as
//   {error: {type, code, message, param}}.
// - docs.stripe.com/api/idempotent_requests: `Idempotency-Key`; the same key answers the first
//   result, and the same key with other parameters is an `idempotency_error` (400).
// - docs.stripe.com/api/checkout/sessions/create: form-encoded, mode=payment,
//   line_items[0][price_data][currency|unit_amount|product_data][name], line_items[0][quantity],
//   success_url, cancel_url, client_reference_id, metadata[…]; the session has id cs_…, url,
//   status (open|complete|expired), payment_status (paid|unpaid), amount_total, currency,
//   payment_intent. GET /v1/checkout/sessions/{id}.
// - docs.stripe.com/api/refunds/create: payment_intent, amount.
// - docs.stripe.com/webhooks: events {id, object: "event", type, data: {object}} signed with
//   `Stripe-Signature: t=…,v1=…` (the official package's generateTestHeaderString makes it).
// It serves the Checkout page the payer is sent to (GET /pay/{id}: Pay, Cancel) and can send events.
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { type FakeReply, type FakeRequest, FakeServer } from './fake-server.js';

export interface StripeFakeSession {
  id: string;
  object: 'checkout.session';
  url: string;
  mode: 'payment';
  status: 'open' | 'complete' | 'expired';
  payment_status: 'paid' | 'unpaid';
  amount_total: number;
  currency: string;
  client_reference_id: string | null;
  payment_intent: string | null;
  success_url: string;
  cancel_url: string;
  metadata: Record<string, string>;
  customer_email: string | null;
}

export type StripeFault = 500 | 'hang' | 'drop';

const id = (prefix: string) => `${prefix}_test_${randomBytes(12).toString('hex')}`;

export class StripeFake {
  readonly server = new FakeServer();
  readonly sessions = new Map<string, StripeFakeSession>();
  readonly refunds: any[] = [];
  private readonly keys = new Map<string, { body: string; reply: FakeReply }>();
  createFaults: StripeFault[] = [];
  refuseRefunds = false;
  /** The gengate hook URL; the payment page sends events to it when set. */
  notifyUrl: string | undefined;
  private readonly stripe = new Stripe('sk_unused');

  constructor(
    readonly secretKey = 'sk_test_gengate',
    readonly webhookSecret = 'whsec_test',
  ) {
    this.server.on('POST', /\/v1\/checkout\/sessions/, (req) => this.guarded(req, () => this.create(req)));
    this.server.on('GET', /\/v1\/checkout\/sessions\/([^/]+)/, (req, m) =>
      this.guarded(req, () => this.read(m[1])),
    );
    this.server.on('POST', /\/v1\/refunds/, (req) => this.guarded(req, () => this.refund(req)));
    this.server.on('GET', /\/pay\/([^/]+)/, (_req, m) => this.page(m[1]));
    this.server.on('POST', /\/pay\/([^/]+)/, (req, m) => this.payerAction(m[1], req));
  }

  async start(): Promise<this> {
    await this.server.start();
    return this;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  createCalls(): FakeRequest[] {
    return this.server.calls(/^\/v1\/checkout\/sessions$/, 'POST');
  }

  complete(sessionId: string, paid = true): StripeFakeSession {
    const s = this.mustGet(sessionId);
    s.status = 'complete';
    s.payment_status = paid ? 'paid' : 'unpaid';
    s.payment_intent ??= id('pi');
    return s;
  }

  expire(sessionId: string): StripeFakeSession {
    const s = this.mustGet(sessionId);
    s.status = 'expired';
    return s;
  }

  /** A signed event: its body and its Stripe-Signature header (`timestamp` in seconds, `secret` to forge). */
  signedEvent(
    type: string,
    sessionId: string,
    options: { timestamp?: number; secret?: string; eventId?: string } = {},
  ): { body: string; signature: string } {
    const body = JSON.stringify({
      id: options.eventId ?? id('evt'),
      object: 'event',
      type,
      created: Math.floor(Date.now() / 1000),
      data: { object: { ...this.mustGet(sessionId) } },
    });
    const signature = this.stripe.webhooks.generateTestHeaderString({
      payload: body,
      secret: options.secret ?? this.webhookSecret,
      timestamp: options.timestamp,
    });
    return { body, signature };
  }

  async sendEvent(type: string, sessionId: string): Promise<number> {
    if (!this.notifyUrl) return 0;
    const { body, signature } = this.signedEvent(type, sessionId);
    const res = await fetch(this.notifyUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      body,
    });
    await res.arrayBuffer();
    return res.status;
  }

  private mustGet(sessionId: string): StripeFakeSession {
    const s = this.sessions.get(sessionId);
    if (!s) throw new Error(`no fake session ${sessionId}`);
    return s;
  }

  private error(status: number, type: string, message: string, param?: string, code?: string): FakeReply {
    return { status, json: { error: { type, message, param, code } } };
  }

  private async guarded(req: FakeRequest, handle: () => FakeReply): Promise<FakeReply> {
    if (req.headers.authorization !== `Bearer ${this.secretKey}`)
      return this.error(401, 'invalid_request_error', 'Invalid API Key provided');
    if (req.method !== 'POST') return handle();
    if ((req.headers['content-type'] ?? '').split(';')[0] !== 'application/x-www-form-urlencoded')
      return this.error(400, 'invalid_request_error', 'Bodies are form-encoded');
    const key = req.headers['idempotency-key'];
    let reply: FakeReply;
    if (typeof key === 'string' && key !== '') {
      const seen = this.keys.get(`${req.path} ${key}`);
      const body = req.raw.toString('utf8');
      if (seen)
        reply =
          seen.body === body
            ? seen.reply
            : this.error(
                400,
                'idempotency_error',
                'Keys for idempotent requests can only be used with the same parameters they were first used with',
              );
      else {
        reply = handle();
        if (typeof reply === 'object' && reply.status < 500)
          this.keys.set(`${req.path} ${key}`, { body, reply });
      }
    } else {
      reply = handle();
    }
    if (req.path === '/v1/checkout/sessions') {
      const fault = this.createFaults.shift();
      if (fault === 'hang' || fault === 'drop') return fault;
      if (fault !== undefined) return this.error(fault, 'api_error', 'Something went wrong on Stripe’s end');
    }
    return reply;
  }

  private create(req: FakeRequest): FakeReply {
    const f = new URLSearchParams(req.raw.toString('utf8'));
    if (f.get('mode') !== 'payment')
      return this.error(400, 'invalid_request_error', 'mode must be payment', 'mode');
    const currency = f.get('line_items[0][price_data][currency]') ?? '';
    const unit = f.get('line_items[0][price_data][unit_amount]') ?? '';
    if (!/^[a-z]{3}$/.test(currency))
      return this.error(
        400,
        'invalid_request_error',
        'Missing currency',
        'line_items[0][price_data][currency]',
      );
    if (!/^\d+$/.test(unit) || Number(unit) < 50)
      return this.error(
        400,
        'invalid_request_error',
        'unit_amount must be an integer of at least 50',
        'line_items[0][price_data][unit_amount]',
      );
    if (!f.get('line_items[0][price_data][product_data][name]'))
      return this.error(
        400,
        'invalid_request_error',
        'Missing product name',
        'line_items[0][price_data][product_data][name]',
      );
    if (f.get('line_items[0][quantity]') !== '1')
      return this.error(400, 'invalid_request_error', 'quantity must be 1 here', 'line_items[0][quantity]');
    const success = f.get('success_url');
    const cancel = f.get('cancel_url');
    if (!success || !cancel)
      return this.error(400, 'invalid_request_error', 'success_url and cancel_url are required');
    const metadata: Record<string, string> = {};
    for (const [k, v] of f) {
      const m = /^metadata\[(.+)\]$/.exec(k);
      if (m) metadata[m[1]] = v;
    }
    const sessionId = id('cs');
    const session: StripeFakeSession = {
      id: sessionId,
      object: 'checkout.session',
      url: `${this.server.origin}/pay/${sessionId}`,
      mode: 'payment',
      status: 'open',
      payment_status: 'unpaid',
      amount_total: Number(unit),
      currency,
      client_reference_id: f.get('client_reference_id'),
      payment_intent: null,
      success_url: success,
      cancel_url: cancel,
      metadata,
      customer_email: f.get('customer_email'),
    };
    this.sessions.set(sessionId, session);
    return { status: 200, json: session };
  }

  private read(sessionId: string): FakeReply {
    const s = this.sessions.get(sessionId);
    return s
      ? { status: 200, json: s }
      : this.error(
          404,
          'invalid_request_error',
          `No such checkout.session: '${sessionId}'`,
          'id',
          'resource_missing',
        );
  }

  private refund(req: FakeRequest): FakeReply {
    const f = new URLSearchParams(req.raw.toString('utf8'));
    const intent = f.get('payment_intent');
    const session = [...this.sessions.values()].find((s) => s.payment_intent === intent && intent !== null);
    if (!session)
      return this.error(
        400,
        'invalid_request_error',
        'No such payment_intent',
        'payment_intent',
        'resource_missing',
      );
    const amount = Number(f.get('amount') ?? session.amount_total);
    if (!Number.isInteger(amount) || amount <= 0 || amount > session.amount_total)
      return this.error(
        400,
        'invalid_request_error',
        'Refund amount is greater than the charge',
        'amount',
        'amount_too_large',
      );
    const refund = {
      id: id('re'),
      object: 'refund',
      amount,
      currency: session.currency,
      payment_intent: intent,
      status: this.refuseRefunds ? 'failed' : 'succeeded',
      failure_reason: this.refuseRefunds ? 'declined' : null,
    };
    this.refunds.push(refund);
    return { status: 200, json: refund };
  }

  private page(sessionId: string): FakeReply {
    const s = this.sessions.get(sessionId);
    if (!s) return { status: 404, body: 'no such session' };
    return {
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: `<!doctype html><title>Fake Stripe Checkout</title><h1>Pay ${(s.amount_total / 100).toFixed(2)} ${s.currency.toUpperCase()}</h1>
<form method="post"><button name="action" value="pay">Pay</button><button name="action" value="cancel">Cancel</button></form>`,
    };
  }

  private async payerAction(sessionId: string, req: FakeRequest): Promise<FakeReply> {
    const s = this.sessions.get(sessionId);
    if (!s) return { status: 404, body: 'no such session' };
    const pay = new URLSearchParams(req.raw.toString('utf8')).get('action') === 'pay';
    if (pay) this.complete(sessionId);
    else this.expire(sessionId);
    await this.sendEvent(pay ? 'checkout.session.completed' : 'checkout.session.expired', sessionId).catch(
      () => 0,
    );
    return { status: 303, headers: { location: pay ? s.success_url : s.cancel_url } };
  }
}
