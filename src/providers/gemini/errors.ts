// Gemini API answers → our outcomes. Errors come as {error: {code, message, status, details}}, and
// the kind is decided from `status` and `details`, not the HTTP code alone: a bad API key is a 400
// INVALID_ARGUMENT with reason API_KEY_INVALID, and "billing not enabled" is a 400 FAILED_PRECONDITION.
import { describeAnswer, retryAfterMs, type UpstreamResponse } from '../http/upstream-http.js';
import type { ProviderFailure } from '../task-provider.js';

export interface GoogleError {
  code?: number;
  message?: string;
  status?: string;
  details?: Array<{ '@type'?: string; reason?: string; retryDelay?: string }>;
}

export type ErrorOutcome =
  | { status: 'busy'; retryAfterMs?: number }
  | { status: 'failed'; failure: ProviderFailure };

const PARAMS_PREFIX = 'Parameter validation failed: ';
const MAX_MESSAGE = 200;

/** The upstream's words for a parameter problem, bounded and without anything shaped like a Google key. */
function clientMessage(message: string | undefined): string | undefined {
  const clean = (message ?? '').replace(/AIza[0-9A-Za-z_-]{10,}/g, '[redacted]').trim();
  return clean ? `${PARAMS_PREFIX}${clean.slice(0, MAX_MESSAGE)}` : undefined;
}

function googleError(response: UpstreamResponse): GoogleError {
  const error = response.json?.error;
  if (Array.isArray(response.json) && response.json[0]?.error) return response.json[0].error as GoogleError;
  return typeof error === 'object' && error !== null ? (error as GoogleError) : {};
}

/** RetryInfo.retryDelay ("30s", "1.5s"), which Google sends with RESOURCE_EXHAUSTED instead of a header. */
function retryDelayMs(error: GoogleError): number | undefined {
  for (const detail of error.details ?? []) {
    const match = /^(\d+(?:\.\d+)?)s$/.exec(detail.retryDelay ?? '');
    if (match) return Math.round(Number(match[1]) * 1000);
  }
  return undefined;
}

function isKeyProblem(error: GoogleError): boolean {
  return (
    (error.details ?? []).some(
      (d) => d.reason === 'API_KEY_INVALID' || d.reason === 'API_KEY_SERVICE_BLOCKED',
    ) || /api key/i.test(error.message ?? '')
  );
}

const mentionsBilling = (error: GoogleError) => /billing|prepay|credit|payment/i.test(error.message ?? '');

/** A non-2xx answer to a submit (or to check): what it means for the task. */
export function mapErrorAnswer(response: UpstreamResponse): ErrorOutcome {
  const error = googleError(response);
  const detail = describeAnswer(response);
  const status = error.status ?? '';
  const failed = (failure: ProviderFailure): ErrorOutcome => ({
    status: 'failed',
    failure: { ...failure, detail },
  });
  if (status === 'RESOURCE_EXHAUSTED' || response.status === 429)
    return { status: 'busy', retryAfterMs: retryAfterMs(response) ?? retryDelayMs(error) };
  if (isKeyProblem(error) || status === 'UNAUTHENTICATED' || response.status === 401)
    return failed({ kind: 'auth' });
  if (status === 'FAILED_PRECONDITION' || mentionsBilling(error)) return failed({ kind: 'billing' });
  if (status === 'PERMISSION_DENIED' || response.status === 403) return failed({ kind: 'auth' });
  if (status === 'INVALID_ARGUMENT' || status === 'OUT_OF_RANGE' || response.status === 400)
    return failed({ kind: 'params', message: clientMessage(error.message) });
  if (
    status === 'UNAVAILABLE' ||
    status === 'INTERNAL' ||
    status === 'DEADLINE_EXCEEDED' ||
    response.status === 500 ||
    response.status === 503 ||
    response.status === 504
  )
    return failed({ kind: 'overload' });
  return failed({ kind: 'upstream' });
}

/** google.rpc.Code numbers, as a finished operation's `error.code` carries them. */
const RPC = {
  CANCELLED: 1,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

const SAFETY_WORDS = /safety|responsible ai|usage guidelines|policy|blocked|sensitive|celebrity|filtered/i;

/**
 * A finished operation's error. A resource shortage after the job started is `busy` (the job is
 * over, so submitting again is safe); a safety refusal reads as one in the message.
 */
export function mapOperationError(
  error: GoogleError,
): { status: 'busy' } | { status: 'failed'; failure: ProviderFailure } {
  const detail = `operation error: ${JSON.stringify(error).slice(0, 2000)}`;
  const failed = (failure: ProviderFailure) => ({
    status: 'failed' as const,
    failure: { ...failure, detail },
  });
  if (SAFETY_WORDS.test(error.message ?? '')) return failed({ kind: 'rejected' });
  switch (error.code) {
    case RPC.RESOURCE_EXHAUSTED:
      return { status: 'busy' };
    case RPC.INVALID_ARGUMENT:
      return failed({ kind: 'params', message: clientMessage(error.message) });
    case RPC.FAILED_PRECONDITION:
      return failed({ kind: 'billing' });
    case RPC.PERMISSION_DENIED:
    case RPC.UNAUTHENTICATED:
      return failed({ kind: 'auth' });
    case RPC.DEADLINE_EXCEEDED:
    case RPC.INTERNAL:
    case RPC.UNAVAILABLE:
      return failed({ kind: 'overload' });
    default:
      return failed({ kind: 'upstream' });
  }
}
