// Accounts: find one by messaging id or key prefix, create one, change its coefficient, see its keys
// with their restrictions, create, restrict or delete a key, top up or adjust a key's balance (a note
// is required), and make a one-time panel sign-in link for support. A key's full value is shown
// once, on the page that created it; the webhook secret never.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import { maskApiKey } from '../../domain/keys/api-key.js';
import type { presentKeyLimits } from '../../domain/keys/limits.js';
import type { KeyForm, keySummary } from '../../services/operator/operator-console.js';
import { badge, card, escapeHtml, flash, formatRub, formatTime, pageHeader, table } from '../../web/html.js';
import { formBody, sendHtml } from '../../web/http.js';
import { CONSOLE_ROUTE, operatorOf } from '../console-context.js';
import { csrfField, renderConsolePage } from '../layout.js';
import { showOnceCookie } from '../show-once.js';
import { change, doneFlash, idParam, one } from './common.js';

type Key = ReturnType<typeof keySummary> & { limits: ReturnType<typeof presentKeyLimits> };

/**
 * A new key's value or a new panel link travels from the form's answer to the page it redirects to
 * in this short-lived cookie (HttpOnly, SameSite=Strict, Path=/console), which that page clears:
 * shown once, and a reload neither shows it again nor sends the form again.
 */
const REVEAL_COOKIE = 'gengate_console_reveal';

const coefficientText = (ppm: number) => String(ppm / 1_000_000);

function keyForm(form: URLSearchParams): KeyForm {
  return {
    name: form.get('name') ?? undefined,
    allowedModels: form.get('allowed_models') ?? '',
    allowedIpCidrs: form.get('allowed_ip_cidrs') ?? '',
    rateLimitPerMin: form.get('rate_limit_per_min') ?? '',
  };
}

function restrictionsText(key: Key): string {
  const parts = [
    key.allowed_models ? `models: ${key.allowed_models.join(', ')}` : 'every model',
    key.allowed_ip_cidrs ? `addresses: ${key.allowed_ip_cidrs.join(', ')}` : 'any address',
    key.rate_limit_per_min ? `${key.rate_limit_per_min}/min` : 'default rate',
  ];
  // The owner sets these in the panel (or the admin API); the console shows them.
  const { expires_at, spend_limit_rub, spend_limit_period, spent_in_period_rub } = key.limits;
  if (expires_at) parts.push(`expires ${expires_at.slice(0, 10)}`);
  if (spend_limit_rub !== null)
    parts.push(
      `spent ${spent_in_period_rub} of ${spend_limit_rub} ₽ ${spend_limit_period === 'total' ? 'in total' : `per ${spend_limit_period}`}`,
    );
  return escapeHtml(parts.join(' · '));
}

function keyCard(mid: number, key: Key, request: FastifyRequest): string {
  const csrf = csrfField(request.console);
  const base = `/console/accounts/${mid}/keys/${key.id}`;
  return card(
    `${key.name ? `${key.name} ` : ''}#${key.id}`,
    `<p><code>${escapeHtml(maskApiKey(key.prefix, key.last4))}</code> · balance <strong data-balance="${key.id}">${formatRub(key.balance)}</strong>${key.held ? ` · held ${formatRub(key.held)}` : ''}</p>
<p class="muted">${restrictionsText(key)}</p>
<form method="post" action="${base}/money" class="inline-form" aria-label="Move money on key ${key.id}">${csrf}
<label>Operation <select name="kind"><option value="topup">Top up</option><option value="adjust">Adjust (±)</option></select></label>
<label>Amount, ₽ <input name="amount_rub" inputmode="decimal" required maxlength="20"></label>
<label>Note (required) <input name="note" maxlength="500" placeholder="bank transfer 2026-11-28"></label>
<button class="btn btn-primary" type="submit">Apply</button></form>
<details><summary>Restrictions or delete</summary>
<form method="post" action="${base}/restrictions" class="stack">${csrf}
<label>Allowed models (empty: every model) <input name="allowed_models" value="${escapeHtml(key.allowed_models?.join(', ') ?? '')}"></label>
<label>Allowed addresses, CIDRs (empty: any) <input name="allowed_ip_cidrs" value="${escapeHtml(key.allowed_ip_cidrs?.join(', ') ?? '')}"></label>
<label>Requests per minute (empty: default) <input name="rate_limit_per_min" inputmode="numeric" value="${key.rate_limit_per_min ?? ''}"></label>
<button class="btn" type="submit">Save restrictions</button></form>
<form method="post" action="${base}/delete" data-confirm="Delete key #${key.id}? It stops working at once.">${csrf}<button class="btn btn-danger" type="submit">Delete key</button></form>
</details>`,
  );
}

