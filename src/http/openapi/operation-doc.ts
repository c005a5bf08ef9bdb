// The shape of what the document says about one operation (operations.ts fills it in).
import type { ErrorCode } from '../../domain/errors.js';
import type { JsonSchema } from './components.js';
import type { ErrorExamples } from './errors.js';

export interface SuccessDoc {
  status: number;
  description: string;
  /** A schema, or 'route' for the route's own 200 schema (re-keyed when the status differs). */
  schema?: JsonSchema | 'route';
  /** Several media types (e.g. a JSON answer or an event stream); defaults to application/json. */
  content?: Record<string, JsonSchema>;
  headers?: string[];
}

export interface BodyDoc {
  schema: JsonSchema;
  required?: boolean;
  description?: string;
  /** Media types other than application/json that the route also reads. */
  alsoAs?: string[];
  examples?: Record<string, { summary?: string; value: unknown }>;
  /** Read as raw bytes, not as JSON: the JSON reader's errors do not apply. */
  raw?: boolean;
}

export interface OperationDoc {
  operationId: string;
  summary?: string;
  description?: string;
  body?: BodyDoc;
  success: SuccessDoc[];
  errors?: ErrorCode[];
  /** Real messages (with their hints) for some of those codes, instead of the catalog's default. */
  errorExamples?: ErrorExamples;
  /** Query parameters, replacing what the route's querystring schema says. */
  query?: { name: string; description: string; schema: JsonSchema }[];
  /** Reads Idempotency-Key. */
  idempotent?: boolean;
  /** Errors in Anthropic's shape and statuses (the Messages API), not the one error shape. */
  anthropicErrors?: boolean;
}
