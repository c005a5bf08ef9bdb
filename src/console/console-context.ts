// What every signed-in console page relies on: the operator's session (request.console), CSRF on
// every form, form bodies, the HTML reply with its CSP, and errors as pages; the plumbing shared
// with the owner panel (src/web/http.ts), bound to the console's cookie: Path=/console,
// SameSite=Strict (no other site can send a request with it), HttpOnly, Secure on https.
//
// Contract for page modules (src/console/pages/*.ts, `registerXPages(app, ctx)`): `app` is the
// signed-in scope, so in every handler `request.console` is set and every POST has passed the CSRF
// check (forms carry csrfField(request.console)); read fields with formBody(request); answer with
// sendHtml(reply, status, renderConsolePage({...})).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ConsoleSessions } from '../services/operator/console-sessions.js';
import { escapeHtml } from '../web/html.js';
import {
  checkCsrfToken,
  csrfTokenOf,
  readCookie,
  registerOriginCheck,
  registerPageErrors,
  SITE_ROUTE,
  STATE_CHANGING,
  setSiteCookie,
} from '../web/http.js';
import { renderConsolePage } from './layout.js';
import type { ConsoleSession } from './session.js';

export type { ConsoleSession };

declare module 'fastify' {
  interface FastifyRequest {
    console: ConsoleSession;
  }
}

export const CONSOLE_ROUTE = SITE_ROUTE;
export const CONSOLE_COOKIE = 'gengate_console';

export function setConsoleCookie(
  reply: FastifyReply,
  value: string,
  maxAgeSeconds: number,
  secure: boolean,
): void {
  setSiteCookie(reply, CONSOLE_COOKIE, value, maxAgeSeconds, {
    path: '/console',
    sameSite: 'Strict',
    secure,
  });
}

export const consoleCsrfFor = (sessionToken: string) => csrfTokenOf('gengate-console-csrf', sessionToken);

/** The operator as the audit actor of a console request. */
export const operatorOf = (request: FastifyRequest) => ({ actor: 'operator' as const, ip: request.ip });

export function registerConsoleErrors(scope: FastifyInstance, publicUrl: string): void {
  registerOriginCheck(scope, publicUrl, 'console');
  registerPageErrors(
    scope,
    (request, title, message) => {
      const back = request.console ? '<a class="btn" href="/console">Back to the console</a>' : '';
      const body = `<div class="narrow"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>${back}</div>`;
      return renderConsolePage({ title, session: request.console ?? undefined, body });
    },
    'console',
  );
}

/**
 * preHandler of the signed-in scope: no live session → the sign-in page (401); otherwise sets
 * request.console and refuses a state-changing request without the CSRF token.
 */
export function requireConsoleSession(
  sessions: ConsoleSessions,
  maintenance: () => Promise<boolean>,
  signInPage: (request: FastifyRequest, reply: FastifyReply) => FastifyReply,
) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const token = readCookie(request, CONSOLE_COOKIE);
    if (!token || !(await sessions.valid(token))) return signInPage(request, reply);
    request.console = { csrfToken: consoleCsrfFor(token), maintenance: await maintenance() };
    if (STATE_CHANGING.has(request.method)) checkCsrfToken(request, request.console.csrfToken);
  };
}
