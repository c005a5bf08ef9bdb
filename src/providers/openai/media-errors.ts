// OpenAI answers {error: {message, type, code, param}} → our failure kinds. The code decides, not the
// HTTP status alone: a 429 is a rate limit (busy, try again) when the code is rate_limit_exceeded but
// a billing problem when it is insufficient_quota. The upstream's message never reaches a client.

import { ownEntry } from '../../domain/own-entry.js';
import { describeAnswer, retryAfterMs, type UpstreamResponse } from '../http/upstream-http.js';
import type { PollOutcome, ProviderFailure, SubmitOutcome } from '../task-provider.js';

export interface OpenAiError {
  message?: string;
  type?: string;
  code?: string;
  param?: string;
}

/** The error object of an answer, if it has one. */
export function openAiError(json: unknown): OpenAiError | undefined {
  const error = (json as { error?: unknown } | undefined)?.error;
  if (typeof error !== 'object' || error === null) return undefined;
  const pick = (name: string) => {
    const value = (error as Record<string, unknown>)[name];
    return typeof value === 'string' ? value : undefined;
  };
  return { message: pick('message'), type: pick('type'), code: pick('code'), param: pick('param') };
}

const BILLING_CODES = new Set([
  'insufficient_quota',
  'billing_hard_limit_reached',
  'billing_not_active',
  'account_deactivated',
]);

/** A safety-system refusal: images say moderation_blocked, older models content_policy_violation. */
function isModeration(code: string | undefined): boolean {
  return !!code && /moderation|content_policy|safety/.test(code);
}

/**
 * Our names for the upstream's fields, so a client learns which of ITS parameters was refused
 * without the upstream's own wording (which could quote the request).
 */
const PARAM_NAMES: Record<string, string> = {
  size: 'aspect_ratio',
  seconds: 'duration',
  prompt: 'prompt',
  quality: 'quality',
};

function paramsFailure(error: OpenAiError | undefined, detail: string): ProviderFailure {
  const ours = error?.param ? ownEntry(PARAM_NAMES, error.param) : undefined;
  return { kind: 'params', ...(ours ? { message: `invalid ${ours}` } : {}), detail };
}

/** The failure kind of a job's own error (a failed video): moderation → rejected, else upstream. */
export function jobFailure(error: OpenAiError | undefined, detail: string): ProviderFailure {
  if (isModeration(error?.code)) return { kind: 'rejected', detail };
  if (error?.code && BILLING_CODES.has(error.code)) return { kind: 'billing', detail };
  return { kind: 'upstream', detail };
}

/** A non-2xx answer to a create call: nothing was started upstream. */
export function submitError(
  response: UpstreamResponse,
): Extract<SubmitOutcome, { status: 'busy' | 'failed' }> {
  const error = openAiError(response.json);
  const detail = describeAnswer(response);
  const code = error?.code;
  const failed = (failure: ProviderFailure) => ({ status: 'failed' as const, failure });
  if (code && BILLING_CODES.has(code)) return failed({ kind: 'billing', detail });
  if (response.status === 429) return { status: 'busy', retryAfterMs: retryAfterMs(response) };
  if (isModeration(code)) return failed({ kind: 'rejected', detail });
  if (response.status === 401 || response.status === 403 || code === 'invalid_api_key')
    return failed({ kind: 'auth', detail });
  if (response.status >= 500) return failed({ kind: 'overload', detail });
  if (response.status === 400 || response.status === 422) return failed(paramsFailure(error, detail));
  // 404 (the model, or the whole videos API, is gone) and anything unexplained: the next route.
  return failed({ kind: 'upstream', detail });
}

const POLL_RETRY_MS = 5_000;

/** A non-2xx answer to a status call: rate limits and 5xx are never terminal. */
export function pollError(response: UpstreamResponse): PollOutcome {
  if (response.status === 429 || response.status >= 500)
    return { status: 'running', retryAfterMs: retryAfterMs(response) ?? POLL_RETRY_MS };
  const detail = describeAnswer(response);
  if (response.status === 401 || response.status === 403)
    return { status: 'failed', failure: { kind: 'auth', detail } };
  return { status: 'failed', failure: { kind: 'upstream', detail } };
}
