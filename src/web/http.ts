// What the owner panel and the operator console share at the HTTP level: cookies, CSRF tokens
// derived from the session, form bodies, the HTML reply with its CSP, the refusal of a form sent
// from another site, and errors shown as pages. Each site binds these to its own cookie path,
// SameSite policy and page frame.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.js';

/** Route options of every site route: outside the API key guard, not in the OpenAPI document. */
export const SITE_ROUTE = { config: { access: 'system' as const }, schema: { hide: true } };

export const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie ?? '';
  const match = new RegExp(`(?:^|;\\s*)${name}=([A-Za-z0-9_-]+)`).exec(header);
  return match?.[1];
}

export interface CookieOptions {
  path: string;
  sameSite: 'Strict' | 'Lax';
  secure: boolean;
}

/** HttpOnly always; Max-Age 0 clears it. Appends to any Set-Cookie already on the reply. */
export function setSiteCookie(
  reply: FastifyReply,
  name: string,
  value: string,
  maxAgeSeconds: number,
  options: CookieOptions,
): void {
  const cookie = `${name}=${value}; Path=${options.path}; HttpOnly; SameSite=${options.sameSite}; Max-Age=${maxAgeSeconds}${options.secure ? '; Secure' : ''}`;
  const existing = reply.getHeader('set-cookie');
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  reply.header('set-cookie', [...list, cookie]);
}

/** Derived from the session token, which only the signed-in browser holds: nothing more to store. */
export function csrfTokenOf(purpose: string, sessionToken: string): string {
  return createHash('sha256').update(`${purpose}\0${sessionToken}`).digest('base64url');
}

/** An error shown as a page (403 CSRF, 429 too many attempts…), not in the API's JSON shape. */
export class PageError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }
}

/** The form fields of a POST (application/x-www-form-urlencoded); empty for anything else. */
export function formBody(request: FastifyRequest): URLSearchParams {
  return request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
}

export function sameToken(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** Refuses (403 page) a state-changing request whose form or header lacks `expected`. */
export function checkCsrfToken(request: FastifyRequest, expected: string | undefined): void {
  const given = formBody(request).get('_csrf') ?? request.headers['x-csrf-token'];
  if (typeof given !== 'string' || !expected || !sameToken(given, expected)) {
    throw new PageError(
      403,
      'Form expired',
      'This form was refused because its security token is missing or wrong. Reload the page and send it again.',
    );
  }
}

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

/** The panel's sign-in page with the Telegram Login Widget: the one page allowed telegram.org's script. */
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
 * Browser forms (urlencoded) are parsed in a site's scope only: the API stays JSON-only. The body
 * becomes URLSearchParams (repeated names kept: read them with getAll).
 */
export function registerFormBodies(scope: FastifyInstance): void {
  scope.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES },
    (_request, body, done) => done(null, new URLSearchParams(String(body))),
  );
}

/**
 * A browser names the page a POST comes from in Origin: one from another site is refused before
 * anything runs. This also covers sign-in forms, which have no session (and so no CSRF token) yet.
 * Requests without Origin (not from a browser) still need the CSRF token on signed-in forms.
 */
export function registerOriginCheck(scope: FastifyInstance, publicUrl: string, siteName: string): void {
  const ownOrigin = new URL(publicUrl).origin;
  scope.addHook('onRequest', async (request) => {
    if (!STATE_CHANGING.has(request.method)) return;
    const origin = request.headers.origin;
    if (origin === undefined) return;
    if (origin === ownOrigin || origin === `${request.protocol}://${request.host}`) return;
    throw new PageError(
      403,
      'Form refused',
      `This form was sent from another site. Open the ${siteName} at its own address and try again.`,
    );
  });
}

/** How a site frames an error page: its title, message and whether a signed-in link back fits. */
export type ErrorPageRenderer = (request: FastifyRequest, title: string, message: string) => string;

/** Errors in a site's scope answer as pages: the status and a message a person can act on. */
export function registerPageErrors(
  scope: FastifyInstance,
  render: ErrorPageRenderer,
  siteName: string,
): void {
  scope.setErrorHandler((error: FastifyError | PageError | AppError, request, reply) => {
    let status = 500;
    let title = 'Something went wrong';
    let message = `The ${siteName} could not complete this request. Try again in a moment.`;
    if (error instanceof PageError) {
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
      request.log.error({ err: error }, `${siteName} request failed`);
    }
    if (error instanceof AppError)
      for (const [k, v] of Object.entries(error.extra.headers ?? {})) reply.header(k, v);
    return sendHtml(reply, status, render(request, title, message));
  });
}
