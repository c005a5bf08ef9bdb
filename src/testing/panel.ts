// Test helpers for the panel's route and browser tests: sign in through the real pages, read the
// CSRF token off a page, send forms the way a browser does.
import { expect } from 'vitest';
import { ADMIN_TOKEN, type TestApp } from './app.js';

export const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}` };

/** A fresh one-time link from the admin API, as path + query. */
export async function loginLink(app: TestApp, messagingId: number): Promise<string> {
  const res = await app.http.inject({
    method: 'POST',
    url: `/admin/accounts/${messagingId}/login-link`,
    headers: adminHeaders,
  });
  expect(res.statusCode).toBe(201);
  const url = new URL(res.json().url);
  return url.pathname + url.search;
}

export const tokenOf = (link: string) => new URL(link, 'http://x').searchParams.get('token') ?? '';

/** The `name=value` part of a Set-Cookie for `name`, from a response's headers. */
export function cookieFrom(headers: Record<string, unknown>, name: string): string | undefined {
  const raw = headers['set-cookie'];
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [String(raw)];
  const found = list.find((c: string) => c.startsWith(`${name}=`));
  return found?.split(';')[0];
}

export function setCookieLine(headers: Record<string, unknown>, name: string): string {
  const raw = headers['set-cookie'];
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [String(raw)];
  return list.find((c: string) => c.startsWith(`${name}=`)) ?? '';
}

export function form(fields: Record<string, string>): { payload: string; headers: Record<string, string> } {
  return {
    payload: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  };
}

/** The CSRF token of a signed-in page. */
export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('no CSRF field on the page');
  return match[1];
}

/** POSTs a form as a browser does, with the session cookie. */
export function postForm(
  app: TestApp,
  url: string,
  cookie: string,
  fields: Record<string, string>,
  ip?: string,
) {
  const { payload, headers } = form(fields);
  return app.http.inject({
    method: 'POST',
    url,
    payload,
    headers: { ...headers, cookie },
    remoteAddress: ip,
  });
}

/** Signs in with a fresh link (GET the page, POST its form); returns the session cookie. */
export async function signIn(app: TestApp, messagingId: number): Promise<string> {
  const link = await loginLink(app, messagingId);
  const page = await app.http.inject({ method: 'GET', url: link });
  expect(page.statusCode).toBe(200);
  const { payload, headers } = form({ token: tokenOf(link) });
  const res = await app.http.inject({ method: 'POST', url: '/panel/login', payload, headers });
  expect(res.statusCode).toBe(303);
  expect(res.headers.location).toBe('/panel');
  const cookie = cookieFrom(res.headers, 'gengate_session');
  if (!cookie) throw new Error('no session cookie');
  return cookie;
}

/** GET a signed-in page; the test fails unless it answers 200. */
export async function getPage(app: TestApp, url: string, cookie: string): Promise<string> {
  const res = await app.http.inject({ method: 'GET', url, headers: { cookie } });
  expect(res.statusCode, `${url}: ${res.body.slice(0, 300)}`).toBe(200);
  return res.body;
}
