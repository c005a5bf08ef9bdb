// Anthropic's HTTP and stream errors → the gateway's catalog.
import { describe, expect, it } from 'vitest';
import { anthropicHttpError, anthropicStreamError } from './errors.js';

const body = (type: string, message: string, errorCode?: string) =>
  JSON.stringify({
    type: 'error',
    error: { type, message, ...(errorCode ? { details: { error_code: errorCode } } : {}) },
  });

describe('anthropicHttpError', () => {
  it.each([
    [529, body('overloaded_error', 'Overloaded'), 'upstream_overloaded', 503],
    [500, body('api_error', 'Internal server error'), 'upstream_overloaded', 503],
    [429, body('rate_limit_error', 'slow down'), 'rate_limited', 429],
    [
      429,
      body('rate_limit_error', 'monthly spend limit', 'enforced_spend_limit_reached'),
      'upstream_error',
      502,
    ],
    [402, body('billing_error', 'pay up'), 'upstream_error', 502],
    [
      400,
      body('invalid_request_error', 'Your credit balance is too low to access the Anthropic API.'),
      'upstream_error',
      502,
    ],
    [
      400,
      body('invalid_request_error', 'You have reached your specified API usage limits.'),
      'upstream_error',
      502,
    ],
    [400, body('invalid_request_error', 'max_tokens: too big'), 'upstream_rejected_request', 400],
    [413, body('request_too_large', 'Request exceeds the maximum size'), 'upstream_rejected_request', 400],
    [401, body('authentication_error', 'invalid x-api-key sk-ant-abc'), 'upstream_error', 502],
    [403, body('permission_error', 'no access'), 'upstream_error', 502],
    [404, body('not_found_error', 'model: claude-nope'), 'upstream_error', 502],
    [504, 'gateway timeout', 'upstream_timeout', 504],
  ])('HTTP %i %s → %s (%i)', (status, text, code, httpStatus) => {
    const error = anthropicHttpError(status, text);
    expect({ code: error.code, status: error.status }).toEqual({ code, status: httpStatus });
    expect(error.message).not.toContain('sk-ant');
  });

  it('gives billing its fixed message, and keeps the upstream text of a rejected request', () => {
    expect(anthropicHttpError(402, body('billing_error', 'card declined')).message).toBe(
      'Provider billing error',
    );
    expect(anthropicHttpError(400, body('invalid_request_error', 'temperature: too high')).message).toBe(
      'The upstream provider rejected the request: temperature: too high',
    );
    expect(anthropicHttpError(404, 'not json').message).toBe(
      'The upstream provider answered HTTP 404: not json',
    );
  });

  it('passes on retry-after in seconds, and a default on overload', () => {
    expect(anthropicHttpError(429, body('rate_limit_error', 'x'), '12').extra.headers).toEqual({
      'Retry-After': '12',
    });
    expect(anthropicHttpError(429, body('rate_limit_error', 'x'), 'soon').extra.headers).toBeUndefined();
    expect(anthropicHttpError(529, body('overloaded_error', 'x'), '3').extra.headers).toEqual({
      'Retry-After': '3',
    });
    expect(anthropicHttpError(529, body('overloaded_error', 'x')).extra.headers).toEqual({
      'Retry-After': '10',
    });
  });

  it('redacts anything that looks like an Anthropic key from a relayed message', () => {
    const error = anthropicHttpError(400, body('invalid_request_error', 'bad header sk-ant-api03-XYZ_1'));
    expect(error.message).toBe('The upstream provider rejected the request: bad header [redacted]');
  });
});

describe('anthropicStreamError', () => {
  it('maps the error event types', () => {
    expect(anthropicStreamError(body('overloaded_error', 'Overloaded')).code).toBe('upstream_overloaded');
    expect(anthropicStreamError(body('api_error', 'x')).code).toBe('upstream_overloaded');
    expect(anthropicStreamError(body('rate_limit_error', 'x')).code).toBe('rate_limited');
    expect(anthropicStreamError(body('billing_error', 'x')).message).toBe('Provider billing error');
    expect(anthropicStreamError(body('invalid_request_error', 'odd')).message).toBe(
      'The upstream provider failed mid-stream: odd',
    );
    expect(anthropicStreamError('garbage').code).toBe('upstream_error');
  });
});
