import { describe, expect, it } from 'vitest';
import { parseIdempotencyKey, requestFingerprint } from './key.js';

describe('parseIdempotencyKey', () => {
  it('accepts 8 to 256 printable ASCII characters', () => {
    expect(parseIdempotencyKey('12345678')).toBe('12345678');
    expect(parseIdempotencyKey('k'.repeat(256))).toHaveLength(256);
    expect(parseIdempotencyKey('order 42: #1/2 ~!')).toBe('order 42: #1/2 ~!');
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
  });

  it.each([['1234567'], ['k'.repeat(257)], ['ключ-12345678'], ['abc\tdefgh'], ['']])(
    'refuses %j with 400',
    (key) => {
      expect(() => parseIdempotencyKey(key)).toThrow(
        expect.objectContaining({ status: 400, code: 'idempotency_key_invalid' }),
      );
    },
  );

  it('refuses a repeated header', () => {
    expect(() => parseIdempotencyKey(['12345678', '12345678'])).toThrow(
      expect.objectContaining({ status: 400 }),
    );
  });
});

describe('requestFingerprint', () => {
  const body = Buffer.from('{"params":{"model_name":"seedance-2"}}');
  it('is stable for the same method, route and bytes', () => {
    expect(requestFingerprint('POST', '/generate', body)).toBe(
      requestFingerprint('post', '/generate', Buffer.from(body)),
    );
  });
  it('differs for other bytes (even whitespace), routes or methods', () => {
    const base = requestFingerprint('POST', '/generate', body);
    expect(
      requestFingerprint('POST', '/generate', Buffer.from('{"params": {"model_name":"seedance-2"}}')),
    ).not.toBe(base);
    expect(requestFingerprint('POST', '/v1/videos', body)).not.toBe(base);
    expect(requestFingerprint('PUT', '/generate', body)).not.toBe(base);
  });
  it('covers malformed bodies too', () => {
    expect(requestFingerprint('POST', '/generate', Buffer.from('{oops'))).toMatch(/^[0-9a-f]{64}$/);
  });
});
