// Ark's error answers → our outcomes. Ark sends `{error: {code, message}}` with a code that says more
// than the HTTP status: several 429 codes are billing (QuotaExceeded, SetLimitExceeded) or capacity
// (ServerOverloaded), not our rate limit, so the code decides and the status is only the fallback.
import { describeAnswer, retryAfterMs, type UpstreamResponse } from '../http/upstream-http.js';
import type { FailureKind, ProviderFailure } from '../task-provider.js';

export interface ArkErrorBody {
  code?: string;
  message?: string;
}

/** The `error` object of an Ark answer or task, when there is one. */
export function arkError(json: unknown): ArkErrorBody | undefined {
  const error = (json as { error?: unknown } | undefined)?.error;
  if (!error || typeof error !== 'object') return undefined;
  const { code, message } = error as Record<string, unknown>;
  return {
    code: typeof code === 'string' ? code : undefined,
    message: typeof message === 'string' ? message : undefined,
  };
}

export type ErrorClass = { kind: 'busy' } | { kind: FailureKind };

/** The kind of an Ark error code; undefined when the code is not one we know. */
export function kindOfCode(code: string | undefined): ErrorClass | undefined {
  if (!code) return undefined;
  // SensitiveContentDetected(.SevereViolation/.Violence), Input{Text,Image,Video,Audio}…, Output{Image,Video,Audio}…
  if (/SensitiveContent/i.test(code)) return { kind: 'rejected' };
  if (code.startsWith('RateLimitExceeded')) return { kind: 'busy' };
  if (
    code === 'AccountOverdueError' ||
    code.startsWith('QuotaExceeded') ||
    code.startsWith('SetLimitExceeded')
  )
    return { kind: 'billing' };
  if (code === 'AuthenticationError' || code.startsWith('AccessDenied')) return { kind: 'auth' };
  if (code.startsWith('MissingParameter') || code.startsWith('InvalidParameter')) return { kind: 'params' };
  if (
    code === 'ServerOverloaded' ||
    code.startsWith('InternalServiceError') ||
    code === 'InvalidEndpoint.ClosedEndpoint'
  )
    return { kind: 'overload' };
  // InvalidEndpoint(OrModel).NotFound, ModelNotOpen: the route names a model this account cannot use.
  if (code.startsWith('InvalidEndpoint') || code === 'ModelNotOpen') return { kind: 'upstream' };
  return undefined;
}

function kindOfStatus(status: number): ErrorClass {
  if (status === 429) return { kind: 'busy' };
  if (status === 401) return { kind: 'auth' };
  if (status === 400) return { kind: 'params' };
  if (status >= 500) return { kind: 'overload' };
  return { kind: 'upstream' };
}

export type SubmitRefusal =
  | { status: 'busy'; retryAfterMs?: number }
  | { status: 'failed'; failure: ProviderFailure };

/** A non-2xx answer to a create call: busy (nothing started) or a failure kind. */
export function refusal(response: UpstreamResponse): SubmitRefusal {
  const error = arkError(response.json);
  const found = kindOfCode(error?.code) ?? kindOfStatus(response.status);
  if (found.kind === 'busy') return { status: 'busy', retryAfterMs: retryAfterMs(response) };
  // The client never sees Ark's text (it may quote the request); `params` gets the generic message.
  return { status: 'failed', failure: { kind: found.kind, detail: describeAnswer(response) } };
}

/** A task that Ark reports as failed: its error code decides the kind. */
export function taskFailure(error: ArkErrorBody | undefined, detail: string): ProviderFailure {
  const found = kindOfCode(error?.code);
  // A task can't be "busy" once it ran: a rate limit inside a failed task is an upstream failure.
  const kind = !found || found.kind === 'busy' ? 'upstream' : found.kind;
  return { kind, detail };
}
