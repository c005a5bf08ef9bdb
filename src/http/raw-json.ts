// Idempotent POSTs need the RAW body: the Idempotency-Key check (and its replay) comes before the
// body's own 400 in the order of checks, and the fingerprint covers the exact bytes. Inside the
// scope of such routes this parser keeps the bytes and defers any parse error to the handler.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../domain/errors.js';

export interface RawJsonBody {
  raw: Buffer;
  value?: unknown;
  error?: AppError;
}

const EMPTY = Buffer.alloc(0);

/** Call inside an encapsulated plugin: the parsers of that scope only change. */
export function captureRawJsonBodies(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, raw: Buffer, done) => {
    if (raw.length === 0)
      return done(null, {
        raw,
        error: new AppError('invalid_json', 'Request body is empty'),
      } satisfies RawJsonBody);
    try {
      done(null, { raw, value: JSON.parse(raw.toString('utf8')) } satisfies RawJsonBody);
    } catch (error) {
      done(null, {
        raw,
        error: new AppError('invalid_json', `Request body is not valid JSON: ${(error as Error).message}`),
      } satisfies RawJsonBody);
    }
  });
  scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, raw: Buffer, done) => {
    done(null, { raw, error: new AppError('unsupported_media_type') } satisfies RawJsonBody);
  });
}

/** The bytes for the fingerprint (empty when no body was sent). */
export function rawBytes(body: unknown): Buffer {
  return (body as RawJsonBody | undefined)?.raw ?? EMPTY;
}

/** The parsed JSON, or the deferred 400/415. A request without a body is a 400 too. */
export function parsedJson(body: unknown): unknown {
  const captured = body as RawJsonBody | undefined;
  if (!captured) throw new AppError('invalid_json', 'Request body is required');
  if (captured.error) throw captured.error;
  return captured.value;
}
