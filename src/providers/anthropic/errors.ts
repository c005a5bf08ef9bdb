// Anthropic's failures, mapped to the gateway's error catalog. Anthropic's error body is
// {"type":"error","error":{"type","message","details"?}}; the type (and a spend-limit code that
// arrives as a 429) decides, not the status alone:
// - billing_error (402), a spend limit (429 enforced_spend_limit_reached, or a 400 saying the usage
//   limit or credit is exhausted) → 502 "Provider billing error": the gateway's account, not the client's;
// - 429 rate_limit_error → 429 with the upstream's retry-after;
// - 529 overloaded_error and 500 api_error → 503 upstream_overloaded;
// - 400/413/422 → 400 with the upstream's message; 401/403 → 502 without the upstream's text.
import { AppError } from '../../domain/errors.js';
import { TASK_FAILURE } from '../../domain/tasks/states.js';
import type { ErrorBody } from './wire.js';

const MAX_MESSAGE = 500;
const OVERLOAD_RETRY_AFTER = '10';
const BILLING_TEXT = /spend limit|credit balance is too low|reached your specified API usage limits/i;

interface ParsedError {
  type: string;
  message: string;
  code: string | undefined;
}

function parse(text: string): ParsedError {
  try {
    const body = JSON.parse(text) as Partial<ErrorBody>;
    const error = body?.error;
    if (error && typeof error === 'object' && typeof error.message === 'string') {
      const code =
        error.details && typeof error.details.error_code === 'string' ? error.details.error_code : undefined;
      return { type: String(error.type ?? ''), message: redact(error.message), code };
    }
  } catch {
    // not JSON: the raw text stands for the message
  }
  return { type: '', message: redact(text.trim()) || 'no details', code: undefined };
}

/** Anthropic never quotes a key in a message, but a proxy in front of it might. */
function redact(message: string): string {
  return message.replace(/sk-ant-[A-Za-z0-9_-]+/g, '[redacted]').slice(0, MAX_MESSAGE);
}

const isBilling = (error: ParsedError) =>
  error.type === 'billing_error' ||
  error.code === 'enforced_spend_limit_reached' ||
  BILLING_TEXT.test(error.message);

const billingError = () => new AppError('upstream_error', TASK_FAILURE.billing);

const overloadError = (retryAfter: string | undefined) =>
  new AppError('upstream_overloaded', undefined, null, {
    headers: { 'Retry-After': retryAfter ?? OVERLOAD_RETRY_AFTER },
  });

const rateLimitError = (retryAfter: string | undefined) =>
  new AppError(
    'rate_limited',
    `The upstream provider is rate limiting requests; retry ${retryAfter ? `after ${retryAfter} s` : 'later'}`,
    null,
    retryAfter ? { headers: { 'Retry-After': retryAfter } } : {},
  );

/** retry-after in whole seconds, as Anthropic sends it; anything else is not passed on. */
function seconds(value: string | undefined): string | undefined {
  return value && /^\d{1,6}$/.test(value.trim()) ? value.trim() : undefined;
}

export function anthropicHttpError(status: number, bodyText: string, retryAfterHeader?: string): AppError {
  if (status === 401 || status === 403) {
    return new AppError(
      'upstream_error',
      `The upstream provider refused the gateway's credentials (HTTP ${status})`,
    );
  }
  const error = parse(bodyText);
  const retryAfter = seconds(retryAfterHeader);
  if (status === 402 || isBilling(error)) return billingError();
  if (status === 429 || error.type === 'rate_limit_error') return rateLimitError(retryAfter);
  if (status === 529 || status === 500 || error.type === 'overloaded_error' || error.type === 'api_error')
    return overloadError(retryAfter);
  if (status === 400 || status === 413 || status === 422)
    return new AppError(
      'upstream_rejected_request',
      `The upstream provider rejected the request: ${error.message}`,
    );
  if (status === 408 || status === 504)
    return new AppError(
      'upstream_timeout',
      `The upstream provider timed out (HTTP ${status}): ${error.message}`,
    );
  return new AppError('upstream_error', `The upstream provider answered HTTP ${status}: ${error.message}`);
}

/** An `error` event inside a 200 stream: {"type":"error","error":{...}}. */
export function anthropicStreamError(data: string): AppError {
  const error = parse(data);
  if (isBilling(error)) return billingError();
  if (error.type === 'overloaded_error' || error.type === 'api_error') return overloadError(undefined);
  if (error.type === 'rate_limit_error') return rateLimitError(undefined);
  return new AppError('upstream_error', `The upstream provider failed mid-stream: ${error.message}`);
}
