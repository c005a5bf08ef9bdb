// Small helpers for reading JSON bodies into the one error shape.
import { AppError } from '../domain/errors.js';

export function bodyObject(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body))
    throw new AppError('invalid_json', 'Request body must be a JSON object');
  return body as Record<string, unknown>;
}

/** Native endpoints reject unknown top-level fields, so a typo never passes silently. */
export function rejectUnknownFields(body: Record<string, unknown>, allowed: readonly string[]): void {
  const unknown = Object.keys(body).find((field) => !allowed.includes(field));
  if (unknown !== undefined) throw new AppError('unknown_field', `Unknown field: ${unknown}`, unknown);
}

export function positiveIntParam(value: string, name: string): number {
  const n = /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n <= 0) throw new AppError('not_found', `${name} not found`);
  return n;
}
