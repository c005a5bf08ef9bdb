// The Money page: every key's balance, a transfer between two of the owner's keys, and one key's
// ledger history (every kind of ledger-kinds.ts) with filters, pages and a CSV export; adding funds
// by card and redeeming codes come from ./topups.ts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { balanceEffect, isLedgerKind, LEDGER_KIND_SPECS } from '../../domain/billing/ledger-kinds.js';
import { AppError } from '../../domain/errors.js';
import {
  type HistoryFilters,
  LEDGER_KINDS,
  parseHistoryFilters,
} from '../../services/panel/ledger-history.js';
import type { LedgerEntryRow } from '../../storage/ledger/ledger.js';
import {
  badge,
  card,
  emptyState,
  escapeHtml,
  flash,
  formatRub,
  formatTime,
  pageHeader,
  table,
} from '../../web/html.js';
import { csrfField, renderPage } from '../layout.js';
import { formBody, PANEL_ROUTE, sendHtml } from '../panel-context.js';
import { doneFlash, idParam, keyLabel, keyOptions, one, ownerActor, PAGES_CSS } from './common.js';
import { registerTopupPages, topupCards } from './topups.js';

type MoneyQuery = {
  key?: string;
  kind?: string | string[];
  from?: string;
  to?: string;
  before?: string;
  done?: string;
};

/** What an entry did to the available balance, signed: what the owner reads first. */
function entryEffect(e: LedgerEntryRow): number {
  return isLedgerKind(e.kind) ? balanceEffect(e.kind, Number(e.amount)) : 0;
}

function kindBadge(kind: string): string {
  return isLedgerKind(kind)
    ? badge(LEDGER_KIND_SPECS[kind].label, LEDGER_KIND_SPECS[kind].tone)
    : badge(kind, 'muted');
}

function filterQuery(keyId: number, f: HistoryFilters, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams({ key: String(keyId) });
  for (const kind of f.kinds) params.append('kind', kind);
  if (f.from) params.set('from', f.from);
  if (f.to) params.set('to', f.to);
  for (const [k, v] of Object.entries(extra)) params.set(k, v);
  return params.toString();
}

