// Money in: every account's top-ups with filters (status, method, messaging id), each with its
// refunds and a refund form (full or part, a required confirmation); codes: create them (shown
// once, on the page the form redirects to) and list them (stored hashed: id, amount, state).
// Every change goes through the operator's payment service, which audits it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import {
  CONSOLE_MAX_CODES,
  type OperatorTopup,
  TOPUP_STATUSES,
} from '../../services/operator/operator-payments.js';
import { badge, card, escapeHtml, flash, formatRub, formatTime, pageHeader, table } from '../../web/html.js';
import { formBody, sendHtml } from '../../web/http.js';
import { CONSOLE_ROUTE, operatorOf } from '../console-context.js';
import { csrfField, renderConsolePage } from '../layout.js';
import { showOnceCookie } from '../show-once.js';
import { doneFlash, one } from './common.js';

/** New codes travel to the page that shows them once in this short-lived cookie (as a new key does). */
const CODES_COOKIE = 'gengate_console_codes';
const CODE_SHAPE = /^GG-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/;

const TONE: Record<string, 'ok' | 'warn' | 'muted' | 'error'> = {
  succeeded: 'ok',
  pending: 'warn',
  canceled: 'muted',
  refunded: 'error',
  refused: 'error',
  unused: 'ok',
  used: 'muted',
  expired: 'warn',
};
const stateBadge = (s: string) => badge(s, TONE[s] ?? 'muted');

function refundsText(t: OperatorTopup): string {
  if (t.refunds.length === 0) return '';
  return t.refunds
    .map(
      (r) =>
        `<div class="muted" data-refund="${escapeHtml(r.id)}">refund ${formatRub(Number(r.amount))} ${stateBadge(r.status)} ${formatTime(Number(r.created_at))}${r.failure ? ` · ${escapeHtml(r.failure)}` : ''}</div>`,
    )
    .join('');
}

function refundForm(t: OperatorTopup, csrf: string, query: string): string {
  if (t.row.status !== 'succeeded') return '';
  const id = escapeHtml(t.row.id);
  return `<details><summary>Refund</summary>
<form method="post" action="/console/topups/${id}/refund${query}" class="stack" aria-label="Refund ${id}">${csrf}
<label>Amount, ₽ (empty: all ${formatRub(Number(t.row.amount))}) <input name="amount_rub" inputmode="decimal" maxlength="20"></label>
<label class="check"><input type="checkbox" name="confirm" value="yes" required> Pay this back to the payer and debit the key</label>
<button class="btn btn-danger" type="submit">Refund</button></form></details>`;
}

