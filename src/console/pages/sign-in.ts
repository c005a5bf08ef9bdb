// Console sign-in: the ADMIN_TOKEN in a form, or a one-time link from `gengate console-link`. A
// link's GET (and HEAD: link previews fetch it) only shows a confirmation; its POST spends it.
// Every attempt counts against the address's limit; a refused one is audited.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { CONSOLE_SESSION_TTL_MS } from '../../services/operator/console-sessions.js';
import { escapeHtml, flash } from '../../web/html.js';
import { formBody, PageError, readCookie, sendHtml } from '../../web/http.js';
import { CONSOLE_COOKIE, CONSOLE_ROUTE, setConsoleCookie } from '../console-context.js';
import { renderConsolePage } from '../layout.js';

function signInBody(message = ''): string {
  return `<div class="signin">${message}<section class="card">
<h1>Operator console</h1>
<p>Sign in with the operator's <code>ADMIN_TOKEN</code>, or open a one-time link made with
<code>gengate console-link</code>.</p>
<form method="post" action="/console/login" class="stack">
<label>Admin token <input type="password" name="admin_token" autocomplete="current-password" required autofocus maxlength="500"></label>
<button class="btn btn-primary" type="submit">Sign in</button>
</form></section></div>`;
}

/** The page every signed-out request to a console page gets (401). */
export function consoleSignInPage(message = '') {
  return (_request: FastifyRequest, reply: FastifyReply) =>
    sendHtml(reply, 401, renderConsolePage({ title: 'Sign in', body: signInBody(message) }));
}

export function registerConsoleSignIn(app: FastifyInstance, ctx: AppContext): void {
  const { sessions } = ctx.operator;
  const secure = ctx.config.publicUrl.startsWith('https:');

  const opened = (reply: FastifyReply, session: { token: string }) => {
    setConsoleCookie(reply, session.token, CONSOLE_SESSION_TTL_MS / 1000, secure);
    return reply.redirect('/console', 303);
  };

  app.get('/console/login', CONSOLE_ROUTE, async (request, reply) => {
    const token = String((request.query as { token?: unknown }).token ?? '');
    if (token === '') return consoleSignInPage()(request, reply);
    if (!(await sessions.peekLink(token)))
      return consoleSignInPage(flash('error', 'This sign-in link was already used or has expired.'))(
        request,
        reply,
      );
    return sendHtml(
      reply,
      200,
      renderConsolePage({
        title: 'Sign in',
        body: `<div class="signin"><section class="card"><h1>Operator console</h1>
<p>Sign in to the operator console with this one-time link.</p>
<form method="post" action="/console/login" class="stack">
<input type="hidden" name="link" value="${escapeHtml(token)}">
<button class="btn btn-primary" type="submit">Sign in</button>
</form></section></div>`,
      }),
    );
  });

  app.post('/console/login', CONSOLE_ROUTE, async (request, reply) => {
    const form = formBody(request);
    const link = form.get('link');
    const adminToken = form.get('admin_token');
    const session = link
      ? await sessions.signIn({ link }, request.ip)
      : await sessions.signIn({ adminToken: adminToken ?? '' }, request.ip);
    if (!session) {
      const reply401 = consoleSignInPage(
        flash(
          'error',
          link ? 'This sign-in link was already used or has expired.' : 'That token is not right.',
        ),
      );
      return reply401(request, reply);
    }
    return opened(reply, session);
  });
}

/** Sign-out lives in the signed-in scope: it needs the session's CSRF token. */
export function registerConsoleSignOut(app: FastifyInstance, ctx: AppContext): void {
  const secure = ctx.config.publicUrl.startsWith('https:');
  app.post('/console/logout', CONSOLE_ROUTE, async (request, reply) => {
    const token = readCookie(request, CONSOLE_COOKIE);
    if (!token) throw new PageError(401, 'Not signed in', 'You are already signed out.');
    await ctx.operator.sessions.end(token, request.ip);
    setConsoleCookie(reply, '', 0, secure);
    return sendHtml(
      reply,
      200,
      renderConsolePage({
        title: 'Signed out',
        body: '<div class="signin"><section class="card"><h1>Signed out</h1><p>The console session has ended.</p><p><a class="btn" href="/console">Sign in again</a></p></section></div>',
      }),
    );
  });
}
