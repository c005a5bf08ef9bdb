// Top-ups by card: creation at the payment provider, the credit once it is paid, cancels, and the
// re-reads that make a lost notification harmless. The payment methods come from payments/ as a
// map by name; nothing here names one. Every credit is a `topup` ledger entry carrying the top-up
// id (UNIQUE(task_id, kind)), written in the transaction that moves the top-up to `succeeded`, and
// only after the provider's own answer shows the top-up's charge paid.
import { createHash, randomBytes } from 'node:crypto';
import { microToRub } from '../../domain/billing/money.js';
import { topupAmount, validEmail } from '../../domain/billing/topup-amount.js';
import { AppError } from '../../domain/errors.js';
import type { PaymentsConfig } from '../../payments/config.js';
import {
  type IncomingNotification,
  type ObservedPayment,
  type PaymentMethod,
  PaymentProviderRefused,
  PaymentProviderUnavailable,
} from '../../payments/method.js';
import { isUniqueViolation } from '../../storage/db.js';
import type { AdminTopupRow, TopupRow } from '../../storage/repositories/topups.js';
import type { Storage } from '../../storage/storage.js';
import type { Clock } from '../clock.js';
import {
  type HttpOutcome,
  IdempotencyKeyTaken,
  type IdempotencyService,
  type IdempotentRequest,
} from '../idempotency.js';

export const TOPUP_STATUSES = ['pending', 'succeeded', 'canceled', 'refunded'] as const;

/** The operator's top-up filters as given (query or form text); checked by listForAdmin. */
export interface AdminTopupQuery {
  status?: string;
  method?: string;
  messagingId?: string;
  limit: number;
  after?: string;
}

/** A top-up still unpaid after this long is canceled. */
export const TOPUP_PENDING_LIMIT_MS = 24 * 60 * 60 * 1000;
/** Re-reads per reconcile pass. */
const RECONCILE_BATCH = 100;

export interface KeyOwner {
  keyId: number;
  accountId: number;
}

export interface CreateTopupBody {
  amount_rub?: unknown;
  method?: unknown;
  return_url?: unknown;
  email?: unknown;
}

export type Outcome = 'credited' | 'canceled' | 'unchanged' | 'unknown_payment' | 'mismatch';

export interface TopupEvents {
  created?(method: string): void;
  settled?(
    method: string,
    outcome: 'succeeded' | 'canceled',
    amountMicro: number,
    source: string,
    lagMs: number,
  ): void;
  refunded?(method: string, amountMicro: number): void;
  warn?(message: string, detail?: unknown): void;
}

export function presentTopup(t: TopupRow) {
  return {
    id: t.id,
    object: 'topup',
    status: t.status,
    method: t.method,
    amount_rub: microToRub(Number(t.amount)),
    created_at: new Date(Number(t.created_at)).toISOString(),
    paid_at: t.paid_at === null ? null : new Date(Number(t.paid_at)).toISOString(),
  };
}

function returnUrlOf(value: unknown, fallback: string): string {
  if (value === undefined || value === null || value === '') return fallback;
  if (typeof value === 'string' && value.length <= 2048) {
    try {
      const url = new URL(value);
      if (/^https?:$/.test(url.protocol) && !url.username && !url.password) return url.toString();
    } catch {
      // refused below
    }
  }
  throw new AppError('invalid_parameter', 'return_url must be an absolute http(s) URL', 'return_url');
}

export class TopupService {
  constructor(
    private readonly deps: {
      storage: Storage;
      clock: Clock;
      config: PaymentsConfig;
      /** PUBLIC_URL, read when needed (the default return page is on the panel). */
      publicUrl: () => string;
      methods: Map<string, PaymentMethod>;
      idempotency: IdempotencyService;
      events?: TopupEvents;
    },
  ) {}

  private get events(): TopupEvents {
    return this.deps.events ?? {};
  }

  methodNames(): string[] {
    return [...this.deps.methods.keys()];
  }

  /** GET /me/topup-methods. */
  available() {
    const { minMicro, maxMicro } = this.deps.config;
    return {
      methods: this.methodNames(),
      min_rub: microToRub(minMicro),
      max_rub: microToRub(maxMicro),
      receipts: [...this.deps.methods.values()].some((m) => m.receipts),
    };
  }

