// What the console pages share: fixed flash messages chosen by a query code (never text from the
// URL), a single query value, and running a change so that a refused one shows its reason on the
// page instead of an error page.
import type { FastifyReply } from 'fastify';
import { AppError } from '../../domain/errors.js';
import { ownEntry } from '../../domain/own-entry.js';
import { flash } from '../../web/html.js';

const DONE: Record<string, string> = {
  created: 'Account created.',
  coefficient: 'Coefficient saved.',
  restricted: 'Key restrictions saved.',
  deleted: 'Key deleted.',
  key: 'Key created.',
  panel_link: 'Panel sign-in link made.',
  topup: 'Top-up done: the balance is updated.',
  adjusted: 'Adjustment done: the balance is updated.',
  model: 'Model saved.',
  maintenance_on: 'Maintenance is on.',
  maintenance_off: 'Maintenance is off.',
  redelivered: 'Webhook queued for delivery again.',
  refunded: 'Refund made: the key is debited; its state is on the row.',
  codes: 'Codes created.',
};

export function doneFlash(code: unknown): string {
  // Own entries only: `?done=__proto__` names no message (an inherited property is not one).
  const message = typeof code === 'string' ? ownEntry(DONE, code) : undefined;
  return message ? flash('ok', message) : '';
}

export function one(value: unknown): string | undefined {
  if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/**
 * Runs a change: done → a redirect to `then` (so a reload never sends the form again); refused
 * (AppError) → `refused` renders the page again with the reason and the error's status. Nothing
 * changed in that case: every change is one use case that checks its input first.
 */
export async function change(
  reply: FastifyReply,
  work: () => Promise<unknown>,
  then: string,
  refused: (message: string, status: number) => Promise<FastifyReply> | FastifyReply,
): Promise<FastifyReply> {
  try {
    await work();
  } catch (error) {
    if (!(error instanceof AppError) || error.status >= 500) throw error;
    return refused(flash('error', error.message), error.status);
  }
  return reply.redirect(then, 303);
}

/** A positive id from a path; anything else is simply not found. */
export function idParam(value: string | undefined, what: string): number {
  const n = value && /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n <= 0) throw new AppError('not_found', `${what} not found`);
  return n;
}