export function registerAccountPages(app: FastifyInstance, ctx: AppContext): void {
  const ops = ctx.operator.console;
  const secure = ctx.config.publicUrl.startsWith('https:');
  const revealCookie = showOnceCookie(REVEAL_COOKIE, secure);

  /** The card of what was just made (a key's value, a panel link), read off the cookie once. */
  async function revealed(request: FastifyRequest, reply: FastifyReply, mid: number): Promise<string> {
    const value = revealCookie.take(request, reply);
    if (!value) return '';
    const link = /^p_([A-Za-z0-9_-]{20,100})$/.exec(value);
    if (link) {
      const url = `${ctx.config.publicUrl}/panel/login?token=${link[1]}`;
      return `<section class="card secret-once" role="status"><h2>Panel sign-in link</h2>
<p>Works once, for 15 minutes. ${badge('shown once', 'warn')}</p>
<div class="secret"><code data-panel-link>${escapeHtml(url)}</code><button type="button" class="btn btn-small" data-copy="${escapeHtml(url)}">Copy</button></div></section>`;
    }
    const key = /^(\d{1,15})_(sk_[A-Za-z0-9_]{10,200})$/.exec(value);
    if (!key || !(await ops.isSecretOf(mid, Number(key[1]), key[2]))) return '';
    return `<section class="card secret-once" role="status"><h2>Key #${key[1]} created</h2>
<p><strong>Copy it now: it is shown only this once.</strong></p>
<div class="secret"><code data-new-key>${escapeHtml(key[2])}</code><button type="button" class="btn btn-small" data-copy="${escapeHtml(key[2])}">Copy</button></div></section>`;
  }

  app.get('/console', CONSOLE_ROUTE, async (_request, reply) => reply.redirect('/console/accounts', 303));

  async function listPage(request: FastifyRequest, reply: FastifyReply, message = '', status = 200) {
    const q = one((request.query as Record<string, unknown>).q) ?? '';
    let rows: string[][] = [];
    let error = '';
    try {
      const accounts = await ops.findAccounts(q);
      rows = accounts.map((a) => [
        `<a href="/console/accounts/${a.messaging_id}">${escapeHtml(a.messaging_id)}</a>`,
        escapeHtml(coefficientText(Number(a.coefficient_ppm))),
        formatTime(Number(a.created_at)),
      ]);
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      error = flash('error', e.message);
      status = e.status === 404 ? 404 : 422;
    }
    const csrf = csrfField(request.console);
    const body = `${pageHeader('Accounts', 'Find an account by messaging id or key prefix')}${message}${error}
<form method="get" action="/console/accounts" class="inline-form" role="search">
<label>Messaging id or key prefix <input name="q" value="${escapeHtml(q)}" placeholder="123456789 or sk_live_abcd"></label>
<button class="btn btn-primary" type="submit">Find</button></form>
${card(q ? 'Found' : 'Newest accounts', table([{ label: 'Messaging id' }, { label: 'Coefficient', num: true }, { label: 'Created' }], rows, q ? 'No account matches.' : 'No accounts yet.'))}
${card(
  'New account',
  `<form method="post" action="/console/accounts" class="inline-form">${csrf}
<label>Messaging id <input name="messaging_id" inputmode="numeric" required maxlength="20"></label>
<label>Coefficient <input name="coefficient" inputmode="decimal" placeholder="1" maxlength="12"></label>
<button class="btn btn-primary" type="submit">Create</button></form>`,
)}`;
    return sendHtml(
      reply,
      status,
      renderConsolePage({ title: 'Accounts', active: 'accounts', session: request.console, body }),
    );
  }

  app.get('/console/accounts', CONSOLE_ROUTE, (request, reply) => listPage(request, reply));

  app.post('/console/accounts', CONSOLE_ROUTE, async (request, reply) => {
    const form = formBody(request);
    const mid = (form.get('messaging_id') ?? '').trim();
    return change(
      reply,
      () => ops.createAccount(mid, form.get('coefficient') ?? '', operatorOf(request)),
      `/console/accounts/${encodeURIComponent(mid)}?done=created`,
      (message, status) => listPage(request, reply, message, status),
    );
  });

  async function accountPage(
    request: FastifyRequest<{ Params: { mid: string } }>,
    reply: FastifyReply,
    message = '',
    extra = '',
    status = 200,
  ) {
    const account = await ops.account(request.params.mid);
    const mid = account.messaging_id;
    const csrf = csrfField(request.console);
    const fresh = request.method === 'GET' ? await revealed(request, reply, mid) : '';
    const body = `${pageHeader(`Account ${mid}`, `Created ${new Date(account.created_at).toISOString().slice(0, 10)}`)}${doneFlash((request.query as Record<string, unknown>).done)}${message}${extra}${fresh}
<div class="grid">
${card(
  'Coefficient',
  `<p>Prices × <strong data-coefficient>${escapeHtml(coefficientText(account.coefficient_ppm))}</strong></p>
<p class="muted" data-low-balance>Low-balance notice on Telegram: ${account.low_balance === null ? 'off' : `below ${formatRub(account.low_balance)}`} (the owner sets it in the panel)</p>
<form method="post" action="/console/accounts/${mid}/coefficient" class="inline-form">${csrf}
<label>New coefficient <input name="coefficient" inputmode="decimal" required maxlength="12"></label>
<button class="btn" type="submit">Save</button></form>`,
)}
${card(
  'Support',
  `<p>A one-time sign-in link to this account's panel, valid 15 minutes. Send it to the owner only.</p>
<form method="post" action="/console/accounts/${mid}/panel-link">${csrf}<button class="btn" type="submit">Make a panel sign-in link</button></form>`,
)}
</div>
<h2>Keys</h2>
${account.keys.length === 0 ? '<p class="muted">No keys yet.</p>' : account.keys.map((k) => keyCard(mid, k, request)).join('')}
${card(
  'New key',
  `<form method="post" action="/console/accounts/${mid}/keys" class="stack">${csrf}
<label>Name <input name="name" maxlength="100"></label>
<label>Allowed models (empty: every model) <input name="allowed_models"></label>
<label>Allowed addresses, CIDRs (empty: any) <input name="allowed_ip_cidrs"></label>
<label>Requests per minute (empty: default) <input name="rate_limit_per_min" inputmode="numeric"></label>
<button class="btn btn-primary" type="submit">Create key</button></form>`,
)}`;
    return sendHtml(
      reply,
      status,
      renderConsolePage({ title: `Account ${mid}`, active: 'accounts', session: request.console, body }),
    );
  }

  type WithMid = { Params: { mid: string } };
  type WithKey = { Params: { mid: string; id: string } };

  app.get<WithMid>('/console/accounts/:mid', CONSOLE_ROUTE, (request, reply) => accountPage(request, reply));

  app.post<WithMid>('/console/accounts/:mid/coefficient', CONSOLE_ROUTE, async (request, reply) =>
    change(
      reply,
      () =>
        ops.setCoefficient(
          request.params.mid,
          formBody(request).get('coefficient') ?? '',
          operatorOf(request),
        ),
      `/console/accounts/${request.params.mid}?done=coefficient`,
      (message, status) => accountPage(request, reply, message, '', status),
    ),
  );

  app.post<WithMid>('/console/accounts/:mid/keys', CONSOLE_ROUTE, async (request, reply) => {
    let made: { key: { id: number }; secret: string };
    try {
      made = await ops.createKey(request.params.mid, keyForm(formBody(request)), operatorOf(request));
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      return accountPage(request, reply, flash('error', error.message), '', error.status);
    }
    revealCookie.put(reply, `${made.key.id}_${made.secret}`);
    return reply.redirect(`/console/accounts/${request.params.mid}?done=key`, 303);
  });

  /** The key, when it is one of this account's: another account's key is simply not found. */
  async function ownKey(request: FastifyRequest<WithKey>): Promise<number> {
    const id = idParam(request.params.id, 'Key');
    const account = await ops.account(request.params.mid);
    if (!account.keys.some((k) => k.id === id)) throw new AppError('not_found', 'Key not found');
    return id;
  }

  app.post<WithKey>('/console/accounts/:mid/keys/:id/money', CONSOLE_ROUTE, async (request, reply) => {
    const id = await ownKey(request);
    const form = formBody(request);
    const kind = form.get('kind') === 'adjust' ? 'adjust' : 'topup';
    return change(
      reply,
      () =>
        ops.moveMoney(kind, id, form.get('amount_rub') ?? '', form.get('note') ?? '', operatorOf(request)),
      `/console/accounts/${request.params.mid}?done=${kind === 'adjust' ? 'adjusted' : 'topup'}`,
      (message, status) => accountPage(request, reply, message, '', status),
    );
  });

  app.post<WithKey>('/console/accounts/:mid/keys/:id/restrictions', CONSOLE_ROUTE, async (request, reply) => {
    const id = await ownKey(request);
    return change(
      reply,
      () => ops.updateKey(id, keyForm(formBody(request)), operatorOf(request)),
      `/console/accounts/${request.params.mid}?done=restricted`,
      (message, status) => accountPage(request, reply, message, '', status),
    );
  });

  app.post<WithKey>('/console/accounts/:mid/keys/:id/delete', CONSOLE_ROUTE, async (request, reply) => {
    const id = await ownKey(request);
    return change(
      reply,
      () => ops.deleteKey(id, operatorOf(request)),
      `/console/accounts/${request.params.mid}?done=deleted`,
      (message, status) => accountPage(request, reply, message, '', status),
    );
  });

  app.post<WithMid>('/console/accounts/:mid/panel-link', CONSOLE_ROUTE, async (request, reply) => {
    const url = await ops.panelLink(request.params.mid, operatorOf(request));
    revealCookie.put(reply, `p_${new URL(url).searchParams.get('token')}`);
    return reply.redirect(`/console/accounts/${request.params.mid}?done=panel_link`, 303);
  });
}
