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
  if (unknown !== undefined)
    throw new AppError(
      'unknown_field',
      `Unknown field: ${unknown}${paramsHint(body, allowed, unknown)}`,
      unknown,
    );
}

/**
 * The commonest mistake on a body that wraps its parameters in `params` (POST /generate): sending
 * them flat. Hinted when the stray field is model_name, or when the body has no `params` at all so
 * every top-level field is a would-be parameter; a stray field beside a `params` object is left as is.
 */
function paramsHint(body: Record<string, unknown>, allowed: readonly string[], field: string): string {
  if (!allowed.includes('params')) return '';
  if (field !== 'model_name' && Object.hasOwn(body, 'params')) return '';
  const name = JSON.stringify(field);
  const inner = field === 'model_name' ? '"model_name": …' : `"model_name": …, ${name}: …`;
  return `. Put the generation parameters inside "params": {"params": {${inner}}}`;
}

export function positiveIntParam(value: string, name: string): number {
  const n = /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n <= 0) throw new AppError('not_found', `${name} not found`);
  return n;
}
