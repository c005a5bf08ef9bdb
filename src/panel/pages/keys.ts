// The Keys pages: the owner's keys (masked value, balance, held, restrictions, last use), creating a
// key (its full value shown once, then masked), renaming, restrictions (allowed models picked from the
// catalog, IP ranges with the caller's address offered, the rate limit), limits (an expiry date and
// a spend cap per day, week, month or in total) and deletion of an emptied key. Every rule lives in OwnerKeysService / AccountsService; the routes read forms and render.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import { hashApiKey } from '../../domain/keys/api-key.js';
import { SPEND_PERIODS, spentInPeriod } from '../../domain/keys/limits.js';
import type { LimitsInput, RestrictionsInput } from '../../services/panel/owner-keys.js';
import type { ApiKeyRow } from '../../storage/repositories/keys.js';
import { badge, card, escapeHtml, flash, formatRub, formatTime, pageHeader, table } from '../../web/html.js';
import { csrfField, renderPage } from '../layout.js';
import { formBody, PANEL_ROUTE, readCookie, sendHtml, setCookie } from '../panel-context.js';
import { doneFlash, idParam, keyLabel, maskedKey, ownerActor, PAGES_CSS } from './common.js';

/** Carries a new key's full value from the creating POST to the one page that shows it. */
const REVEAL_COOKIE = 'gengate_new_key';
const REVEAL_SECONDS = 120;

function restrictionsSummary(key: ApiKeyRow, defaultRate: number, now: number): string {
  const models = key.allowed_models ? (JSON.parse(key.allowed_models) as string[]) : null;
  const ips = key.allowed_ip_cidrs ? (JSON.parse(key.allowed_ip_cidrs) as string[]) : null;
  return [
    models ? badge(`${models.length} model${models.length === 1 ? '' : 's'}`, 'info') : badge('all models'),
    ips ? badge(`${ips.length} IP range${ips.length === 1 ? '' : 's'}`, 'info') : badge('any IP'),
    key.rate_limit_per_min ? badge(`${key.rate_limit_per_min}/min`, 'info') : badge(`${defaultRate}/min`),
    ...limitBadges(key, now),
  ].join(' ');
}

function limitBadges(key: ApiKeyRow, now: number): string[] {
  const badges: string[] = [];
  if (key.expires_at !== null) {
    const day = new Date(Number(key.expires_at)).toISOString().slice(0, 10);
    badges.push(Number(key.expires_at) <= now ? badge('expired', 'error') : badge(`until ${day}`, 'info'));
  }
  if (key.spend_limit !== null)
    badges.push(badge(`${formatRub(Number(key.spend_limit))} ${periodWord(key.spend_limit_period)}`, 'info'));
  return badges;
}

function periodWord(period: string | null): string {
  return period === 'total' ? 'in total' : `per ${period ?? 'month'}`;
}

/**
 * expires_at, spend_limit_rub and spend_limit_period from the limits form. The date is a UTC day,
 * the last one the key works: it expires at the end of it.
 */
export function limitsFromForm(form: URLSearchParams): LimitsInput {
  const day = (form.get('expires') ?? '').trim();
  if (day !== '' && !/^\d{4}-\d{2}-\d{2}$/.test(day))
    throw new AppError('invalid_parameter', 'The expiry date must be a day such as 2026-12-31', 'expires_at');
  const amount = (form.get('spend_limit') ?? '').trim().replace(',', '.');
  return {
    expires_at: day === '' ? null : `${day}T23:59:59.999Z`,
    spend_limit_rub: amount === '' ? null : amount,
    spend_limit_period: amount === '' ? null : (form.get('spend_period') ?? 'month'),
  };
}

/** allowed_models, allowed_ip_cidrs and rate_limit_per_min from the restrictions form. */
export function restrictionsFromForm(form: URLSearchParams, callerIp: string): RestrictionsInput {
  const models = form.get('models_mode') === 'some' ? form.getAll('model') : null;
  if (models && models.length === 0)
    throw new AppError(
      'invalid_parameter',
      'Tick at least one model, or allow every model',
      'allowed_models',
    );
  const lines = (form.get('ips') ?? '')
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
  if (form.get('add_my_ip') === '1' && !lines.includes(callerIp)) lines.push(callerIp);
  const rateText = (form.get('rate') ?? '').trim();
  let rate: number | null = null;
  if (rateText !== '') {
    rate = /^\d{1,9}$/.test(rateText) ? Number(rateText) : Number.NaN;
    if (!Number.isSafeInteger(rate))
      throw new AppError(
        'invalid_parameter',
        'rate_limit_per_min must be a positive whole number',
        'rate_limit_per_min',
      );
  }
  return {
    allowed_models: models,
    allowed_ip_cidrs: lines.length > 0 ? lines : null,
    rate_limit_per_min: rate,
  };
}

