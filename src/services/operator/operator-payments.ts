// Money in from the console: the top-ups of every account with filters, refunds and codes, each
// change written to the operator audit log with its state before and after. The rules are the
// payment services' own (RefundService, CodeService: the same ones POST /admin/topups/{id}/refund
// and POST /admin/codes use); this adds the console's form input (a required confirmation, text
// fields) and the operator's record.

import { AppError } from '../../domain/errors.js';
import type { AdminTopupRow, CodeRow, RefundRow, TopupRow } from '../../storage/repositories/topups.js';
import type { Storage } from '../../storage/storage.js';
import type { Clock } from '../clock.js';
import type { PaymentServices } from '../payments/build.js';
import { hashCode } from '../payments/codes.js';
import { type OperatorActor, recordOperatorAction } from './operator-audit.js';

export { TOPUP_STATUSES } from '../payments/topups.js';
/** Codes made at once from the console: they travel to the page that shows them in a cookie. */
export const CONSOLE_MAX_CODES = 100;
const PAGE = 50;

export interface TopupFilters {
  status?: string;
  method?: string;
  messagingId?: string;
  after?: string;
}

export type CodeStatus = 'unused' | 'used' | 'expired';

export interface OperatorTopup {
  row: AdminTopupRow;
  refunds: RefundRow[];
}

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

/** A top-up as the audit log records it. */
function topupState(t: TopupRow) {
  return {
    status: t.status,
    amount_micro: Number(t.amount),
    key_id: Number(t.key_id),
    provider_payment_id: t.provider_payment_id,
    refunded_at: iso(t.refunded_at),
  };
}

export function codeStatus(code: CodeRow, now: number): CodeStatus {
  if (code.redeemed_at !== null) return 'used';
  if (code.expires_at !== null && Number(code.expires_at) <= now) return 'expired';
  return 'unused';
}

export class OperatorPayments {
  constructor(
    private readonly deps: {
      storage: Storage;
      clock: Clock;
      /** The payment services, built after the operator's (read when used). */
      payments: () => PaymentServices;
    },
  ) {}

  private audit(by: OperatorActor, action: string, target: string, before?: unknown, after?: unknown) {
    return recordOperatorAction(this.deps, by, action, target, before, after);
  }

  methods(): string[] {
    return this.deps.payments().topups.methodNames();
  }

  /** Top-ups newest first, filtered (the payment service checks the filters); each with its refunds. */
  async topups(f: TopupFilters): Promise<{ data: OperatorTopup[]; has_more: boolean }> {
    const page = await this.deps.payments().topups.listForAdmin({
      ...f,
      messagingId: f.messagingId?.trim(),
      limit: PAGE,
    });
    const refunds = await this.deps.storage.topups.refundsOfTopups(page.data.map((r) => r.id));
    return {
      data: page.data.map((row) => ({ row, refunds: refunds.filter((r) => r.topup_id === row.id) })),
      has_more: page.has_more,
    };
  }

  /**
   * A refund of a paid top-up, in full (empty amount) or in part; the operator must confirm. A
   * refused one (not paid, more than the key holds, a bad amount) changes nothing and is not
   * audited; a done one is, with the top-up before and after and the refund.
   */
  async refund(
    topupId: string,
    form: { amountRub?: string; confirmed: boolean },
    by: OperatorActor,
  ): Promise<{ topup: TopupRow; refund: RefundRow }> {
    if (!form.confirmed)
      throw new AppError(
        'invalid_parameter',
        'Tick the confirmation to refund: money goes back to the payer',
        'confirm',
      );
    const before = await this.deps.storage.topups.byId(topupId);
    if (!before) throw new AppError('not_found', 'Top-up not found');
    const amount = form.amountRub?.trim() ? form.amountRub.trim() : undefined;
    const done = await this.deps.payments().refunds.refund(topupId, amount);
    await this.audit(by, 'topup.refunded', `topup:${topupId}`, topupState(before), {
      ...topupState(done.topup),
      refund: {
        id: done.refund.id,
        status: done.refund.status,
        amount_micro: Number(done.refund.amount),
        failure: done.refund.failure,
      },
    });
    return done;
  }

  /** Codes made in clear, this once; the audit log records how many, never a code. */
  async createCodes(
    form: { amountRub: string; count: string; expiresAt: string },
    by: OperatorActor,
  ): Promise<string[]> {
    const countText = form.count.trim() || '1';
    const count = /^\d{1,4}$/.test(countText) ? Number(countText) : Number.NaN;
    if (!Number.isInteger(count) || count < 1 || count > CONSOLE_MAX_CODES)
      throw new AppError(
        'invalid_parameter',
        `count must be an integer from 1 to ${CONSOLE_MAX_CODES} (use the admin API for more)`,
        'count',
      );
    const expiresAt = form.expiresAt.trim();
    const codes = await this.deps.payments().codes.create({
      amount_rub: form.amountRub.trim(),
      count,
      expires_at: expiresAt || undefined,
    });
    const row = await this.deps.storage.topups.codeByHash(hashCode(codes[0]));
    await this.audit(by, 'codes.created', 'codes', null, {
      count,
      amount_micro: Number(row?.amount ?? 0),
      expires_at: iso(row?.expires_at ?? null),
      ids: await this.idsOf(codes),
    });
    return codes;
  }

  private async idsOf(codes: string[]): Promise<string[]> {
    const ids: string[] = [];
    for (const code of codes) {
      const row = await this.deps.storage.topups.codeByHash(hashCode(code));
      if (row) ids.push(row.id);
    }
    return ids;
  }

  /** True when every one of these is a stored, unredeemed code (the page that reveals them checks). */
  async areFreshCodes(codes: string[]): Promise<boolean> {
    for (const code of codes) {
      const row = await this.deps.storage.topups.codeByHash(hashCode(code));
      if (!row || row.redeemed_at !== null) return false;
    }
    return codes.length > 0;
  }

  async codes(limit = 200): Promise<(CodeRow & { state: CodeStatus })[]> {
    const now = this.deps.clock.now();
    return (await this.deps.storage.topups.listCodes(limit)).map((c) => ({
      ...c,
      state: codeStatus(c, now),
    }));
  }
}
