// Error answers of the document, built from the one error catalog: each status an operation can
// answer gets one response whose examples are the catalog codes it can carry, so the statuses and
// codes in the document are the ones the server really sends.
import { ERRORS, type ErrorCode } from '../../domain/errors.js';
import type { RouteAccess } from '../plugins/guard.js';
import type { JsonSchema } from './components.js';

/** What the guard answers before any handler, by route access (DESIGN.md §4 order). */
export const ACCESS_ERRORS: Record<RouteAccess, ErrorCode[]> = {
  key: ['invalid_api_key', 'key_expired', 'ip_not_allowed', 'rate_limited', 'maintenance', 'internal_error'],
  public: ['maintenance', 'internal_error'],
  // Without ADMIN_TOKEN the admin API answers 404, as if it did not exist; an address sending
  // wrong tokens is refused with 429 after a few.
  admin: ['invalid_api_key', 'rate_limited', 'not_found', 'internal_error'],
  system: ['internal_error'],
};

/** What reading a JSON body can answer, before the handler sees it. */
export const BODY_ERRORS: ErrorCode[] = [
  'invalid_json',
  'body_too_deep',
  'payload_too_large',
  'unsupported_media_type',
];

/** Answers that carry Retry-After. */
const RETRY_AFTER: ReadonlySet<ErrorCode> = new Set([
  'rate_limited',
  'maintenance',
  'idempotency_in_progress',
  'upstream_overloaded',
]);

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  402: 'Insufficient balance',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  408: 'Request timeout',
  409: 'Conflict',
  413: 'Payload too large',
  414: 'URI too long',
  415: 'Unsupported media type',
  416: 'Range not satisfiable',
  422: 'Unprocessable entity',
  429: 'Too many requests',
  431: 'Request headers too large',
  500: 'Internal server error',
  502: 'Bad gateway',
  503: 'Service unavailable',
  504: 'Gateway timeout',
};

/** A real answer's message and param, where the catalog's default message would say less. */
export type ErrorExamples = Partial<Record<ErrorCode, { message: string; param: string | null }>>;

export function errorExample(code: ErrorCode, given?: ErrorExamples[ErrorCode]): JsonSchema {
  const entry = ERRORS[code];
  return {
    error: { message: given?.message ?? entry.message, type: entry.type, code, param: given?.param ?? null },
  };
}

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** One response per status, the codes as named examples; `base` headers go on every response. */
export function errorResponses(
  codes: Iterable<ErrorCode>,
  base: Record<string, unknown>,
  examples: ErrorExamples = {},
): Record<string, JsonSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERRORS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, JsonSchema> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const codes = byStatus.get(status)!;
    const headers = {
      ...base,
      ...(codes.some((c) => RETRY_AFTER.has(c)) ? { 'Retry-After': headerRef('Retry-After') } : {}),
    };
    responses[String(status)] = {
      description: `${STATUS_TEXT[status] ?? 'Error'}: ${codes.map((c) => `\`${c}\``).join(', ')}`,
      headers,
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/Error' },
          examples: Object.fromEntries(
            codes.map((c) => [c, { summary: ERRORS[c].message, value: errorExample(c, examples[c]) }]),
          ),
        },
      },
    };
  }
  return responses;
}
