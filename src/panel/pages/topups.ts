// Money in on the panel's Money page: "Add funds" (amount, method, email when receipts are on),
// which sends the payer to the payment page; the return page, which shows the top-up's status and
// refreshes it until it settles; the key's top-up history; and "Redeem a code".
// The payment page is another site: the panel's CSP allows forms to post only to the panel, and
// browsers apply that to a form's redirect too, so the panel's own "pay" page forwards the payer
// with a refresh (and a link) instead.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import type { ApiKeyRow } from '../../storage/repositories/keys.js';
import type { TopupRow } from '../../storage/repositories/topups.js';
import {
  badge,
  card,
  emptyState,
  escapeHtml,
  flash,
  formatRub,
  formatTime,
  pageHeader,
  type Tone,
  table,
} from '../../web/html.js';
import { csrfField, renderPage } from '../layout.js';
import type { PanelSession } from '../panel-context.js';
import { formBody, PANEL_ROUTE, sendHtml } from '../panel-context.js';
import { idParam, keyOptions, PAGES_CSS } from './common.js';

const STATUS_TONE: Record<string, Tone> = {
  pending: 'warn',
  succeeded: 'ok',
  canceled: 'muted',
  refunded: 'info',
};
const METHOD_LABEL: Record<string, string> = { yookassa: 'Card (YooKassa)', stripe: 'Card (Stripe)' };
const HTMX = '<script src="/panel/assets/htmx.js"></script>';

function statusBadge(status: string): string {
  return badge(status, STATUS_TONE[status] ?? 'muted');
}

/** The cards the Money page shows for the selected key: add funds, redeem, and its top-ups. */
export async function topupCards(
  ctx: AppContext,
  session: PanelSession,
  keys: ApiKeyRow[],
  selected: ApiKeyRow | undefined,
  form?: URLSearchParams,
): Promise<string> {
  if (!selected) return '';
  const csrf = csrfField(session);
  const available = ctx.payments.topups.available();
  const methods = available.methods;
  const addFunds =
    methods.length === 0
      ? emptyState('Card payments are off', 'The operator has not set up a payment method. Codes still work.')
      : `<form method="post" action="/panel/money/topups" class="filters">${csrf}
<label>Key<select name="key_id" required>${keyOptions(keys, selected.id)}</select></label>
<label>Amount, ₽<input name="amount" inputmode="decimal" required placeholder="${available.min_rub}" value="${escapeHtml(form?.get('amount') ?? '')}"></label>
<label>Method<select name="method">${methods.map((m) => `<option value="${escapeHtml(m)}"${form?.get('method') === m ? ' selected' : ''}>${escapeHtml(METHOD_LABEL[m] ?? m)}</option>`).join('')}</select></label>
${available.receipts ? `<label>Email for the receipt<input name="email" type="email" autocomplete="email" value="${escapeHtml(form?.get('email') ?? '')}"></label>` : ''}
<button class="btn btn-primary" type="submit">Add funds</button></form>
<p class="muted">From ${available.min_rub} to ${available.max_rub} ₽. You pay on the payment provider's page and come back here; the balance grows once the payment is confirmed.</p>`;
  const redeem = `<form method="post" action="/panel/money/redeem" class="filters">${csrf}
<input type="hidden" name="key_id" value="${selected.id}">
<label>Code<input name="code" required autocomplete="off" placeholder="GG-XXXX-XXXX-XXXX-XXXX" maxlength="64"></label>
<button class="btn" type="submit">Redeem</button></form>`;
  const page = await ctx.payments.topups.list({ keyId: selected.id, accountId: session.accountId }, 10);
  const history = table(
    [
      { label: 'When' },
      { label: 'Method' },
      { label: 'Amount', num: true },
      { label: 'Status' },
      { label: '' },
    ],
    page.data.map((t) => [
      formatTime(Number(t.created_at)),
      escapeHtml(METHOD_LABEL[t.method] ?? t.method),
      formatRub(Number(t.amount)),
      statusBadge(t.status),
      `<a href="/panel/money/topups/${escapeHtml(t.id)}">Details</a>`,
    ]),
    'No top-ups yet',
  );
  return `${card('Add funds', addFunds)}${card('Redeem a code', redeem)}${card('Top-ups of this key', history)}`;
}

function statusFragment(t: TopupRow): string {
  const live = t.status === 'pending';
  const attrs = live
    ? ` hx-get="/panel/money/topups/${escapeHtml(t.id)}/status" hx-trigger="every 2s" hx-swap="outerHTML"`
    : '';
  const text =
    t.status === 'pending'
      ? 'Waiting for the payment to be confirmed. This updates by itself.'
      : t.status === 'succeeded'
        ? `Paid: ${formatRub(Number(t.amount))} ₽ added to the key.`
        : t.status === 'canceled'
          ? `Not paid${t.cancel_reason ? ` (${escapeHtml(t.cancel_reason)})` : ''}. Nothing was charged to the key.`
          : 'Refunded to the payer.';
  return `<div id="topup-status" data-status="${t.status}" role="status" aria-live="polite"${attrs}>${statusBadge(t.status)} ${text}</div>`;
}