export function registerKeysPages(app: FastifyInstance, ctx: AppContext): void {
  const keys = ctx.panel.keys;
  const secure = ctx.config.publicUrl.startsWith('https:');
  const defaultRate = ctx.config.defaultRateLimitPerMin;

  function send(request: FastifyRequest, reply: FastifyReply, status: number, title: string, body: string) {
    return sendHtml(
      reply,
      status,
      renderPage({ title, active: 'keys', session: request.panel, body, head: PAGES_CSS }),
    );
  }

  async function listPage(request: FastifyRequest, reply: FastifyReply, message = '', status = 200) {
    const session = request.panel;
    const owned = await keys.list(session.accountId);
    const rows = owned.map(({ key, lastUsedAt }) => [
      `<a href="/panel/keys/${key.id}">${escapeHtml(keyLabel(key))}</a>`,
      `<code>${escapeHtml(maskedKey(key))}</code>`,
      formatRub(key.balance),
      formatRub(key.held),
      restrictionsSummary(key, defaultRate, ctx.clock.now()),
      formatTime(lastUsedAt),
      `<a class="btn btn-small" href="/panel/keys/${key.id}">Manage</a>`,
    ]);
    const account = await ctx.panel.owner.account(session.accountId);
    const threshold = account?.low_balance == null ? '' : String(Number(account.low_balance) / 1_000_000);
    const telegramNote = ctx.config.telegramBotToken
      ? `The message comes from @${escapeHtml(ctx.config.telegramBotUsername ?? '')}: it can reach you only if you allowed it to write to you (signing in with Telegram asks for that).`
      : 'This gateway has no Telegram bot configured: notices wait until the operator sets one.';
    const body = `${pageHeader('API keys', 'Each key has its own balance and restrictions')}${message}
${card(
  'Low-balance notice',
  `<form method="post" action="/panel/keys/low-balance" class="filters">${csrfField(session)}
<label>Tell me on Telegram when a key's balance falls below, RUB (empty: never)<input name="low_balance" inputmode="decimal" value="${threshold}"></label>
<button class="btn" type="submit">Save</button></form>
<p class="muted">One message each time a key's balance (including what its requests in progress hold) drops below this; after a top-up above it, the next drop sends another. ${telegramNote}</p>`,
)}
${card(
  'Create a key',
  `<form method="post" action="/panel/keys" class="filters">${csrfField(session)}
<label>Name (optional)<input name="name" maxlength="100" placeholder="e.g. production bot"></label>
<button class="btn btn-primary" type="submit">Create key</button></form>
<p class="muted">A new key starts with a zero balance: move money to it on the Money page. Its full value is shown once.</p>`,
)}
${table(
  [
    { label: 'Name' },
    { label: 'Key' },
    { label: 'Balance', num: true },
    { label: 'Held', num: true },
    { label: 'Restrictions' },
    { label: 'Last request' },
    { label: '' },
  ],
  rows,
  'No keys yet',
)}`;
    return send(request, reply, status, 'API keys', body);
  }

  async function keyPage(
    request: FastifyRequest,
    reply: FastifyReply,
    keyId: number,
    message = '',
    status = 200,
  ) {
    const session = request.panel;
    const key = await keys.get(session.accountId, keyId);
    let reveal = '';
    const pending = readCookie(request, REVEAL_COOKIE);
    if (pending) {
      setCookie(reply, REVEAL_COOKIE, '', 0, secure);
      // Only the key it was made for, and only once: the cookie is cleared by this very answer.
      if (hashApiKey(pending) === key.key_hash) {
        reveal = card(
          'Your new key',
          `<div class="flash flash-info" role="status">Copy it now: this is the only time the full key is shown. A reload shows it masked.</div>
