// What every signed-in panel page relies on: the session (request.panel), CSRF, form bodies, the
// HTML reply with its CSP, and errors shown as friendly pages.
//
// Contract for page modules (src/panel/pages/*.ts, `registerXPages(app, ctx)`): `app` is the
// signed-in scope, so in every handler `request.panel` is set; every POST/PUT/PATCH/DELETE there has
// already passed checkCsrf (forms carry csrfField(request.panel)); read form fields with
// formBody(request); answer with sendHtml(reply, 200, renderPage({...})).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { AppError } from '../domain/errors.js';
import { escapeHtml } from './html.js';
import { renderPage } from './layout.js';

export interface PanelSession {
  accountId: number;
  messagingId: number;
  /** The session's CSRF token: put it in every form with csrfField(). */
  csrfToken: string;
  /** Maintenance mode is on: the layout shows a banner. */
  maintenance: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    panel: PanelSession;
  }
}

/** Route options of every panel route: outside the API key guard, not in the OpenAPI document. */
export const PANEL_ROUTE = { config: { access: 'system' as const }, schema: { hide: true } };

export const SESSION_COOKIE = 'gengate_session';
/** Between the first factor and the TOTP code: a short-lived token that opens nothing else. */
export const SECOND_FACTOR_COOKIE = 'gengate_2fa';

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie ?? '';
  const match = new RegExp(`(?:^|;\\s*)${name}=([A-Za-z0-9_-]+)`).exec(header);
  return match?.[1];
}

/** HttpOnly, SameSite=Lax, Path=/panel; Secure when PUBLIC_URL is https. Max-Age 0 clears it. */
export function setCookie(
  reply: FastifyReply,
  name: string,
  value: string,
  maxAgeSeconds: number,
  secure: boolean,
): void {
  const cookie = `${name}=${value}; Path=/panel; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
  const existing = reply.getHeader('set-cookie');
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  reply.header('set-cookie', [...list, cookie]);
}

/** Derived from the session token, which only the owner's browser holds: nothing more to store. */
export function csrfTokenFor(sessionToken: string): string {
  return createHash('sha256').update(`gengate-panel-csrf\0${sessionToken}`).digest('base64url');
}

/** An error shown as a page (403 CSRF, 429 too many attempts…), not in the API's JSON shape. */
export class PanelPageError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }
}

/** The form fields of a panel POST (application/x-www-form-urlencoded); empty for anything else. */
export function formBody(request: FastifyRequest): URLSearchParams {
  return request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
}

function sameToken(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** Refuses (403 page) a state-changing request without the session's CSRF token. */
export function checkCsrf(request: FastifyRequest): void {
  const given = formBody(request).get('_csrf') ?? request.headers['x-csrf-token'];
  if (typeof given !== 'string' || !request.panel || !sameToken(given, request.panel.csrfToken)) {
    throw new PanelPageError(
      403,
      'Form expired',
      'This form was refused because its security token is missing or wrong. Reload the page and send it again.',
    );
  }
}

export const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** The sign-in page with the Telegram Login Widget: the one page allowed telegram.org's script. */
const CSP_WITH_TELEGRAM = CSP.replace("script-src 'self'", "script-src 'self' https://telegram.org").concat(
  '; frame-src https://oauth.telegram.org',
);

export function sendHtml(
  reply: FastifyReply,
  status: number,
  html: string,
  options: { telegramWidget?: boolean } = {},
): FastifyReply {
  return reply
    .code(status)
    .header('Cache-Control', 'no-store')
    .header('Content-Security-Policy', options.telegramWidget ? CSP_WITH_TELEGRAM : CSP)
    .header('Referrer-Policy', 'same-origin')
    .header('X-Content-Type-Options', 'nosniff')
    .type('text/html; charset=utf-8')
    .send(html);
}

const FORM_LIMIT_BYTES = 64 * 1024;

/**
 * Browser forms (urlencoded) are parsed in the panel's scope only: the API stays JSON-only. The body
 * becomes URLSearchParams (repeated names kept: read them with getAll).
 */
export function registerPanelBodies(scope: FastifyInstance): void {
  scope.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES },
    (_request, body, done) => done(null, new URLSearchParams(String(body))),
  );
}

/**
 * A browser names the page a POST comes from in Origin: one from another site is refused before
 * anything runs. This also covers the sign-in forms, which have no session (and so no CSRF token)
 * yet: another site cannot sign a visitor in to an account of its choosing. Requests without
 * Origin (not from a browser) still need the CSRF token on signed-in forms.
 */
export function registerOriginCheck(scope: FastifyInstance, publicUrl: string): void {
  const ownOrigin = new URL(publicUrl).origin;
  scope.addHook('onRequest', async (request) => {
    if (!STATE_CHANGING.has(request.method)) return;
    const origin = request.headers.origin;
    if (origin === undefined) return;
    if (origin === ownOrigin || origin === `${request.protocol}://${request.host}`) return;
    throw new PanelPageError(
      403,
      'Form refused',
      'This form was sent from another site. Open the panel at its own address and try again.',
    );
  });
}

/** Errors in the panel's scope answer as pages: the status and a message a person can act on. */
export function registerPanelErrors(scope: FastifyInstance): void {
  scope.setErrorHandler((error: FastifyError | PanelPageError | AppError, request, reply) => {
    let status = 500;
    let title = 'Something went wrong';
    let message = 'The panel could not complete this request. Try again in a moment.';
    if (error instanceof PanelPageError) {
      ({ status, title, message } = error);
    } else if (error instanceof AppError) {
      status = error.status;
      title = status === 404 ? 'Not found' : 'Request refused';
      message = error.message;
    } else if (
      typeof (error as FastifyError).statusCode === 'number' &&
      (error as FastifyError).statusCode! < 500
    ) {
      status = (error as FastifyError).statusCode!;
      title = 'Request refused';
      message = error.message;
    } else {
      request.log.error({ err: error }, 'panel request failed');
    }
    const back = request.panel ? '<a class="btn" href="/panel">Back to the overview</a>' : '';
    const body = `<div class="narrow"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>${back}</div>`;
    if (error instanceof AppError)
      for (const [k, v] of Object.entries(error.extra.headers ?? {})) reply.header(k, v);
    return sendHtml(reply, status, renderPage({ title, session: request.panel ?? undefined, body }));
  });
}

/** What the session hook needs: the account behind a session token, and the page for strangers. */
export interface SessionLookup {
  accountOf(session: string | undefined): Promise<number | undefined>;
}

/**
 * preHandler of the signed-in scope: no valid session → the sign-in page (401); otherwise sets
 * request.panel and refuses a state-changing request without the CSRF token.
 */
export function requirePanelSession(
  ctx: Pick<AppContext, 'storage' | 'maintenance'>,
  sessions: SessionLookup,
  signInPage: (request: FastifyRequest, reply: FastifyReply) => FastifyReply,
) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const token = readCookie(request, SESSION_COOKIE);
    const accountId = await sessions.accountOf(token);
    const account = accountId === undefined ? undefined : await ctx.storage.accounts.byId(accountId);
    if (!token || accountId === undefined || !account) return signInPage(request, reply);
    request.panel = {
      accountId,
      messagingId: Number(account.messaging_id),
      csrfToken: csrfTokenFor(token),
      maintenance: await ctx.maintenance.isEnabled(),
    };
    if (STATE_CHANGING.has(request.method)) checkCsrf(request);
  };
}
