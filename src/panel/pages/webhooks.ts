// The Webhooks page: the account's signing secret, shown only when asked (a POST, so it is never in
// a page's source by default, a cache or the browser history), and its rotation (the previous secret
// keeps verifying for a day, as with the admin API).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import { card, escapeHtml, flash, formatTime, pageHeader } from '../../web/html.js';
import { csrfField, renderPage } from '../layout.js';
import { PANEL_ROUTE, sendHtml } from '../panel-context.js';

/** How long the previous secret stays valid after a rotation (the admin API's grace too). */
export const ROTATION_GRACE_MS = 24 * 3600 * 1000;

function secretBox(secret: string): string {
  return `<div class="secret"><code data-webhook-secret>${escapeHtml(secret)}</code><button type="button" class="btn btn-small" data-copy="${escapeHtml(secret)}">Copy</button></div>`;
}

export function registerWebhookPages(app: FastifyInstance, ctx: AppContext): void {
  const actor = (request: FastifyRequest) => ({ actor: 'owner', ip: request.ip });

  async function show(request: FastifyRequest, reply: FastifyReply, revealed?: string, message = '') {
    const session = request.panel;
    const account = await ctx.panel.owner.account(session.accountId);
    if (!account) throw new AppError('not_found');
    const graceUntil = account.webhook_secret_previous_until;
    const previous =
      graceUntil && Number(graceUntil) > ctx.clock.now()
        ? `<p class="muted">The previous secret still verifies until ${formatTime(Number(graceUntil))}.</p>`
        : '';
    const secretHtml = revealed
      ? `${secretBox(revealed)}<p class="muted">Keep it on your server only. It is hidden again when you leave this page.</p>`
      : `<div class="secret"><code>whsec_••••••••••••••••</code>
<form method="post" action="/panel/webhooks/reveal" class="inline">${csrfField(session)}<button class="btn btn-small" type="submit">Show secret</button></form></div>`;
    const body = `${pageHeader('Webhooks', 'Deliveries of finished tasks to your webhook_url')}${message}
${card(
  'Signing secret',
  `<p>Every delivery is signed (Standard Webhooks: <code>webhook-id</code>, <code>webhook-timestamp</code>,
<code>webhook-signature</code>). Verify it with this secret, for example with the <code>standardwebhooks</code> package.</p>
${secretHtml}${previous}`,
)}
${card(
  'Rotate the secret',
  `<p>Makes a new secret. The current one keeps verifying for 24 hours, so you can deploy the new one without losing deliveries.</p>
<form method="post" action="/panel/webhooks/rotate" data-confirm="Make a new webhook secret?">${csrfField(session)}<button class="btn btn-danger" type="submit">Rotate secret</button></form>`,
)}`;
    return sendHtml(reply, 200, renderPage({ title: 'Webhooks', active: 'webhooks', session, body }));
  }

  app.get('/panel/webhooks', PANEL_ROUTE, (request, reply) => show(request, reply));

  app.post('/panel/webhooks/reveal', PANEL_ROUTE, async (request, reply) => {
    const account = await ctx.panel.owner.account(request.panel.accountId);
    if (!account) throw new AppError('not_found');
    await ctx.panel.owner.record(account.id, actor(request), 'webhook_secret.viewed');
    return show(request, reply, account.webhook_secret);
  });

  app.post('/panel/webhooks/rotate', PANEL_ROUTE, async (request, reply) => {
    const updated = await ctx.accounts.rotateWebhookSecret(
      request.panel.accountId,
      ROTATION_GRACE_MS,
      actor(request),
    );
    return show(
      request,
      reply,
      updated.webhook_secret,
      flash('ok', 'New secret made. Put it on your server; the old one works for 24 hours.'),
    );
  });
}
