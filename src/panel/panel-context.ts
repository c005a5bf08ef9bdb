// What every signed-in panel page relies on: the session (request.panel), CSRF, form bodies, the
// HTML reply with its CSP, and errors shown as friendly pages. The plumbing is shared with the
// operator console (src/web/http.ts); this file binds it to the panel's cookies and session.
//
// Contract for page modules (src/panel/pages/*.ts, `registerXPages(app, ctx)`): `app` is the
// signed-in scope, so in every handler `request.panel` is set; every POST/PUT/PATCH/DELETE there has
// already passed checkCsrf (forms carry csrfField(request.panel)); read form fields with
// formBody(request); answer with sendHtml(reply, 200, renderPage({...})).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { MaintenanceService } from '../services/maintenance.js';
import { escapeHtml } from '../web/html.js';
import {
  checkCsrfToken,
  csrfTokenOf,
  PageError,
  readCookie,
  registerPageErrors,
  registerOriginCheck as registerSiteOriginCheck,
  SITE_ROUTE,
  STATE_CHANGING,
  setSiteCookie,
} from '../web/http.js';
import { renderPage } from './layout.js';
import type { PanelSession } from './session.js';

export {
  formBody,
  readCookie,
  registerFormBodies as registerPanelBodies,
  STATE_CHANGING,
  sendHtml,
} from '../web/http.js';

export type { PanelSession };

declare module 'fastify' {
  interface FastifyRequest {
    panel: PanelSession;
  }
}

/** Route options of every panel route: outside the API key guard, not in the OpenAPI document. */
export const PANEL_ROUTE = SITE_ROUTE;

export const SESSION_COOKIE = 'gengate_session';
/** Between the first factor and the TOTP code: a short-lived token that opens nothing else. */
export const SECOND_FACTOR_COOKIE = 'gengate_2fa';

/**
 * HttpOnly, SameSite=Lax (a sign-in link opened from a messenger must arrive signed in), Path=/panel;
 * Secure when PUBLIC_URL is https. Max-Age 0 clears it.
 */
export function setCookie(
  reply: FastifyReply,
  name: string,
  value: string,
  maxAgeSeconds: number,
  secure: boolean,
): void {
  setSiteCookie(reply, name, value, maxAgeSeconds, { path: '/panel', sameSite: 'Lax', secure });
}

export function csrfTokenFor(sessionToken: string): string {
  return csrfTokenOf('gengate-panel-csrf', sessionToken);
}

/** An error shown as a panel page. */
export const PanelPageError = PageError;

/** Refuses (403 page) a state-changing request without the session's CSRF token. */
export function checkCsrf(request: FastifyRequest): void {
  checkCsrfToken(request, request.panel?.csrfToken);
}

export function registerOriginCheck(scope: FastifyInstance, publicUrl: string): void {
  registerSiteOriginCheck(scope, publicUrl, 'panel');
}

/** Errors in the panel's scope answer as panel pages. */
export function registerPanelErrors(scope: FastifyInstance): void {
  registerPageErrors(
    scope,
    (request, title, message) => {
      const back = request.panel ? '<a class="btn" href="/panel">Back to the overview</a>' : '';
      const body = `<div class="narrow"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>${back}</div>`;
      return renderPage({ title, session: request.panel ?? undefined, body });
    },
    'panel',
  );
}

/** What the session hook needs: the owner behind a session token. */
export interface SessionLookup {
  /** The account and its messaging id, or undefined for no valid session. */
  ownerOf(session: string | undefined): Promise<{ accountId: number; messagingId: number } | undefined>;
}

/**
 * preHandler of the signed-in scope: no valid session → the sign-in page (401); otherwise sets
 * request.panel and refuses a state-changing request without the CSRF token.
 */
export function requirePanelSession(
  maintenance: Pick<MaintenanceService, 'isEnabled'>,
  sessions: SessionLookup,
  signInPage: (request: FastifyRequest, reply: FastifyReply) => FastifyReply,
) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const token = readCookie(request, SESSION_COOKIE);
    const owner = token ? await sessions.ownerOf(token) : undefined;
    if (!token || !owner) return signInPage(request, reply);
    request.panel = {
      accountId: owner.accountId,
      messagingId: owner.messagingId,
      csrfToken: csrfTokenFor(token),
      maintenance: await maintenance.isEnabled(),
    };
    if (STATE_CHANGING.has(request.method)) checkCsrf(request);
  };
}