  method(name: unknown): PaymentMethod {
    const method = typeof name === 'string' ? this.deps.methods.get(name) : undefined;
    if (!method) {
      const on = this.methodNames();
      throw new AppError(
        'topup_method_unavailable',
        on.length === 0
          ? 'No payment method is available on this server'
          : `method must be one of: ${on.join(', ')}`,
        'method',
      );
    }
    return method;
  }

  /**
   * POST /me/topups. With an Idempotency-Key the top-up id is derived from the key and the request,
   * so a retry after a lost answer, a 502 or a 504 asks the provider with the same idempotency key
   * and gets the first payment back instead of a second one. The row is written only once the
   * provider has accepted the payment, with the stored answer in the same transaction.
   */
  async create(owner: KeyOwner, body: CreateTopupBody, idem?: IdempotentRequest): Promise<HttpOutcome> {
    const { config, storage, clock } = this.deps;
    const method = this.method(body.method);
    const amountMicro = topupAmount(body.amount_rub, config.minMicro, config.maxMicro);
    let email: string | null = null;
    if (body.email !== undefined && body.email !== null && body.email !== '') {
      email = validEmail(body.email) ?? null;
      if (!email) throw new AppError('email_required', 'email must be a valid email address', 'email');
    }
    if (method.receipts && !email)
      throw new AppError(
        'email_required',
        'A receipt is sent with each payment: give the payer email',
        'email',
      );
    const id = idem
      ? `tu_${createHash('sha256').update(`${owner.keyId}\n${idem.idemKey}\n${idem.fingerprint}`).digest('hex').slice(0, 32)}`
      : `tu_${randomBytes(16).toString('hex')}`;
    const returnUrl = returnUrlOf(body.return_url, `${this.deps.publicUrl()}/panel/money/topups/${id}`);
    const charge = method.charge(amountMicro);

    let created: { providerPaymentId: string; confirmationUrl: string };
    try {
      created = await method.createPayment({
        topupId: id,
        amountMicro,
        charge,
        email,
        returnUrl,
        description: `Balance top-up ${microToRub(amountMicro).toFixed(2)} RUB`,
      });
    } catch (error) {
      throw providerError(error);
    }
    const now = clock.now();
    const row: TopupRow = {
      id,
      account_id: owner.accountId,
      key_id: owner.keyId,
      method: method.name,
      amount: amountMicro,
      status: 'pending',
      provider_payment_id: created.providerPaymentId,
      confirmation_url: created.confirmationUrl,
      email,
      charge_currency: charge.currency,
      charge_minor: charge.minor,
      cancel_reason: null,
      created_at: now,
      updated_at: now,
      paid_at: null,
      refunded_at: null,
      check_at: now + config.reconcileMs,
    };
    const outcome: HttpOutcome = {
      status: 201,
      body: { ...presentTopup(row), confirmation_url: created.confirmationUrl },
    };
    try {
      await storage.transaction(async (tx) => {
        if (idem) await this.deps.idempotency.storeInTransaction(tx, idem, outcome, null);
        await tx.topups.insert(row);
      });
    } catch (error) {
      if (error instanceof IdempotencyKeyTaken) throw error;
      // The same top-up exists already (its idempotency record expired): answer it again.
      if (isUniqueViolation(error)) {
        const existing = await storage.topups.byIdForKey(id, owner.keyId, owner.accountId);
        if (existing)
          return {
            status: 201,
            body: { ...presentTopup(existing), confirmation_url: existing.confirmation_url },
            replayed: true,
          };
      }
      throw error;
    }
    this.events.created?.(method.name);
    return outcome;
  }

  async get(owner: KeyOwner, id: string): Promise<TopupRow> {
    const topup = await this.deps.storage.topups.byIdForKey(id, owner.keyId, owner.accountId);
    if (!topup) throw new AppError('not_found', 'Top-up not found');
    return topup;
  }

  /** One of the account's top-ups, for its owner (the panel): another account's is not found. */
  async getForAccount(accountId: number, id: string): Promise<TopupRow> {
    const topup = await this.deps.storage.topups.byIdForAccount(id, accountId);
    if (!topup) throw new AppError('not_found', 'Top-up not found');
    return topup;
  }