export function registerMoneyPages(app: FastifyInstance, ctx: AppContext): void {
  const money = ctx.operator.payments;
  const secure = ctx.config.publicUrl.startsWith('https:');
  const codesCookie = showOnceCookie(CODES_COOKIE, secure);

  async function topupsPage(request: FastifyRequest, reply: FastifyReply, message = '', status = 200) {
    const q = request.query as Record<string, unknown>;
    const filters = {
      status: one(q.status) ?? '',
      method: one(q.method) ?? '',
      messagingId: one(q.messaging_id) ?? '',
      after: one(q.after) ?? '',
    };
    const csrf = csrfField(request.console);
    let list = '';
    try {
      const page = await money.topups(filters);
      const back = new URLSearchParams();
      for (const [k, v] of Object.entries({
        status: filters.status,
        method: filters.method,
        messaging_id: filters.messagingId,
      }))
        if (v) back.set(k, v);
      const query = back.size ? `?${back}` : '';
      const rows = page.data.map((t) => [
        `<code>${escapeHtml(t.row.id)}</code><div class="muted">${escapeHtml(t.row.method)} · <code>${escapeHtml(t.row.provider_payment_id ?? '—')}</code></div>`,
        `<a href="/console/accounts/${Number(t.row.messaging_id)}">${Number(t.row.messaging_id)}</a><div class="muted">key #${Number(t.row.key_id)}</div>`,
        `${formatRub(Number(t.row.amount))}<div class="muted">${escapeHtml(t.row.charge_currency.toUpperCase())} ${Number(t.row.charge_minor) / 100}</div>`,
        `<span data-status="${escapeHtml(t.row.id)}">${stateBadge(t.row.status)}</span>${refundsText(t)}${refundForm(t, csrf, query)}`,
        `${formatTime(Number(t.row.created_at))}${t.row.paid_at !== null ? `<div class="muted">paid ${formatTime(Number(t.row.paid_at))}</div>` : ''}${t.row.refunded_at !== null ? `<div class="muted">refunded ${formatTime(Number(t.row.refunded_at))}</div>` : ''}`,
      ]);
      const last = page.data.at(-1);
      if (page.has_more && last) back.set('after', last.row.id);
      list = `${table(
        [
          { label: 'Top-up' },
          { label: 'Account' },
          { label: 'Amount', num: true },
          { label: 'Status' },
          { label: 'Dates' },
        ],
        rows,
        'No top-ups match.',
      )}${page.has_more && last ? `<p><a class="btn" href="/console/topups?${back}">Older</a></p>` : ''}`;
    } catch (e) {
      if (!(e instanceof AppError) || e.status >= 500) throw e;
      message += flash('error', e.message);
      status = status === 200 ? e.status : status;
    }
    const option = (value: string, chosen: string, label = value) =>
      `<option value="${escapeHtml(value)}"${value === chosen ? ' selected' : ''}>${escapeHtml(label)}</option>`;
    const body = `${pageHeader('Top-ups', 'Card payments of every account; refunds')}${doneFlash(q.done)}${message}
<form method="get" action="/console/topups" class="inline-form" role="search">
<label>Status <select name="status">${option('', filters.status, 'any')}${TOPUP_STATUSES.map((s) => option(s, filters.status)).join('')}</select></label>
<label>Method <select name="method">${option('', filters.method, 'any')}${money
      .methods()
      .map((m) => option(m, filters.method))
      .join('')}</select></label>
<label>Messaging id <input name="messaging_id" inputmode="numeric" maxlength="20" value="${escapeHtml(filters.messagingId)}"></label>
<button class="btn btn-primary" type="submit">Filter</button></form>
${card('Top-ups', list)}`;
    return sendHtml(
      reply,
      status,
      renderConsolePage({ title: 'Top-ups', active: 'topups', session: request.console, body }),
    );
  }

  app.get('/console/topups', CONSOLE_ROUTE, (request, reply) => topupsPage(request, reply));

  app.post<{ Params: { id: string } }>(
    '/console/topups/:id/refund',
    CONSOLE_ROUTE,
    async (request, reply) => {
      const form = formBody(request);
      try {
        await money.refund(
          request.params.id,
          { amountRub: form.get('amount_rub') ?? '', confirmed: form.get('confirm') === 'yes' },
          operatorOf(request),
        );
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        return topupsPage(request, reply, flash('error', `Not refunded: ${error.message}`), error.status);
      }
      const back = new URLSearchParams(request.query as Record<string, string>);
      back.delete('after');
      back.set('done', 'refunded');
      return reply.redirect(`/console/topups?${back}`, 303);
    },
  );

  async function codesPage(request: FastifyRequest, reply: FastifyReply, message = '', status = 200) {
    let fresh = '';
    if (request.method === 'GET') {
      const value = codesCookie.take(request, reply);
      if (value) {
        const codes = value.split('_');
        if (
          codes.length <= CONSOLE_MAX_CODES &&
          codes.every((c) => CODE_SHAPE.test(c)) &&
          (await money.areFreshCodes(codes))
        )
          fresh = `<section class="card secret-once" role="status"><h2>${codes.length} code${codes.length === 1 ? '' : 's'} created</h2>
<p><strong>Copy them now: they are shown only this once.</strong></p>
<div class="secret"><pre data-new-codes>${escapeHtml(codes.join('\n'))}</pre><button type="button" class="btn btn-small" data-copy="${escapeHtml(codes.join('\n'))}">Copy</button></div></section>`;
      }
    }
    const codes = await money.codes();
    const rows = codes.map((c) => [
      `<code>${escapeHtml(c.id)}</code>`,
      formatRub(Number(c.amount)),
      `<span data-code-state="${escapeHtml(c.id)}">${stateBadge(c.state)}</span>`,
      c.redeemed_key_id === null ? '—' : `key #${Number(c.redeemed_key_id)}`,
      `${formatTime(Number(c.created_at))}${c.expires_at !== null ? `<div class="muted">expires ${formatTime(Number(c.expires_at))}</div>` : ''}${c.redeemed_at !== null ? `<div class="muted">used ${formatTime(Number(c.redeemed_at))}</div>` : ''}`,
    ]);
    const body = `${pageHeader('Codes', 'Prepaid codes: a key holder redeems one for its amount')}${doneFlash((request.query as Record<string, unknown>).done)}${message}${fresh}
${card(
  'New codes',
  `<form method="post" action="/console/codes" class="inline-form">${csrfField(request.console)}
<label>Amount, ₽ <input name="amount_rub" inputmode="decimal" required maxlength="20"></label>
<label>Count (1–${CONSOLE_MAX_CODES}) <input name="count" inputmode="numeric" value="1" maxlength="4"></label>
<label>Expires (optional) <input name="expires_at" type="date"></label>
<button class="btn btn-primary" type="submit">Create</button></form>`,
)}
${card(
  'Codes',
  `<p class="muted">Stored hashed: a code is shown only when it is made.</p>${table(
    [
      { label: 'Id' },
      { label: 'Amount', num: true },
      { label: 'State' },
      { label: 'Redeemed by' },
      { label: 'Dates' },
    ],
    rows,
    'No codes yet.',
  )}`,
)}`;
    return sendHtml(
      reply,
      status,
      renderConsolePage({ title: 'Codes', active: 'codes', session: request.console, body }),
    );
  }

  app.get('/console/codes', CONSOLE_ROUTE, (request, reply) => codesPage(request, reply));

  app.post('/console/codes', CONSOLE_ROUTE, async (request, reply) => {
    const form = formBody(request);
    let codes: string[];
    try {
      codes = await money.createCodes(
        {
          amountRub: form.get('amount_rub') ?? '',
          count: form.get('count') ?? '',
          expiresAt: form.get('expires_at') ?? '',
        },
        operatorOf(request),
      );
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      return codesPage(request, reply, flash('error', error.message), error.status);
    }
    codesCookie.put(reply, codes.join('_'));
    return reply.redirect('/console/codes?done=codes', 303);
  });
}
