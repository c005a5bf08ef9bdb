// A failure as OpenAI's `ResponseErrorCode`, the closed enum that `response.failed` carries in
// `response.error.code`. gengate's own catalog code stays in the stream's `error` event and the logs;
// clients generated from OpenAI's spec (and retry logic keyed on `server_error` /
// `rate_limit_exceeded`) only know the enum.

export type ResponseErrorCode = 'server_error' | 'rate_limit_exceeded' | 'invalid_prompt';

/**
 * A rate limit stays a rate limit; a request the upstream refused as invalid (its 4xx, a content
 * filter) is `invalid_prompt`, which a client must not retry unchanged; everything else (the upstream
 * broke, timed out or is overloaded) is `server_error`, which a client may retry.
 */
export function responseErrorCode(failure: { code?: string | null; type?: string }): ResponseErrorCode {
  if (failure.code === 'rate_limited' || failure.type === 'rate_limit_error') return 'rate_limit_exceeded';
  if (failure.type === 'invalid_request_error') return 'invalid_prompt';
  return 'server_error';
}