  /**
   * Reads a pending top-up back from its provider now (the payer has just returned from the
   * payment page, usually before the notification): answers it as it is afterwards.
   */
  async refresh(topup: TopupRow): Promise<TopupRow> {
    const method = this.deps.methods.get(topup.method);
    if (topup.status !== 'pending' || !method || !topup.provider_payment_id) return topup;
    try {
      await this.apply(method, await method.readPayment(topup.provider_payment_id), 'return');
    } catch (error) {
      this.events.warn?.(`could not read top-up ${topup.id} back`, error);
    }
    return (await this.deps.storage.topups.byId(topup.id)) ?? topup;
  }

  async list(
    owner: KeyOwner,
    limit: number,
    after?: string,
  ): Promise<{ data: TopupRow[]; has_more: boolean }> {
    const rows = await this.deps.storage.topups.listForKey(owner.keyId, owner.accountId, { limit, after });
    return { data: rows.slice(0, limit), has_more: rows.length > limit };
  }

  /**
   * Top-ups of every account, newest first, for the operator (GET /admin/topups and the console's
   * Top-ups page). A bad filter is a clear error; empty filters are no filter.
   */
  async listForAdmin(f: AdminTopupQuery): Promise<{ data: AdminTopupRow[]; has_more: boolean }> {
    const status = f.status || undefined;
    if (status && !(TOPUP_STATUSES as readonly string[]).includes(status))
      throw new AppError('invalid_parameter', `status must be one of ${TOPUP_STATUSES.join(', ')}`, 'status');
    let messagingId: number | undefined;
    if (f.messagingId) {
      messagingId = /^\d{1,15}$/.test(f.messagingId) ? Number(f.messagingId) : Number.NaN;
      if (!Number.isSafeInteger(messagingId))
        throw new AppError('invalid_parameter', 'messaging id must be digits', 'messaging_id');
    }
    const rows = await this.deps.storage.topups.listForAdmin({
      status,
      method: f.method || undefined,
      messagingId,
      limit: f.limit,
      after: f.after || undefined,
    });
    return { data: rows.slice(0, f.limit), has_more: rows.length > f.limit };
  }

  /**
   * A notification at POST /hooks/payments/{method}. Its sender is checked by the method (allowed
   * sources, or the signature); a hint is then confirmed by reading the payment back.
   */
  async receiveNotification(
    methodName: string,
    notification: IncomingNotification,
  ): Promise<{ status: 200 | 400 | 403 | 404 | 502; message?: string; outcome?: Outcome }> {
    const method = this.deps.methods.get(methodName);
    if (!method) return { status: 404, message: `No payment method named ${methodName} is on` };
    const hint = await method.readNotification(notification);
    if (hint.kind === 'refused') return { status: hint.status, message: hint.message };
    if (hint.kind === 'ignored') return { status: 200, outcome: 'unchanged' };
    if (hint.kind === 'observed')
      return { status: 200, outcome: await this.apply(method, hint.payment, 'notification') };
    const topup = await this.deps.storage.topups.byProviderPaymentId(method.name, hint.providerPaymentId);
    // Not one of ours: acknowledged (so it is not repeated), and never read back.
    if (!topup) return { status: 200, outcome: 'unknown_payment' };
    if (topup.status !== 'pending' && topup.status !== 'canceled')
      return { status: 200, outcome: 'unchanged' };
    let observed: ObservedPayment;
    try {
      observed = await method.readPayment(hint.providerPaymentId);
    } catch (error) {
      // The provider repeats a notification that got no 200; reconcile reads it later anyway.
      this.events.warn?.(`could not read payment ${hint.providerPaymentId} back`, error);
      return { status: 502, message: 'The payment could not be confirmed with the provider yet' };
    }
    return { status: 200, outcome: await this.apply(method, observed, 'notification') };
  }

