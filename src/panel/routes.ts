// The owner's web panel (minimal): sign in with a one-time link from the operator, then see the
// account's keys, balances, 30-day spend per key and model, the webhook secret and the audit log.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { microToRub } from '../domain/billing/money.js';
import { presentKey } from '../http/presenters/keys.js';
import { PanelSessions, SESSION_TTL_MS } from '../services/panel-sessions.js';
import { escapeHtml, page } from './html.js';

const COOKIE = 'gengate_session';
const DAY_MS = 24 * 3600 * 1000;

function sessionCookie(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie ?? '';
  const match = new RegExp(`(?:^|;\\s*)${COOKIE}=([A-Za-z0-9_-]+)`).exec(header);
  return match?.[1];
}

function setSession(reply: FastifyReply, value: string, maxAgeSeconds: number, secure: boolean) {
  reply.header(
    'Set-Cookie',
    `${COOKIE}=${value}; Path=/panel; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`,
  );
}

function html(reply: FastifyReply, status: number, body: string) {
  return reply
    .code(status)
    .header('Cache-Control', 'no-store')
    .header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'")
    .type('text/html; charset=utf-8')
    .send(body);
}

export function registerPanelRoutes(app: FastifyInstance, ctx: AppContext): void {
  const sessions = new PanelSessions(ctx.storage, ctx.clock);
  const secure = ctx.config.publicUrl.startsWith('https:');
  const panel = { config: { access: 'system' as const }, schema: { hide: true } };

  app.get<{ Querystring: { token?: string } }>('/panel/login', panel, async (request, reply) => {
    const token = request.query.token ?? '';
    const opened = /^[A-Za-z0-9_-]{20,100}$/.test(token)
      ? await sessions.exchangeLoginLink(token, request.ip)
      : undefined;
    if (!opened) {
      return html(
        reply,
        401,
        page(
          'Sign-in',
          '<h1>Sign-in link invalid</h1><p>This link was already used or has expired. Ask the operator for a new one.</p>',
        ),
      );
    }
    setSession(reply, opened.session, SESSION_TTL_MS / 1000, secure);
    return reply.redirect('/panel', 303);
  });

  app.post('/panel/logout', panel, async (request, reply) => {
    const session = sessionCookie(request);
    if (session) await sessions.end(session);
    setSession(reply, '', 0, secure);
    return reply.redirect('/panel', 303);
  });

  app.get('/panel', panel, async (request, reply) => {
    const accountId = await sessions.accountOf(sessionCookie(request));
    if (accountId === undefined) {
      return html(
        reply,
        401,
        page('Sign-in', '<h1>gengate panel</h1><p>Open the one-time sign-in link the operator gave you.</p>'),
      );
    }
    const since = ctx.clock.now() - 30 * DAY_MS;
    const [account, keys, spend, byModel, audit] = await Promise.all([
      ctx.storage.accounts.byId(accountId),
      ctx.storage.keys.listForAccount(accountId),
      ctx.storage.analytics.spendByKey(accountId, since),
      ctx.storage.analytics.requestsByModel(accountId, since),
      ctx.storage.audit.listForAccount(accountId, 50),
    ]);
    const spendOf = new Map(spend.map((s) => [s.key_id, s]));
    const keyRows = keys
      .map((row) => {
        const key = presentKey(row);
        const used = spendOf.get(row.id);
        return `<tr><td>${key.id}</td><td>${escapeHtml(key.name ?? '')}</td><td><code>${escapeHtml(key.key_value)}</code></td>
<td class="num">${key.balance.toFixed(2)}</td><td class="num">${key.held.toFixed(2)}</td>
<td class="num">${microToRub(used?.spent ?? 0).toFixed(2)}</td><td class="num">${used?.requests ?? 0}</td>
<td>${escapeHtml(key.allowed_models?.join(', ') ?? 'all')}</td><td>${escapeHtml(key.allowed_ip_cidrs?.join(', ') ?? 'any')}</td>
<td class="num">${key.rate_limit_per_min ?? ctx.config.defaultRateLimitPerMin}</td></tr>`;
      })
      .join('');
    const modelRows = byModel
      .sort((a, b) => b.requests - a.requests)
      .map(
        (m) =>
          `<tr><td>${m.key_id}</td><td>${escapeHtml(m.model_id)}</td><td class="num">${m.requests}</td></tr>`,
      )
      .join('');
    const auditRows = audit
      .map(
        (a) =>
          `<tr><td>${new Date(a.created_at).toISOString()}</td><td>${escapeHtml(a.action)}</td><td>${escapeHtml(a.actor)}</td><td><code>${escapeHtml(a.details ?? '')}</code></td></tr>`,
      )
      .join('');
    const body = `<header><h1>Account ${escapeHtml(account?.messaging_id)}</h1>
<form method="post" action="/panel/logout"><button>Sign out</button></form></header>
<h2>API keys</h2>
<table><tr><th>id</th><th>name</th><th>key</th><th class="num">balance, RUB</th><th class="num">held</th><th class="num">spent 30 d</th><th class="num">requests 30 d</th><th>models</th><th>IP ranges</th><th class="num">per min</th></tr>${keyRows}</table>
<h2>Requests by model, 30 days</h2>
<table><tr><th>key</th><th>model</th><th class="num">requests</th></tr>${modelRows || '<tr><td colspan="3">none yet</td></tr>'}</table>
<h2>Webhook signing secret</h2><p><code>${escapeHtml(account?.webhook_secret)}</code> — verify deliveries with the <code>standardwebhooks</code> package.</p>
<h2>Audit log</h2>
<table><tr><th>when (UTC)</th><th>action</th><th>by</th><th>details</th></tr>${auditRows}</table>`;
    return html(reply, 200, page('Panel', body));
  });
}
