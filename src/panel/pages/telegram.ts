// Sign-in with the Telegram Login Widget (when TELEGRAM_BOT_TOKEN is set). Telegram sends the
// browser to /panel/telegram with the signed payload; like a login link, that GET only shows a
// confirmation, and the POST signs in. The Telegram id is the account's messaging_id; an unknown id
// is refused, never created.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { telegramFields, verifyTelegramLogin } from '../../domain/panel/telegram-login.js';
import { escapeHtml } from '../../web/html.js';
import { renderPage } from '../layout.js';
import { formBody, PANEL_ROUTE, sendHtml } from '../panel-context.js';
import { type AuthDeps, completeFirstFactor } from './auth.js';

/** How old a widget payload may be: about as long as a login link lives. */
export const TELEGRAM_AUTH_MAX_AGE_SECONDS = 15 * 60;

function refused(reply: FastifyReply, status: number, message: string) {
  return sendHtml(
    reply,
    status,
    renderPage({
      title: 'Telegram sign-in refused',
      body: `<div class="signin"><section class="card"><h1>Telegram sign-in refused</h1><p>${escapeHtml(message)}</p>
<p><a href="/panel">Back to sign-in</a></p></section></div>`,
    }),
  );
}

const MESSAGES = {
  missing_fields: 'The sign-in data from Telegram is incomplete. Try the Telegram button again.',
  bad_hash: 'The sign-in data is not signed by this panel’s Telegram bot.',
  expired: 'The sign-in data from Telegram is too old. Try the Telegram button again.',
  from_future: 'The sign-in data from Telegram is dated in the future. Check the server clock.',
  unknown: 'No gengate account belongs to this Telegram account. Ask the operator to create one.',
};

export function registerTelegramPages(app: FastifyInstance, ctx: AppContext, deps: AuthDeps): void {
  const botToken = ctx.config.telegramBotToken;
  if (!botToken) return;

  const check = (fields: Record<string, string> | undefined) =>
    fields === undefined
      ? ({ ok: false, reason: 'missing_fields' } as const)
      : verifyTelegramLogin(fields, botToken, ctx.clock.now(), TELEGRAM_AUTH_MAX_AGE_SECONDS);

  app.get('/panel/telegram', PANEL_ROUTE, async (request, reply) => {
    const query = new URLSearchParams(request.url.split('?')[1] ?? '');
    const fields = telegramFields(query);
    const result = check(fields);
    if (!result.ok) return refused(reply, 401, MESSAGES[result.reason]);
    const account = await ctx.panel.owner.accountByMessagingId(result.telegramId);
    if (!account) return refused(reply, 403, MESSAGES.unknown);
    const hidden = Object.entries(fields ?? {})
      .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
      .join('');
    const who = result.username ? `@${result.username}` : (result.firstName ?? String(result.telegramId));
    return sendHtml(
      reply,
      200,
      renderPage({
        title: 'Sign in',
        body: `<div class="signin"><section class="card"><h1>Sign in with Telegram</h1>
<p>Continue as <strong>${escapeHtml(who)}</strong> to account <strong>${escapeHtml(account.messaging_id)}</strong>.</p>
<form method="post" action="/panel/telegram" class="stack">${hidden}<button class="btn btn-primary" type="submit">Sign in</button></form>
</section></div>`,
      }),
    );
  });

  app.post('/panel/telegram', PANEL_ROUTE, async (request, reply) => {
    await deps.guard.attempt(request.ip);
    const result = check(telegramFields(formBody(request)));
    if (!result.ok) {
      await deps.guard.failed(request.ip, undefined, 'telegram_invalid', { why: result.reason });
      return refused(reply, 401, MESSAGES[result.reason]);
    }
    const account = await ctx.panel.owner.accountByMessagingId(result.telegramId);
    if (!account) {
      await deps.guard.failed(request.ip, undefined, 'telegram_unknown_account', {
        telegram_id: result.telegramId,
      });
      return refused(reply, 403, MESSAGES.unknown);
    }
    return completeFirstFactor(deps, request, reply, Number(account.id), 'telegram');
  });
}
