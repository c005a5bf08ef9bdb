// Test helpers for the operator console: sign in through the real form, read a page's CSRF token
// (csrfOf of testing/panel.ts works on console pages too), send its forms.
import { expect } from 'vitest';
import { ADMIN_TOKEN, type TestApp } from './app.js';
import { cookieFrom, form } from './panel.js';

/** Signs in with the admin token; returns the console session cookie (name=value). */
export async function consoleSignIn(app: TestApp, ip = '127.0.0.1'): Promise<string> {
  const { payload, headers } = form({ admin_token: ADMIN_TOKEN });
  const res = await app.http.inject({
    method: 'POST',
    url: '/console/login',
    payload,
    headers,
    remoteAddress: ip,
  });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(303);
  expect(res.headers.location).toBe('/console');
  const cookie = cookieFrom(res.headers, 'gengate_console');
  if (!cookie) throw new Error('no console cookie');
  return cookie;
}
