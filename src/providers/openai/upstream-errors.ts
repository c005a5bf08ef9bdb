// Upstream failures of an OpenAI-compatible API, mapped to the gateway's error catalog:
// - 400/413/422: the request itself is at fault, so the client gets a 400 with the upstream's message;
// - 401/403: the gateway's upstream credentials are wrong; never echo the upstream text (it may
//   quote part of the key);
// - 408/504 and client-side timeouts: 504;
// - anything else, and network failures: 502 with a clear message.
import { AppError } from '../../domain/errors.js';

const MAX_MESSAGE = 500;

function upstreamMessage(text: string): { message: string; param: string | null } {
  try {
    const parsed = JSON.parse(text) as {
      error?: { message?: unknown; param?: unknown } | string;
      message?: unknown;
    };
    const error = parsed?.error;
    const message =
      typeof error === 'string'
        ? error
        : typeof error?.message === 'string'
          ? error.message
          : parsed?.message;
    const param = typeof error === 'object' && typeof error?.param === 'string' ? error.param : null;
    if (typeof message === 'string' && message) return { message: message.slice(0, MAX_MESSAGE), param };
  } catch {
    // not JSON: fall through to the raw text
  }
  return { message: text.trim().slice(0, MAX_MESSAGE) || 'no details', param: null };
}

export function upstreamHttpError(status: number, bodyText: string): AppError {
  if (status === 401 || status === 403) {
    return new AppError(
      'upstream_error',
      `The upstream provider refused the gateway's credentials (HTTP ${status})`,
    );
  }
  const { message, param } = upstreamMessage(bodyText);
  if (status === 400 || status === 413 || status === 422) {
    return new AppError(
      'upstream_rejected_request',
      `The upstream provider rejected the request: ${message}`,
      param,
    );
  }
  if (status === 408 || status === 504)
    return new AppError('upstream_timeout', `The upstream provider timed out (HTTP ${status}): ${message}`);
  return new AppError('upstream_error', `The upstream provider answered HTTP ${status}: ${message}`);
}

/** An error event inside a 200 stream ({"error": {...}} as a data line). */
export function upstreamStreamError(error: unknown): AppError {
  const message =
    typeof error === 'object' && error && typeof (error as { message?: unknown }).message === 'string'
      ? (error as { message: string }).message.slice(0, MAX_MESSAGE)
      : 'error event in the stream';
  return new AppError('upstream_error', `The upstream provider failed mid-stream: ${message}`);
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
]);

/** A network-level failure (refused, reset, timed out). Aborts are rethrown unchanged by the caller. */
export function upstreamNetworkError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && TIMEOUT_CODES.has(code)) {
    return new AppError('upstream_timeout', 'Timeout while waiting for provider response');
  }
  const reason = typeof code === 'string' ? code : error instanceof Error ? error.message : String(error);
  return new AppError('upstream_error', `The upstream provider could not be reached (${reason})`);
}
