// Sign-in and sign-out. A one-time link's GET (and HEAD: link previews in messengers and mail
// scanners fetch it) only shows a confirmation page; its POST spends the link. When the owner turned
// on two-factor authentication, a first factor leads to the code page instead of a session.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import {
  type PanelSessions,
  SECOND_FACTOR_TTL_MS,
  SESSION_TTL_MS,
  type SignInMethod,
} from '../../services/panel/panel-sessions.js';
import type { PanelSignInGuard } from '../../services/panel/panel-sign-in-guard.js';
import type { PanelTwoFactor } from '../../services/panel/panel-two-factor.js';
import { escapeHtml, flash } from '../../web/html.js';
import { renderPage } from '../layout.js';
import {
  formBody,
  PANEL_ROUTE,
  PanelPageError,
  readCookie,
  SECOND_FACTOR_COOKIE,
  SESSION_COOKIE,
  sendHtml,
  setCookie,
} from '../panel-context.js';
import { secondFactorLocked, wrongCodeMessage } from '../second-factor-messages.js';
import { telegramWidget } from './telegram-widget.js';

export interface AuthDeps {
  sessions: PanelSessions;
  twoFactor: PanelTwoFactor;
  guard: PanelSignInGuard;
  secure: boolean;
}

function signInBody(ctx: AppContext, message = ''): string {
  const telegram = ctx.config.telegramBotToken ? telegramWidget(ctx.config) : '';
  return `<div class="signin">${message}<section class="card">
<h1>Sign in to gengate</h1>
<p>Open the one-time sign-in link your operator gave you. Operators make one with
<code>gengate login-link MESSAGING_ID</code> or the admin API.</p>
${telegram}
</section></div>`;
}

/** The page every signed-out request to a panel page gets (401). */
export function signInPage(ctx: AppContext, message = '') {
  return (_request: FastifyRequest, reply: FastifyReply) =>
    sendHtml(reply, 401, renderPage({ title: 'Sign in', body: signInBody(ctx, message) }), {
      telegramWidget: Boolean(ctx.config.telegramBotToken),
    });
}

function invalidLink(reply: FastifyReply) {
  return sendHtml(
    reply,
    401,
    renderPage({
      title: 'Sign-in link invalid',
      body: `<div class="signin"><section class="card"><h1>Sign-in link invalid</h1>
<p>This link was already used or has expired. Ask the operator for a new one.</p></section></div>`,
    }),
  );
}

/**
 * After a first factor: a session, or (2FA on) the code step. Redirects like a form answer should,
 * so a reload never sends the form again.
 */
export async function completeFirstFactor(
  deps: AuthDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  accountId: number,
  method: SignInMethod,
) {
  if (await deps.twoFactor.isEnabled(accountId)) {
    const pending = await deps.sessions.openSecondFactor(accountId, method);
    setCookie(reply, SECOND_FACTOR_COOKIE, pending.token, SECOND_FACTOR_TTL_MS / 1000, deps.secure);
    return reply.redirect('/panel/login/code', 303);
  }
  const session = await deps.sessions.openSession(accountId, request.ip, method);
  setCookie(reply, SESSION_COOKIE, session.token, SESSION_TTL_MS / 1000, deps.secure);
  return reply.redirect('/panel', 303);
}

function codePage(message = '') {
  return renderPage({
    title: 'Two-factor code',
    body: `<div class="signin">${message}<section class="card">
<h1>Enter your code</h1>
<p>Type the 6-digit code from your authenticator app, or one of your recovery codes.</p>
<form method="post" action="/panel/login/code" class="stack">
<label>Code <input name="code" class="code" inputmode="numeric" autocomplete="one-time-code" required autofocus maxlength="20"></label>
<button class="btn btn-primary" type="submit">Sign in</button>
</form></section></div>`,
  });
}

