// A Kling answer → what it means for us. Kling puts the reason in the body's `code`, and the HTTP
// status alone misleads: billing problems (1100–1102) come as HTTP 429 like the rate limits
// (1302/1303), so the code decides and the status is only the fallback for a body without one.
import { describeAnswer, retryAfterMs, type UpstreamResponse } from '../http/upstream-http.js';
import type { ProviderFailure } from '../task-provider.js';

export type KlingProblem =
  | { status: 'busy'; retryAfterMs?: number }
  | { status: 'failed'; failure: ProviderFailure };

const MAX_PARAMS_MESSAGE = 200;

/** Kling's numeric body code, or undefined when the body has none. */
export function klingCode(response: UpstreamResponse): number | undefined {
  const code = response.json?.code;
  if (typeof code === 'number') return code;
  if (typeof code === 'string' && /^\d+$/.test(code)) return Number(code);
  return undefined;
}

/**
 * Kling's own message for invalid parameters, kept short for the client. It describes our request
 * body (never the Authorization header), but a message that looks like it quotes a token is dropped.
 */
function paramsMessage(response: UpstreamResponse): string {
  const message = response.json?.message;
  if (typeof message !== 'string' || !message.trim() || /bearer|eyJ[A-Za-z0-9_-]{10,}/i.test(message))
    return 'Parameter validation failed: the provider rejected the parameters';
  return `Parameter validation failed: ${message.trim().slice(0, MAX_PARAMS_MESSAGE)}`;
}

/** Maps a Kling answer that is not a success (code ≠ 0 or a non-2xx status). */
export function klingProblem(response: UpstreamResponse, now = Date.now()): KlingProblem {
  const detail = describeAnswer(response);
  const failed = (kind: ProviderFailure['kind'], message?: string): KlingProblem => ({
    status: 'failed',
    failure: { kind, detail, ...(message ? { message } : {}) },
  });
  const code = klingCode(response);
  if (code !== undefined) {
    // 1000 authentication failed, 1001 empty, 1002 invalid, 1003 not yet valid, 1004 expired;
    // 1103 no permission for the resource; 1304 the caller's IP is not on the account's allow list.
    if ((code >= 1000 && code <= 1004) || code === 1103 || code === 1304) return failed('auth');
    // 1100 account exception, 1101 in arrears, 1102 resource pack used up (all sent as HTTP 429).
    if (code >= 1100 && code <= 1102) return failed('billing');
    if (code === 1200 || code === 1201) return failed('params', paramsMessage(response));
    // 1202 invalid method, 1203 resource (e.g. model name) not found: our configuration, not the
    // client's request, so another route may still serve the task.
    if (code === 1202 || code === 1203) return failed('upstream');
    if (code === 1300 || code === 1301) return failed('rejected');
    // 1302 rate limit, 1303 concurrency (parallel tasks over the resource pack's limit).
    if (code === 1302 || code === 1303) return { status: 'busy', retryAfterMs: retryAfterMs(response, now) };
    // 5000 internal error, 5001 unavailable (maintenance), 5002 internal timeout.
    if (code >= 5000 && code <= 5002) return failed('overload');
  }
  const status = response.status;
  if (status === 401 || status === 403) return failed('auth');
  if (status === 429) return { status: 'busy', retryAfterMs: retryAfterMs(response, now) };
  if (status >= 500) return failed('overload');
  if (status === 400 || status === 422) return failed('params', paramsMessage(response));
  return failed('upstream');
}

/** True when Kling answered success: HTTP 2xx with code 0. */
export function isKlingSuccess(response: UpstreamResponse): boolean {
  return response.status >= 200 && response.status < 300 && klingCode(response) === 0;
}

/**
 * A failed job's `task_status_msg` → kind. Kling names content-safety refusals in words only (risk
 * control, sensitive or inappropriate content, policy); anything else is the upstream's failure.
 */
export function failedJobKind(message: string | undefined): ProviderFailure['kind'] {
  return message &&
    /risk|safety|sensitiv|inappropriate|violat|policy|moderat|prohibit|illegal|compliance|restricted/i.test(
      message,
    )
    ? 'rejected'
    : 'upstream';
}
