// What the feature pages (keys, money, analytics, tasks) share: their stylesheet and chart script,
// the owner as the audit actor, fixed flash messages chosen by a query code (never text from the
// URL), key labels and the owner's key picker.
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.js';
import { maskApiKey } from '../../domain/keys/api-key.js';
import { ownEntry } from '../../domain/own-entry.js';
import type { Actor } from '../../services/accounts.js';
import type { ApiKeyRow } from '../../storage/repositories/keys.js';
import { escapeHtml, flash } from '../../web/html.js';

/** The pages' own stylesheet, shared with the console (src/web/assets/pages.css). */
export const PAGES_CSS = '<link rel="stylesheet" href="/panel/assets/pages.css">';

export const ownerActor = (request: FastifyRequest): Actor => ({ actor: 'owner', ip: request.ip });

/** The messages a redirect after a form may ask for, by code. */
const DONE: Record<string, string> = {
  created: 'Key created.',
  renamed: 'Name saved.',
  restricted: 'Restrictions saved. The API applies them within a second.',
  limited: 'Limits saved. The API applies them within a second.',
  low_balance: 'Low-balance notice saved.',
  deleted: 'Key deleted.',
  transferred: 'Transfer done: both balances are updated.',
  redeemed: 'Code redeemed: the amount is on the key.',
  redelivered: 'Webhook queued for delivery again.',
};

export function doneFlash(code: unknown): string {
  const message = typeof code === 'string' ? ownEntry(DONE, code) : undefined;
  return message ? flash('ok', message) : '';
}

export function keyLabel(key: Pick<ApiKeyRow, 'id' | 'name'>): string {
  return key.name ? `${key.name} (#${key.id})` : `Key #${key.id}`;
}

export function maskedKey(key: Pick<ApiKeyRow, 'key_prefix' | 'key_last4'>): string {
  return maskApiKey(key.key_prefix, key.key_last4);
}

export function keyOptions(keys: ApiKeyRow[], selected: number | undefined, blank = ''): string {
  const first = blank ? `<option value="">${escapeHtml(blank)}</option>` : '';
  return (
    first +
    keys
      .map(
        (k) =>
          `<option value="${k.id}"${k.id === selected ? ' selected' : ''}>${escapeHtml(keyLabel(k))}</option>`,
      )
      .join('')
  );
}

/** A positive id from a path or form; anything else is simply not found. */
export function idParam(value: string | null | undefined, what = 'Key'): number {
  const n = value && /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n <= 0) throw new AppError('not_found', `${what} not found`);
  return n;
}

/** A single query value (the first when repeated). */
export function one(value: unknown): string | undefined {
  if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : undefined;
  return typeof value === 'string' ? value : undefined;
}