<div class="secret"><code data-new-key>${escapeHtml(pending)}</code><button type="button" class="btn btn-small" data-copy="${escapeHtml(pending)}">Copy</button></div>`,
        );
      }
    }
    const models = await ctx.catalog.publicModels();
    const lastUsed = await keys.lastUsedAt(session.accountId, keyId);
    const allowed = key.allowed_models ? (JSON.parse(key.allowed_models) as string[]) : null;
    const ips = key.allowed_ip_cidrs ? (JSON.parse(key.allowed_ip_cidrs) as string[]) : [];
    const kinds: [string, string][] = [
      ['text', 'Text'],
      ['image', 'Image'],
      ['video', 'Video'],
    ];
    const modelBoxes = kinds
      .map(([kind, label]) => {
        const boxes = models
          .filter((m) => m.kind === kind)
          .map(
            (m) =>
              `<label class="check"><input type="checkbox" name="model" value="${escapeHtml(m.id)}"${allowed?.includes(m.id) ? ' checked' : ''}> ${escapeHtml(m.id)}</label>`,
          )
          .join('');
        return boxes ? `<fieldset class="models"><legend>${label}</legend>${boxes}</fieldset>` : '';
      })
      .join('');
    const csrf = csrfField(session);
    const body = `${pageHeader(keyLabel(key), `Created ${new Date(key.created_at).toISOString().slice(0, 10)}`, `<a class="btn" href="/panel/keys">All keys</a>`)}${message}${reveal}
<div class="grid">
<div class="stat"><div class="stat-label">Key</div><div class="stat-value"><code>${escapeHtml(maskedKey(key))}</code></div></div>
<div class="stat"><div class="stat-label">Balance</div><div class="stat-value">${formatRub(key.balance)}</div></div>
<div class="stat"><div class="stat-label">Held by requests in progress</div><div class="stat-value">${formatRub(key.held)}</div></div>
<div class="stat"><div class="stat-label">Last request</div><div class="stat-value">${formatTime(lastUsed)}</div></div>
</div>
<p><a href="/panel/money?key=${key.id}">Ledger history and transfers</a> · <a href="/panel/analytics?key=${key.id}">Analytics of this key</a></p>
${card(
  'Name',
  `<form method="post" action="/panel/keys/${key.id}/rename" class="filters">${csrf}
<label>Name<input name="name" maxlength="100" value="${escapeHtml(key.name ?? '')}"></label>
<button class="btn" type="submit">Save name</button></form>`,
)}
${card(
  'Restrictions',
  `<form method="post" action="/panel/keys/${key.id}/restrictions" class="stack">${csrf}
<fieldset><legend>Models this key may use</legend>
<label class="check"><input type="radio" name="models_mode" value="all"${allowed ? '' : ' checked'}> Every model</label>
<label class="check"><input type="radio" name="models_mode" value="some"${allowed ? ' checked' : ''}> Only the models ticked below</label>
<div class="model-grid">${modelBoxes}</div></fieldset>
<label>Allowed IP addresses or CIDR ranges, one per line (empty: any address)
<textarea name="ips" rows="3" spellcheck="false" placeholder="203.0.113.7&#10;2001:db8::/32">${escapeHtml(ips.join('\n'))}</textarea></label>
<label class="check"><input type="checkbox" name="add_my_ip" value="1"> Add my current address <code>${escapeHtml(request.ip)}</code></label>
<label>Requests per minute (empty: the default, ${defaultRate})
<input name="rate" inputmode="numeric" pattern="[0-9]*" value="${key.rate_limit_per_min ?? ''}"></label>
<div><button class="btn btn-primary" type="submit">Save restrictions</button></div></form>`,
)}
${card('Limits', limitsForm(key, csrf, ctx.clock.now()))}
${card(
  'Delete the key',
  key.balance > 0 || key.held > 0
    ? `<p>This key still holds ${formatRub(key.balance + key.held)}. <a href="/panel/money?key=${key.id}">Move its balance</a> to another key first${key.held > 0 ? ' and wait for its requests in progress to finish' : ''}; then it can be deleted.</p>`
    : `<p>Requests with this key are refused at once after deletion. This cannot be undone.</p>
<form method="post" action="/panel/keys/${key.id}/delete" data-confirm="Delete ${escapeHtml(keyLabel(key))}? Requests with it will be refused.">${csrf}<button class="btn btn-danger" type="submit">Delete key</button></form>`,
)}`;
    return send(request, reply, status, keyLabel(key), body);
  }

  function limitsForm(key: ApiKeyRow, csrf: string, now: number): string {
    const expires =
      key.expires_at === null ? '' : new Date(Number(key.expires_at)).toISOString().slice(0, 10);
    const limit = key.spend_limit === null ? '' : String(Number(key.spend_limit) / 1_000_000);
    const current = key.spend_limit_period ?? 'month';
    const options = SPEND_PERIODS.map(
      (period) =>
        `<option value="${period}"${period === current ? ' selected' : ''}>${periodWord(period)}</option>`,
    ).join('');
    const spent =
      key.spend_limit === null
        ? ''
        : `<p class="muted">Spent or held ${current === 'total' ? 'in total' : `this ${current}`}: ${formatRub(spentInPeriod(key, now))} of ${formatRub(Number(key.spend_limit))}. Days, weeks (from Monday) and months are counted in UTC; changing the period starts a fresh count.</p>`;
    return `<form method="post" action="/panel/keys/${key.id}/limits" class="stack">${csrf}
