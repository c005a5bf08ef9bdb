// The one catalog of error codes: each code has its HTTP status, OpenAI-style type and default message.
// Every error a client can see, native or /v1, comes from here.

export const ERRORS = {
  invalid_json: { status: 400, type: 'invalid_request_error', message: 'Request body is not valid JSON' },
  missing_parameter: {
    status: 400,
    type: 'invalid_request_error',
    message: 'A required parameter is missing',
  },
  /** An upstream answered 400/413/422: the request itself is at fault, so the client sees a 4xx. */
  unsupported_parameter: {
    status: 400,
    type: 'invalid_request_error',
    message: 'This parameter is not supported',
  },
  upstream_rejected_request: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The upstream provider rejected the request',
  },
  /** A task's provider refused the prompt (its safety filter); rephrase, do not retry unchanged. */
  content_policy_violation: {
    status: 400,
    type: 'invalid_request_error',
    message: 'Provider rejected prompt: contains restricted content',
  },
  idempotency_key_invalid: {
    status: 400,
    type: 'invalid_request_error',
    message: 'Idempotency-Key must be 8 to 256 printable ASCII characters',
  },
  /** A JSON body nested deeper than the limit (refused while reading, before anything parses it). */
  body_too_deep: {
    status: 400,
    type: 'invalid_request_error',
    message: 'Request body is nested too deeply',
  },
  /** A payment notification whose signature does not verify (or is stale), or that is unreadable. */
  invalid_notification: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The notification could not be verified',
  },
  /** The HTTP request itself could not be parsed (answered by the server before any route). */
  malformed_request: { status: 400, type: 'invalid_request_error', message: 'The HTTP request is malformed' },
  invalid_api_key: { status: 401, type: 'authentication_error', message: 'Invalid or missing API key' },
  /** The key's expires_at has passed (the key is otherwise intact: an operator may extend it). */
  key_expired: { status: 401, type: 'authentication_error', message: 'This API key has expired' },
  invalid_signature: {
    status: 401,
    type: 'authentication_error',
    message: 'The callback signature or token does not verify',
  },
  insufficient_balance: {
    status: 402,
    type: 'insufficient_quota',
    message: 'Balance is below the cost of this request',
  },
  /** The hold would take the key's spend in its current period (or in total) past its cap. */
  spend_limit_reached: {
    status: 402,
    type: 'insufficient_quota',
    message: "This request would exceed the key's spend limit",
  },
  ip_not_allowed: {
    status: 403,
    type: 'permission_error',
    message: 'Caller IP address is not allowed for this key',
  },
  model_not_allowed: { status: 403, type: 'permission_error', message: 'This key may not use this model' },
  not_found: { status: 404, type: 'not_found_error', message: 'Not found' },
  task_not_found: { status: 404, type: 'not_found_error', message: 'Task not found' },
  model_not_found: { status: 404, type: 'not_found_error', message: 'Model not found or inactive' },
  /** POST /me/redeem: no code with this text. */
  code_not_found: { status: 404, type: 'not_found_error', message: 'No such code' },
  method_not_allowed: { status: 405, type: 'invalid_request_error', message: 'Method not allowed' },
  account_exists: {
    status: 409,
    type: 'conflict_error',
    message: 'An account with this messaging_id already exists',
  },
  /** An owner deletes a key that still has a balance or open holds: its money would be stranded. */
  key_not_empty: {
    status: 409,
    type: 'conflict_error',
    message: 'The key still holds money: move its balance to another key first',
  },
  /** POST /me/redeem: the code was redeemed already, or it expired. */
  code_unavailable: {
    status: 409,
    type: 'conflict_error',
    message: 'This code was already redeemed or has expired',
  },
  /** A refund larger than what the key still holds available (or than the top-up). */
  refund_exceeds_balance: {
    status: 409,
    type: 'conflict_error',
    message: 'The key no longer holds this much: the refund would take it below zero',
  },
  /** A refund of a top-up that is not paid, or already refunded. */
  topup_not_refundable: {
    status: 409,
    type: 'conflict_error',
    message: 'Only a succeeded top-up can be refunded',
  },
  idempotency_in_progress: {
    status: 409,
    type: 'conflict_error',
    message: 'A request with this Idempotency-Key is still in progress; retry later',
  },
  /** GET /v1/videos/{id}/content of a video that is not completed (yet, or ever). */
  video_not_ready: { status: 409, type: 'conflict_error', message: 'The video is not completed' },
  /** The request's headers or body did not arrive within the server's time limit. */
  request_timeout: {
    status: 408,
    type: 'invalid_request_error',
    message: 'The request did not arrive in time',
  },
  payload_too_large: { status: 413, type: 'invalid_request_error', message: 'Request body is too large' },
  uri_too_long: { status: 414, type: 'invalid_request_error', message: 'Request URL is too long' },
  range_not_satisfiable: {
    status: 416,
    type: 'invalid_request_error',
    message: 'The requested range is not satisfiable',
  },
  unsupported_media_type: {
    status: 415,
    type: 'invalid_request_error',
    message: 'Content-Type must be application/json',
  },
  request_headers_too_large: {
    status: 431,
    type: 'invalid_request_error',
    message: 'Request headers are too large',
  },
  model_name_required: {
    status: 422,
    type: 'invalid_request_error',
    message: 'params.model_name is required',
  },
  model_has_no_price: {
    status: 422,
    type: 'invalid_request_error',
    message: 'No price is set for this model',
  },
  model_kind_not_supported: {
    status: 422,
    type: 'invalid_request_error',
    message: 'This endpoint does not serve models of this kind',
  },
  invalid_parameter: { status: 422, type: 'invalid_request_error', message: 'A parameter failed validation' },
  unknown_field: { status: 422, type: 'invalid_request_error', message: 'Unknown field in request body' },
  idempotency_key_reused: {
    status: 422,
    type: 'invalid_request_error',
    message: 'Idempotency-Key was reused with a different request body',
  },
  webhook_url_not_allowed: {
    status: 422,
    type: 'invalid_request_error',
    message: 'webhook_url must be a public http(s) URL',
  },
  vision_not_supported: {
    status: 422,
    type: 'invalid_request_error',
    message: 'This model does not accept image input',
  },
  /** POST /me/topups: the method is off (its secrets are not set) or unknown. */
  topup_method_unavailable: {
    status: 422,
    type: 'invalid_request_error',
    message: 'This payment method is not available',
  },
  /** A top-up amount outside the bounds or with more than 2 decimals. */
  invalid_amount: {
    status: 422,
    type: 'invalid_request_error',
    message: 'The amount is outside the allowed bounds or has more than 2 decimals',
  },
  /** Receipts are on and the payer gave no valid email to send the receipt to. */
  email_required: {
    status: 422,
    type: 'invalid_request_error',
    message: 'A valid email is required for the receipt',
  },
  rate_limited: { status: 429, type: 'rate_limit_error', message: 'Rate limit of this key exceeded' },
  internal_error: { status: 500, type: 'api_error', message: 'Internal server error' },
  upstream_error: { status: 502, type: 'api_error', message: 'The upstream provider failed' },
  /** The payment provider failed or refused to create the payment; nothing was charged or recorded. */
  payment_provider_error: {
    status: 502,
    type: 'api_error',
    message: 'The payment provider failed; retry with the same Idempotency-Key',
  },
  /** A task failed because its provider gave no result in time (the hold was released). */
  provider_timeout: {
    status: 502,
    type: 'api_error',
    message: 'Timeout while waiting for provider response',
  },
  /** A task failed because its provider is overloaded (the hold was released); retry later. */
  upstream_overloaded: {
    status: 503,
    type: 'service_unavailable',
    message: 'Service temporarily unavailable (code E-294, high load)',
  },
  maintenance: {
    status: 503,
    type: 'service_unavailable',
    message: 'The service is in maintenance mode; retry later',
  },
  upstream_timeout: { status: 504, type: 'api_error', message: 'Timed out waiting for the result' },
  /** The payment provider did not answer in time; a retry with the same Idempotency-Key is safe. */
  payment_provider_timeout: {
    status: 504,
    type: 'api_error',
    message: 'The payment provider did not answer in time; retry with the same Idempotency-Key',
  },
} as const satisfies Record<string, { status: number; type: string; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** A failure a client caused or may see; carries a catalog code and optional details. */
export class AppError extends Error {
  readonly status: number;
  readonly type: string;

  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly param: string | null = null,
    readonly extra: { headers?: Record<string, string>; body?: Record<string, unknown> } = {},
  ) {
    super(message ?? ERRORS[code].message);
    this.status = ERRORS[code].status;
    this.type = ERRORS[code].type;
  }
}

export function errorBody(err: AppError): Record<string, unknown> {
  return {
    error: {
      message: err.message,
      type: err.type,
      code: err.code,
      param: err.param,
      ...(err.extra.body ?? {}),
    },
  };
}
