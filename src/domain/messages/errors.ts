// The gateway's errors in Anthropic's shape, {"type":"error","error":{"type","message"}}, with the
// statuses Anthropic uses, so Anthropic's SDKs raise their typed errors. Every refusal of the body
// is a 400 invalid_request_error (the catalog's 422s included), a body over the limit a 413
// request_too_large; an overloaded upstream is 529 overloaded_error; maintenance is a 503 api_error;
// every other failure (the gateway's, or an upstream's: 502, 504) a 500 api_error.
import type { AppError } from '../errors.js';

export interface AnthropicErrorAnswer {
  status: number;
  body: { type: 'error'; error: { type: string; message: string } };
}

function typeAndStatus(error: AppError): { type: string; status: number } {
  if (error.code === 'upstream_overloaded') return { type: 'overloaded_error', status: 529 };
  if (error.code === 'maintenance') return { type: 'api_error', status: 503 };
  switch (error.status) {
    case 401:
      return { type: 'authentication_error', status: 401 };
    case 402:
      return { type: 'billing_error', status: 402 };
    case 403:
      return { type: 'permission_error', status: 403 };
    case 404:
      return { type: 'not_found_error', status: 404 };
    case 413:
      return { type: 'request_too_large', status: 413 };
    case 429:
      return { type: 'rate_limit_error', status: 429 };
  }
  if (error.status < 500) return { type: 'invalid_request_error', status: 400 };
  // Anthropic's set of statuses: an upstream failure or timeout (502/504) is its 500 api_error.
  return { type: 'api_error', status: 500 };
}

export function anthropicError(error: AppError): AnthropicErrorAnswer {
  const { type, status } = typeAndStatus(error);
  return { status, body: { type: 'error', error: { type, message: error.message } } };
}