export function registerTopupPages(app: FastifyInstance, ctx: AppContext, moneyPage: MoneyPage): void {
  const owned = async (request: FastifyRequest, keyId: number) => {
    const key = await ctx.panel.owner.key(request.panel.accountId, keyId);
    if (!key) throw new AppError('not_found', 'Key not found');
    return key;
  };

  app.post('/panel/money/topups', PANEL_ROUTE, async (request, reply) => {
    const form = formBody(request);
    const keyId = idParam(form.get('key_id'));
    await owned(request, keyId);
    try {
      const outcome = await ctx.payments.topups.create(
        { keyId, accountId: request.panel.accountId },
        {
          amount_rub: (form.get('amount') ?? '').replace(',', '.'),
          method: form.get('method'),
          email: form.get('email') || undefined,
        },
      );
      const id = (outcome.body as { id: string }).id;
      return reply.redirect(`/panel/money/topups/${encodeURIComponent(id)}/pay`, 303);
    } catch (error) {
      if (!(error instanceof AppError) || error.status === 404) throw error;
      return moneyPage(request, reply, keyId, flash('error', error.message), error.status, form);
    }
  });

  // The panel's own step before the payment page (see the top of this file).
  app.get<{ Params: { id: string } }>('/panel/money/topups/:id/pay', PANEL_ROUTE, async (request, reply) => {
    const t = await ctx.payments.topups.getForAccount(request.panel.accountId, request.params.id);
    if (t.status !== 'pending' || !t.confirmation_url)
      return reply.redirect(`/panel/money/topups/${encodeURIComponent(t.id)}`, 303);
    const url = escapeHtml(t.confirmation_url);
    const body = `${pageHeader('Add funds', `${formatRub(Number(t.amount))} ₽`)}
${card('Going to the payment page', `<p>Taking you to the payment page…</p><p><a class="btn btn-primary" id="pay-link" href="${url}">Continue to payment</a></p>`)}`;
    return sendHtml(
      reply,
      200,
      renderPage({
        title: 'Add funds',
        active: 'money',
        session: request.panel,
        body,
        head: `${PAGES_CSS}<meta http-equiv="refresh" content="0;url=${url}">`,
      }),
    );
  });

  app.get<{ Params: { id: string } }>('/panel/money/topups/:id', PANEL_ROUTE, async (request, reply) => {
    const t = await ctx.payments.topups.refresh(
      await ctx.payments.topups.getForAccount(request.panel.accountId, request.params.id),
    );
    const details = `${statusFragment(t)}
<dl class="facts"><dt>Amount</dt><dd>${formatRub(Number(t.amount))} ₽</dd><dt>Method</dt><dd>${escapeHtml(METHOD_LABEL[t.method] ?? t.method)}</dd>
<dt>Key</dt><dd>#${Number(t.key_id)}</dd><dt>Created</dt><dd>${formatTime(Number(t.created_at))}</dd></dl>
<p><a class="btn" href="/panel/money?key=${Number(t.key_id)}">Back to Money</a></p>`;
    const body = `${pageHeader('Top-up', escapeHtml(t.id))}${card('Status', details)}`;
    return sendHtml(
      reply,
      200,
      renderPage({
        title: 'Top-up',
        active: 'money',
        session: request.panel,
        body,
        head: `${PAGES_CSS}${HTMX}`,
      }),
    );
  });

  app.get<{ Params: { id: string } }>(
    '/panel/money/topups/:id/status',
    PANEL_ROUTE,
    async (request, reply) => {
      const t = await ctx.payments.topups.getForAccount(request.panel.accountId, request.params.id);
      return sendHtml(reply, 200, statusFragment(t));
    },
  );

  app.post('/panel/money/redeem', PANEL_ROUTE, async (request, reply) => {
    const form = formBody(request);
    const keyId = idParam(form.get('key_id'));
    await owned(request, keyId);
    try {
      await ctx.payments.codes.redeem({ keyId, accountId: request.panel.accountId }, form.get('code') ?? '');
      return reply.redirect(`/panel/money?key=${keyId}&done=redeemed`, 303);
    } catch (error) {
      if (!(error instanceof AppError) || (error.status === 404 && error.code !== 'code_not_found'))
        throw error;
      return moneyPage(request, reply, keyId, flash('error', error.message), error.status);
    }
  });
}

export type MoneyPage = (
  request: FastifyRequest,
  reply: FastifyReply,
  keyId: number,
  message: string,
  status: number,
  form?: URLSearchParams,
) => Promise<unknown>;