export function registerAuthPages(app: FastifyInstance, ctx: AppContext, deps: AuthDeps): void {
  const { sessions, twoFactor, guard } = deps;

  app.get<{ Querystring: { token?: string } }>('/panel/login', PANEL_ROUTE, async (request, reply) => {
    const token = request.query.token ?? '';
    const accountId = await sessions.peekLoginLink(token);
    if (accountId === undefined) return invalidLink(reply);
    const account = await ctx.panel.owner.account(accountId);
    return sendHtml(
      reply,
      200,
      renderPage({
        title: 'Sign in',
        body: `<div class="signin"><section class="card">
<h1>Sign in to gengate</h1>
<p>You are signing in to account <strong>${escapeHtml(account?.messaging_id)}</strong>. The link works once.</p>
<form method="post" action="/panel/login" class="stack">
<input type="hidden" name="token" value="${escapeHtml(token)}">
<button class="btn btn-primary" type="submit">Sign in</button>
</form></section></div>`,
      }),
    );
  });

  app.post('/panel/login', PANEL_ROUTE, async (request, reply) => {
    await guard.attempt(request.ip);
    const token = formBody(request).get('token') ?? '';
    const accountId = await sessions.spendLoginLink(token);
    if (accountId === undefined) {
      await guard.failed(request.ip, undefined, 'link_invalid');
      return invalidLink(reply);
    }
    return completeFirstFactor(deps, request, reply, accountId, 'link');
  });

  app.get('/panel/login/code', PANEL_ROUTE, async (request, reply) => {
    const pending = await sessions.secondFactorAccount(readCookie(request, SECOND_FACTOR_COOKIE));
    if (pending === undefined)
      return signInPage(ctx, flash('info', 'Your sign-in expired: start again.'))(request, reply);
    return sendHtml(reply, 200, codePage());
  });

  app.post('/panel/login/code', PANEL_ROUTE, async (request, reply) => {
    const token = readCookie(request, SECOND_FACTOR_COOKIE);
    const pending = await sessions.secondFactorAccount(token);
    if (token === undefined || pending === undefined) {
      return signInPage(ctx, flash('info', 'Your sign-in expired: start again.'))(request, reply);
    }
    await guard.attempt(request.ip, pending.accountId);
    const checked = await twoFactor.verifySignInCode(pending.accountId, formBody(request).get('code') ?? '', {
      actor: 'owner',
      ip: request.ip,
    });
    if (checked.outcome === 'locked') throw secondFactorLocked(checked.lockedUntil, ctx.clock.now());
    if (checked.outcome === 'rejected') {
      return sendHtml(
        reply,
        401,
        codePage(flash('error', wrongCodeMessage(checked, ctx.clock.now(), 'Try the current one.'))),
      );
    }
    const used = checked.value;
    // Spent once: two tabs racing with one code cannot both open a session.
    if ((await sessions.spendSecondFactor(token)) === undefined) {
      return signInPage(ctx, flash('info', 'Your sign-in expired: start again.'))(request, reply);
    }
    setCookie(reply, SECOND_FACTOR_COOKIE, '', 0, deps.secure);
    const session = await sessions.openSession(pending.accountId, request.ip, pending.method, used);
    setCookie(reply, SESSION_COOKIE, session.token, SESSION_TTL_MS / 1000, deps.secure);
    return reply.redirect('/panel', 303);
  });
}

/** Sign-out lives in the signed-in scope: it needs the session's CSRF token. */
export function registerSignOut(app: FastifyInstance, deps: AuthDeps): void {
  app.post('/panel/logout', PANEL_ROUTE, async (request, reply) => {
    const token = readCookie(request, SESSION_COOKIE);
    if (!token) throw new PanelPageError(401, 'Not signed in', 'You are already signed out.');
    await deps.sessions.end(token);
    setCookie(reply, SESSION_COOKIE, '', 0, deps.secure);
    return sendHtml(
      reply,
      200,
      renderPage({
        title: 'Signed out',
        body: `<div class="signin"><section class="card"><h1>Signed out</h1><p>Your session has ended on this device.</p></section></div>`,
      }),
    );
  });
}
