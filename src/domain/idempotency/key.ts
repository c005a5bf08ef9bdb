// The Idempotency-Key header: 8 to 256 printable ASCII characters, scoped per API key. A request is
// identified by a fingerprint over the method, the route and the RAW body bytes: even a malformed
// body has a fingerprint, so its 400 can be replayed, and no JSON canonicalisation can make two
// different bodies look alike (a re-serialised body with other whitespace counts as different).
import { createHash } from 'node:crypto';
import { AppError } from '../errors.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const MIN_KEY_LENGTH = 8;
export const MAX_KEY_LENGTH = 256;
const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

/** undefined when the header is absent; the key otherwise; 400 when it is malformed or repeated. */
export function parseIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (Array.isArray(header)) {
    throw new AppError(
      'idempotency_key_invalid',
      'Send one Idempotency-Key header, not several',
      'Idempotency-Key',
    );
  }
  if (header.length < MIN_KEY_LENGTH || header.length > MAX_KEY_LENGTH || !PRINTABLE_ASCII.test(header)) {
    throw new AppError('idempotency_key_invalid', undefined, 'Idempotency-Key');
  }
  return header;
}

export function requestFingerprint(method: string, route: string, rawBody: Uint8Array): string {
  return createHash('sha256').update(`${method.toUpperCase()} ${route}\n`).update(rawBody).digest('hex');
}