export function registerMoneyPages(app: FastifyInstance, ctx: AppContext): void {
  const history = ctx.panel.history;
  const transfers = ctx.panel.transfers;

  async function moneyPage(
    request: FastifyRequest<{ Querystring: MoneyQuery }>,
    reply: FastifyReply,
    message = '',
    status = 200,
    form?: URLSearchParams,
  ) {
    const session = request.panel;
    const q = request.query;
    const keys = await ctx.panel.owner.keys(session.accountId);
    const selectedId = one(q.key) ? idParam(one(q.key)) : keys[0]?.id;
    const selected = selectedId === undefined ? undefined : keys.find((k) => k.id === selectedId);
    if (selectedId !== undefined && !selected) throw new AppError('not_found', 'Key not found');
    const filters = parseHistoryFilters({ kind: q.kind, from: one(q.from), to: one(q.to) });
    const csrf = csrfField(session);

    const balances = table(
      [{ label: 'Key' }, { label: 'Available', num: true }, { label: 'Held', num: true }, { label: '' }],
      keys.map((k) => [
        escapeHtml(keyLabel(k)),
        formatRub(k.balance),
        formatRub(k.held),
        `<a href="/panel/money?key=${k.id}">History</a>`,
      ]),
      'No keys yet',
    );
    const fromId = form?.get('from_key_id') ? Number(form.get('from_key_id')) : selected?.id;
    const toId = form?.get('to_key_id') ? Number(form.get('to_key_id')) : undefined;
    const transferForm =
      keys.length < 2
        ? emptyState(
            'Transfers need two keys',
            'Create a second key to move money between them.',
            '<a class="btn" href="/panel/keys">Keys</a>',
          )
        : `<form method="post" action="/panel/money/transfer" class="filters">${csrf}
<label>From<select name="from_key_id" required>${keyOptions(keys, fromId, 'Choose a key')}</select></label>
<label>To<select name="to_key_id" required>${keyOptions(keys, toId, 'Choose a key')}</select></label>
<label>Amount, ₽<input name="amount" inputmode="decimal" required placeholder="150.00" value="${escapeHtml(form?.get('amount') ?? '')}"></label>
<label>Note (optional)<input name="note" maxlength="200" value="${escapeHtml(form?.get('note') ?? '')}"></label>
<button class="btn btn-primary" type="submit">Transfer</button></form>
<p class="muted">Only the available balance moves (not what requests in progress hold).</p>`;

    let historyHtml = emptyState('No key selected', 'Create a key to see its ledger.');
    if (selected) {
      const page = await history.page(session.accountId, selected.id, filters, one(q.before));
      const rows = page.entries.map((e) => {
        const effect = entryEffect(e);
        return [
          formatTime(Number(e.created_at)),
          kindBadge(e.kind),
          `<span class="${effect > 0 ? 'amount-in' : effect < 0 ? 'amount-out' : 'muted'}">${effect > 0 ? '+' : ''}${formatRub(effect)}</span>`,
          formatRub(Number(e.amount) < 0 ? -Number(e.amount) : Number(e.amount)),
          formatRub(Number(e.balance_after)),
          formatRub(Number(e.held_after)),
          e.task_id
            ? /^[0-9a-f-]{36}$/.test(e.task_id)
              ? `<a href="/panel/tasks/${escapeHtml(e.task_id)}"><code>${escapeHtml(e.task_id.slice(0, 8))}…</code></a>`
              : `<code>${escapeHtml(e.task_id.slice(0, 12))}</code>`
            : '',
          escapeHtml(e.note ?? ''),
        ];
      });
      const kindBoxes = LEDGER_KINDS.map(
        (kind) =>
          `<label class="check"><input type="checkbox" name="kind" value="${kind}"${filters.kinds.includes(kind) ? ' checked' : ''}> ${escapeHtml(LEDGER_KIND_SPECS[kind].label)}</label>`,
      ).join('');
      const next = page.nextBefore
        ? `<a class="btn btn-small" href="/panel/money?${escapeHtml(filterQuery(selected.id, filters, { before: String(page.nextBefore) }))}">Older entries</a>`
        : '';
      const first = one(q.before)
        ? `<a class="btn btn-small" href="/panel/money?${escapeHtml(filterQuery(selected.id, filters))}">Newest</a>`
        : '';
      historyHtml = `<form method="get" action="/panel/money" class="filters">
<label>Key<select name="key">${keyOptions(keys, selected.id)}</select></label>
<fieldset><legend>Kinds (none ticked: all)</legend><div class="filters">${kindBoxes}</div></fieldset>
<label>From<input type="date" name="from" value="${escapeHtml(filters.from)}"></label>
<label>To<input type="date" name="to" value="${escapeHtml(filters.to)}"></label>
<button class="btn" type="submit">Filter</button>
<a class="btn" href="/panel/money/export.csv?${escapeHtml(filterQuery(selected.id, filters))}">Export CSV</a></form>
${table(
  [
    { label: 'When' },
    { label: 'Kind' },
    { label: 'Available balance', num: true },
    { label: 'Amount', num: true },
    { label: 'Balance after', num: true },
    { label: 'Held after', num: true },
    { label: 'Task' },
    { label: 'Note' },
  ],
  rows,
  'No entries match',
)}<div class="pager">${first}${next}</div>`;
    }
    const body = `${pageHeader('Money', 'Balances, adding funds, transfers between your keys, and every ledger entry')}${message}
${card('Balances', balances)}
${await topupCards(ctx, session, keys, selected, form?.has('method') ? form : undefined)}
${card('Transfer between your keys', transferForm)}
${card(selected ? `Ledger of ${keyLabel(selected)}` : 'Ledger', historyHtml)}`;
    return sendHtml(
      reply,
      status,
      renderPage({ title: 'Money', active: 'money', session, body, head: PAGES_CSS }),
    );
  }

  app.get<{ Querystring: MoneyQuery }>('/panel/money', PANEL_ROUTE, (request, reply) =>
    moneyPage(request, reply, doneFlash(request.query.done)),
  );

  registerTopupPages(app, ctx, (request, reply, keyId, message, status, form) => {
    (request as FastifyRequest<{ Querystring: MoneyQuery }>).query = { key: String(keyId) };
    return moneyPage(request as FastifyRequest<{ Querystring: MoneyQuery }>, reply, message, status, form);
  });

  app.post<{ Querystring: MoneyQuery }>('/panel/money/transfer', PANEL_ROUTE, async (request, reply) => {
    const form = formBody(request);
    try {
      const fromKeyId = idParam(form.get('from_key_id'));
      await transfers.transfer(
        request.panel.accountId,
        {
          fromKeyId,
          toKeyId: idParam(form.get('to_key_id')),
          amount: form.get('amount') ?? '',
          note: form.get('note'),
        },
        ownerActor(request),
      );
      return reply.redirect(`/panel/money?key=${fromKeyId}&done=transferred`, 303);
    } catch (error) {
      if (!(error instanceof AppError) || error.status === 404) throw error;
      // The form's page again, with the reason and what was typed: the transfer's source selected.
      request.query = { key: form.get('from_key_id') ?? undefined };
      return moneyPage(request, reply, flash('error', error.message), error.status, form);
    }
  });

  app.get<{ Querystring: MoneyQuery }>('/panel/money/export.csv', PANEL_ROUTE, async (request, reply) => {
    const q = request.query;
    const keyId = idParam(one(q.key));
    const key = await ctx.panel.owner.key(request.panel.accountId, keyId);
    if (!key) throw new AppError('not_found', 'Key not found');
    const filters = parseHistoryFilters({ kind: q.kind, from: one(q.from), to: one(q.to) });
    const csv = await history.csv(request.panel.accountId, keyId, filters);
    return reply
      .header('Cache-Control', 'no-store')
      .header('Content-Disposition', `attachment; filename="gengate-key-${keyId}-ledger.csv"`)
      .type('text/csv; charset=utf-8')
      .send(csv);
  });
}
