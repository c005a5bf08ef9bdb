// A fal error answer → what it means for us. fal answers `{"detail": [{loc, msg, type, …}]}` for
// model and validation errors (or `{"detail": "text"}` for platform errors such as a locked
// account), plus the X-Fal-Retryable header. The body's `type` decides before the HTTP status.
import { describeAnswer, header, retryAfterMs, type UpstreamResponse } from '../http/upstream-http.js';
import type { ProviderFailure } from '../task-provider.js';

export interface FalErrorItem {
  loc?: unknown[];
  msg?: string;
  type?: string;
}

export type FalErrorMeaning =
  | { status: 'busy'; retryAfterMs?: number }
  | { status: 'failed'; failure: ProviderFailure };

/** Error types of fal's model APIs that mean "try later / elsewhere", not "your input is wrong". */
const OVERLOAD_TYPES = new Set([
  'downstream_service_unavailable',
  'generation_timeout',
  'runner_unavailable',
]);
const UPSTREAM_TYPES = new Set(['internal_server_error', 'downstream_service_error']);

export function errorItems(json: unknown): FalErrorItem[] {
  const detail = (json as { detail?: unknown } | undefined)?.detail;
  if (Array.isArray(detail))
    return detail.filter((d): d is FalErrorItem => typeof d === 'object' && d !== null);
  return [];
}

function detailText(json: unknown): string {
  const detail = (json as { detail?: unknown } | undefined)?.detail;
  return typeof detail === 'string' ? detail : '';
}

/** "Parameter validation failed: duration: …" — fal's own field name and message, bounded. */
function paramsMessage(items: FalErrorItem[]): string | undefined {
  const item = items.find((i) => i.msg);
  if (!item?.msg) return undefined;
  const field = Array.isArray(item.loc)
    ? item.loc
        .filter((part) => part !== 'body' && (typeof part === 'string' || typeof part === 'number'))
        .join('.')
    : '';
  const msg = item.msg.replace(/[\r\n\t]+/g, ' ').slice(0, 160);
  return `Parameter validation failed: ${field ? `${field}: ` : ''}${msg}`;
}

const failed = (failure: ProviderFailure): FalErrorMeaning => ({ status: 'failed', failure });

/** Maps a non-2xx fal answer (submit, or a COMPLETED request's result). */
export function mapFalError(response: UpstreamResponse): FalErrorMeaning {
  const detail = describeAnswer(response);
  const items = errorItems(response.json);
  const types = new Set(items.map((i) => i.type).filter((t): t is string => typeof t === 'string'));
  const text = `${detailText(response.json)} ${response.text.slice(0, 500)}`.toLowerCase();
  if (types.has('content_policy_violation')) return failed({ kind: 'rejected', detail });
  if (response.status === 401) return failed({ kind: 'auth', detail });
  // A locked account ("User is locked. Reason: Exhausted balance…", or an admin lock) refuses every
  // billable call with 403: the operator has to top up or talk to fal.
  if (response.status === 402 || /balance|locked|top.?up|billing|payment/.test(text))
    return failed({ kind: 'billing', detail });
  if (response.status === 403) return failed({ kind: 'auth', detail });
  if (response.status === 429) return { status: 'busy', retryAfterMs: retryAfterMs(response) };
  for (const type of types) if (OVERLOAD_TYPES.has(type)) return failed({ kind: 'overload', detail });
  for (const type of types) if (UPSTREAM_TYPES.has(type)) return failed({ kind: 'upstream', detail });
  // fal says the same request may succeed later: capacity, not the input.
  if (response.status >= 500 || isRetryable(response)) return failed({ kind: 'overload', detail });
  if (response.status === 422 || response.status === 400)
    return failed({ kind: 'params', message: paramsMessage(items), detail });
  // 404 (no such endpoint) and anything unexplained: the next route may do better.
  return failed({ kind: 'upstream', detail });
}

/** fal's hint that repeating the request could succeed (X-Fal-Retryable: true). */
export function isRetryable(response: UpstreamResponse): boolean {
  return header(response, 'x-fal-retryable')?.toLowerCase() === 'true';
}