  /**
   * Acts on a payment as its provider reports it: credits once when paid (the charge in full, for
   * this top-up), cancels when canceled, and otherwise changes nothing.
   */
  async apply(method: PaymentMethod, observed: ObservedPayment, source: string): Promise<Outcome> {
    const { storage, clock } = this.deps;
    const topup = await storage.topups.byProviderPaymentId(method.name, observed.providerPaymentId);
    if (!topup) return 'unknown_payment';
    if (observed.topupId !== null && observed.topupId !== topup.id) {
      this.events.warn?.(
        `payment ${observed.providerPaymentId} names top-up ${observed.topupId}, not ${topup.id}`,
      );
      return 'mismatch';
    }
    if (observed.status === 'pending') return 'unchanged';
    const now = clock.now();
    if (observed.status === 'canceled') {
      const canceled = await storage.topups.markCanceled(topup.id, now, observed.reason ?? 'canceled');
      if (canceled)
        this.events.settled?.(
          method.name,
          'canceled',
          Number(topup.amount),
          source,
          now - Number(topup.created_at),
        );
      return canceled ? 'canceled' : 'unchanged';
    }
    if (observed.paidMinor !== Number(topup.charge_minor) || observed.currency !== topup.charge_currency) {
      this.events.warn?.(
        `payment ${observed.providerPaymentId} paid ${observed.paidMinor} ${observed.currency}, expected ${topup.charge_minor} ${topup.charge_currency}: not credited`,
      );
      return 'mismatch';
    }
    const credited = await storage.transaction(async (tx) => {
      const row = await tx.topups.markSucceeded(topup.id, now);
      if (!row) return false;
      const ref = { keyId: Number(row.key_id), accountId: Number(row.account_id), now };
      const balance = await tx.ledger.moveBalance(
        ref,
        'topup',
        Number(row.amount),
        row.id,
        `${row.method} payment`,
      );
      if (balance === undefined) throw new Error(`top-up ${row.id}: key ${row.key_id} does not exist`);
      return true;
    });
    if (credited)
      this.events.settled?.(
        method.name,
        'succeeded',
        Number(topup.amount),
        source,
        now - Number(topup.created_at),
      );
    return credited ? 'credited' : 'unchanged';
  }

  /**
   * One reconcile pass: each pending top-up due for a re-read is taken by one process (a guarded
   * bump of its check time), read from its provider and acted on; after 24 h unpaid it is canceled.
   * Refunds whose provider call had no known outcome are asked again with the same key.
   */
  async reconcileOnce(): Promise<{ checked: number; credited: number; canceled: number }> {
    const { storage, clock, config } = this.deps;
    const counts = { checked: 0, credited: 0, canceled: 0 };
    const now = clock.now();
    for (const topup of await storage.topups.duePending(now, RECONCILE_BATCH)) {
      if (!(await storage.topups.claimCheck(topup.id, Number(topup.check_at), now + config.reconcileMs)))
        continue;
      counts.checked++;
      const method = this.deps.methods.get(topup.method);
      let outcome: Outcome = 'unchanged';
      if (method && topup.provider_payment_id) {
        try {
          outcome = await this.apply(
            method,
            await method.readPayment(topup.provider_payment_id),
            'reconcile',
          );
        } catch (error) {
          this.events.warn?.(`reconcile could not read top-up ${topup.id}`, error);
        }
      }
      if (outcome === 'credited') counts.credited++;
      else if (outcome === 'canceled') counts.canceled++;
      else if (now - Number(topup.created_at) >= TOPUP_PENDING_LIMIT_MS) {
        if (await storage.topups.markCanceled(topup.id, now, 'unpaid for 24 hours')) {
          counts.canceled++;
          this.events.settled?.(
            topup.method,
            'canceled',
            Number(topup.amount),
            'reconcile',
            now - Number(topup.created_at),
          );
        }
      }
    }
    await this.retryPendingRefunds(now);
    return counts;
  }

  /** Reconcile's second half; the refund service owns the rule, this only drives it. */
  retryPendingRefunds: (now: number) => Promise<void> = async () => {};
}

/** A provider failure as the client sees it: 504 when it timed out, else 502. */
export function providerError(error: unknown): unknown {
  if (error instanceof PaymentProviderUnavailable)
    return new AppError(
      error.timedOut ? 'payment_provider_timeout' : 'payment_provider_error',
      undefined,
      null,
      {
        headers: { 'Retry-After': '1' },
      },
    );
  if (error instanceof PaymentProviderRefused)
    return new AppError(
      'payment_provider_error',
      `The payment provider refused the payment (${error.status})`,
    );
  return error;
}
