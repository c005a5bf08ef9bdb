// Typed errors. Every answer that is not 2xx becomes an ApiError subclass chosen by its status (and
// its `code` for 503 maintenance), so callers can `instanceof` instead of reading numbers.
import type { Task } from './types.js';

/** The server's error body: {"error": {message, type, code, param}} (plus `hint` on some answers). */
export interface ErrorBody {
  message: string;
  type: string;
  code: string;
  param: string | null;
  hint?: string;
}

/** Base class of everything this package throws on purpose. */
export class GengateError extends Error {
  override name = 'GengateError';
}

/** The server answered with a non-2xx status. */
export class ApiError extends GengateError {
  override name = 'ApiError';
  readonly status: number;
  /** The error catalog code, e.g. `insufficient_balance`; `unknown` when the body was not the error shape. */
  readonly code: string;
  readonly type: string;
  readonly param: string | null;
  readonly hint: string | undefined;
  /** X-Request-Id of the answer: quote it when reporting a problem. */
  readonly requestId: string | undefined;
  readonly headers: Headers;

  constructor(status: number, body: ErrorBody, headers: Headers) {
    super(body.message);
    this.status = status;
    this.code = body.code;
    this.type = body.type;
    this.param = body.param;
    this.hint = body.hint;
    this.requestId = headers.get('x-request-id') ?? undefined;
    this.headers = headers;
  }
}

/** 400 / 422: the request is wrong; `param` names the offending parameter when known. */
export class ValidationError extends ApiError {
  override name = 'ValidationError';
}

/** 401: no key, or an invalid or deleted one. */
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
}

/** 402: the key's balance is below the cost of the request. */
export class InsufficientBalanceError extends ApiError {
  override name = 'InsufficientBalanceError';
}

/** 403: the caller's IP or the model is not allowed for this key. */
export class PermissionDeniedError extends ApiError {
  override name = 'PermissionDeniedError';
}

/** 404: an unknown id, or another account's object. */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}

/** 429: the key's rate limit; `retryAfter` is in seconds. */
export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
  readonly retryAfter: number | undefined;
  constructor(status: number, body: ErrorBody, headers: Headers) {
    super(status, body, headers);
    this.retryAfter = retryAfterSeconds(headers);
  }
}

/** 503 `maintenance`: the service is in maintenance mode; `retryAfter` is in seconds. */
export class MaintenanceError extends ApiError {
  override name = 'MaintenanceError';
  readonly retryAfter: number | undefined;
  constructor(status: number, body: ErrorBody, headers: Headers) {
    super(status, body, headers);
    this.retryAfter = retryAfterSeconds(headers);
  }
}

/** No HTTP answer: DNS, refused or dropped connection, or the per-request timeout. */
export class ConnectionError extends GengateError {
  override name = 'ConnectionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** waitForTask (or run) gave up after `timeoutMs`; the task may still finish later. */
export class WaitTimeoutError extends GengateError {
  override name = 'WaitTimeoutError';
  readonly taskId: string;
  constructor(taskId: string, timeoutMs: number) {
    super(`Task ${taskId} is not final after ${timeoutMs} ms`);
    this.taskId = taskId;
  }
}

/** run() ended on a failed task (its hold was returned); `task.error` says why. */
export class TaskFailedError extends GengateError {
  override name = 'TaskFailedError';
  readonly task: Task;
  constructor(task: Task) {
    super(`Task ${task.task_id} failed: ${task.error ?? 'unknown error'}`);
    this.task = task;
  }
}

/** verifyWebhook refused the request: missing headers, a bad signature or an old timestamp. */
export class WebhookVerificationError extends GengateError {
  override name = 'WebhookVerificationError';
}

/** Retry-After in seconds: a number of seconds or an HTTP date. */
export function retryAfterSeconds(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

/** The typed error for a non-2xx answer; `body` is whatever the server sent. */
export function apiErrorOf(status: number, body: unknown, headers: Headers): ApiError {
  const parsed = errorBodyOf(status, body);
  switch (true) {
    case status === 400 || status === 422:
      return new ValidationError(status, parsed, headers);
    case status === 401:
      return new AuthenticationError(status, parsed, headers);
    case status === 402:
      return new InsufficientBalanceError(status, parsed, headers);
    case status === 403:
      return new PermissionDeniedError(status, parsed, headers);
    case status === 404:
      return new NotFoundError(status, parsed, headers);
    case status === 429:
      return new RateLimitError(status, parsed, headers);
    case status === 503 && parsed.code === 'maintenance':
      return new MaintenanceError(status, parsed, headers);
    default:
      return new ApiError(status, parsed, headers);
  }
}

function errorBodyOf(status: number, body: unknown): ErrorBody {
  const error = (body as { error?: Partial<ErrorBody> } | null)?.error;
  if (error && typeof error === 'object' && typeof error.message === 'string') {
    return {
      message: error.message,
      type: typeof error.type === 'string' ? error.type : 'api_error',
      code: typeof error.code === 'string' ? error.code : 'unknown',
      param: typeof error.param === 'string' ? error.param : null,
      ...(typeof error.hint === 'string' ? { hint: error.hint } : {}),
    };
  }
  const text = typeof body === 'string' && body.length > 0 ? `: ${body.slice(0, 200)}` : '';
  return { message: `HTTP ${status}${text}`, type: 'api_error', code: 'unknown', param: null };
}
