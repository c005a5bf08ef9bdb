// Something made by a form (a new key, a panel link, new codes) travels from the form's answer to
// the page it redirects to in a short-lived cookie (HttpOnly, SameSite=Strict, Path=/console) that
// the page clears as it reads it: shown once, and a reload neither shows it again nor sends the form
// again.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { readCookie, setSiteCookie } from '../web/http.js';

const SHOW_ONCE_SECONDS = 60;

export interface ShowOnceCookie {
  /** Hands a value to the next page. */
  put(reply: FastifyReply, value: string): void;
  /** The value handed over ('' if none), cleared so that it is not shown again. */
  take(request: FastifyRequest, reply: FastifyReply): string;
}

export function showOnceCookie(name: string, secure: boolean): ShowOnceCookie {
  const put = (reply: FastifyReply, value: string) => {
    setSiteCookie(reply, name, value, SHOW_ONCE_SECONDS, { path: '/console', sameSite: 'Strict', secure });
  };
  return {
    put,
    take(request, reply) {
      const value = readCookie(request, name);
      if (!value) return '';
      put(reply, '');
      return value;
    },
  };
}