<label>Last day the key works, UTC (empty: no expiry)
<input type="date" name="expires" value="${expires}"></label>
<label>Spend limit, RUB (empty: none): a request that would pass it is refused with 402
<input name="spend_limit" inputmode="decimal" value="${limit}"></label>
<label>Counted<select name="spend_period">${options}</select></label>
${spent}<div><button class="btn btn-primary" type="submit">Save limits</button></div></form>`;
  }

  /** A refused form shows its page again with the reason (422/409), not a bare error page. */
  async function orShowError(
    work: () => Promise<FastifyReply>,
    page: (message: string, status: number) => Promise<FastifyReply>,
  ) {
    try {
      return await work();
    } catch (error) {
      if (error instanceof AppError && error.status !== 404)
        return page(flash('error', error.message), error.status);
      throw error;
    }
  }

  app.get<{ Querystring: { done?: string } }>('/panel/keys', PANEL_ROUTE, (request, reply) =>
    listPage(request, reply, doneFlash(request.query.done)),
  );

  app.post('/panel/keys', PANEL_ROUTE, (request, reply) =>
    orShowError(
      async () => {
        const form = formBody(request);
        const { key, secret } = await keys.create(
          request.panel.accountId,
          { name: form.get('name') },
          ownerActor(request),
        );
        setCookie(reply, REVEAL_COOKIE, secret, REVEAL_SECONDS, secure);
        return reply.redirect(`/panel/keys/${key.id}?done=created`, 303);
      },
      (message, status) => listPage(request, reply, message, status),
    ),
  );

  app.get<{ Params: { id: string }; Querystring: { done?: string } }>(
    '/panel/keys/:id',
    PANEL_ROUTE,
    (request, reply) => keyPage(request, reply, idParam(request.params.id), doneFlash(request.query.done)),
  );

  app.post<{ Params: { id: string } }>('/panel/keys/:id/rename', PANEL_ROUTE, (request, reply) => {
    const keyId = idParam(request.params.id);
    return orShowError(
      async () => {
        await keys.rename(request.panel.accountId, keyId, formBody(request).get('name'), ownerActor(request));
        return reply.redirect(`/panel/keys/${keyId}?done=renamed`, 303);
      },
      (message, status) => keyPage(request, reply, keyId, message, status),
    );
  });

  app.post<{ Params: { id: string } }>('/panel/keys/:id/restrictions', PANEL_ROUTE, (request, reply) => {
    const keyId = idParam(request.params.id);
    return orShowError(
      async () => {
        const patch = restrictionsFromForm(formBody(request), request.ip);
        await keys.restrict(request.panel.accountId, keyId, patch, ownerActor(request));
        return reply.redirect(`/panel/keys/${keyId}?done=restricted`, 303);
      },
      (message, status) => keyPage(request, reply, keyId, message, status),
    );
  });

  app.post('/panel/keys/low-balance', PANEL_ROUTE, (request, reply) =>
    orShowError(
      async () => {
        const text = (formBody(request).get('low_balance') ?? '').trim().replace(',', '.');
        await ctx.accounts.updateAccount(
          request.panel.accountId,
          { low_balance_rub: text === '' ? null : text },
          ownerActor(request),
        );
        return reply.redirect('/panel/keys?done=low_balance', 303);
      },
      (message, status) => listPage(request, reply, message, status),
    ),
  );

  app.post<{ Params: { id: string } }>('/panel/keys/:id/limits', PANEL_ROUTE, (request, reply) => {
    const keyId = idParam(request.params.id);
    return orShowError(
      async () => {
        await keys.limit(
          request.panel.accountId,
          keyId,
          limitsFromForm(formBody(request)),
          ownerActor(request),
        );
        return reply.redirect(`/panel/keys/${keyId}?done=limited`, 303);
      },
      (message, status) => keyPage(request, reply, keyId, message, status),
    );
  });

  app.post<{ Params: { id: string } }>('/panel/keys/:id/delete', PANEL_ROUTE, (request, reply) => {
    const keyId = idParam(request.params.id);
    return orShowError(
      async () => {
        await keys.delete(request.panel.accountId, keyId, ownerActor(request));
        return reply.redirect('/panel/keys?done=deleted', 303);
      },
      (message, status) => keyPage(request, reply, keyId, message, status),
    );
  });
}
