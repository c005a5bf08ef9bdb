// Completes the document @fastify/swagger derives from the routes: each operation gets its security
// (from the route's access), its request body, its real success statuses, its error answers from
// the error catalog, its headers, and the catalog's params components. Pure: the base document and
// the catalog in, a new document out (the base is cached by @fastify/swagger and never changed).
import type { CatalogModel } from '../../domain/catalog/model.js';
import type { ErrorCode } from '../../domain/errors.js';
import type { RouteAccess } from '../plugins/guard.js';
import {
  type JsonSchema,
  ref,
  securitySchemes,
  sharedHeaders,
  sharedParameters,
  sharedSchemas,
} from './components.js';
import { ACCESS_ERRORS, anthropicErrorResponses, BODY_ERRORS, errorResponses } from './errors.js';
import { catalogComponents } from './model-params.js';
import { extraSchemas, OPERATIONS, type OperationDoc, type SuccessDoc } from './operations.js';

/** The operation field through which the swagger transform hands over the route's access. */
export const ACCESS_FIELD = 'x-gengate-access';

export type OpenApiDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, JsonSchema>>;
  components: Record<string, Record<string, unknown>>;
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];

/** OpenAPI 3.1 `webhooks`: what gengate sends to a task's webhook_url. */
const TASK_WEBHOOKS = {
  taskFinished: {
    post: {
      operationId: 'taskFinished',
      summary: 'A task became final (completed or failed)',
      description:
        "Sent to the task's `webhook_url` when it becomes final, at least once: retried with back-off until your endpoint answers 2xx. Verify the `webhook-signature` header (Standard Webhooks: HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` with the account's webhook secret) and use `webhook-id` to drop duplicates.",
      parameters: ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => ({
        name,
        in: 'header',
        required: true,
        schema: { type: 'string' },
      })),
      requestBody: {
        required: true,
        content: { 'application/json': { schema: ref('WebhookEvent') } },
      },
      responses: { '2XX': { description: 'Received; any other answer, or none, is retried' } },
    },
  },
};

const TAGS = [
  { name: 'catalog', description: 'Models, prices and their parameters (no key needed)' },
  { name: 'tasks', description: 'Asynchronous video and image generation' },
  { name: 'account', description: "The calling key's account, balance and usage" },
  { name: 'openai', description: 'OpenAI-compatible endpoints (baseURL = {PUBLIC_URL}/v1)' },
  { name: 'admin', description: 'Operator API (Bearer ADMIN_TOKEN)' },
  { name: 'system', description: 'Probes, version, metrics and upstream callbacks (no key)' },
];

const SECURITY: Record<RouteAccess, JsonSchema[]> = {
  key: [{ apiKey: [] }],
  admin: [{ adminToken: [] }],
  public: [],
  system: [],
};

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
const parameterRef = (name: string) => ({ $ref: `#/components/parameters/${name}` });

function answerHeaders(access: RouteAccess, extra: readonly string[] = []): Record<string, unknown> {
  const names = ['X-Request-Id', 'X-Api-Version'];
  if (access === 'key')
    names.push('RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy');
  return Object.fromEntries([...names, ...extra].map((name) => [name, headerRef(name)]));
}

function routeSchema(operation: JsonSchema): JsonSchema | undefined {
  const responses = operation.responses as Record<
    string,
    { content?: Record<string, { schema?: JsonSchema }> }
  >;
  return responses?.['200']?.content?.['application/json']?.schema;
}

function successResponse(success: SuccessDoc, operation: JsonSchema, access: RouteAccess): JsonSchema {
  const response: JsonSchema = {
    description: success.description,
    headers: answerHeaders(access, success.headers),
  };
  if (success.content) response.content = success.content;
  else if (success.schema !== undefined) {
    const schema = success.schema === 'route' ? routeSchema(operation) : success.schema;
    if (!schema) throw new Error(`OpenAPI: no route response schema to reuse for ${success.description}`);
    response.content = { 'application/json': { schema } };
  }
  return response;
}

function requestBody(
  doc: OperationDoc,
  examples: Record<string, unknown> | undefined,
): JsonSchema | undefined {
  const body = doc.body;
  if (!body) return undefined;
  const media: JsonSchema = { schema: body.schema };
  const named = examples ?? body.examples;
  if (named) media.examples = named;
  const content: Record<string, JsonSchema> = { 'application/json': media };
  for (const type of body.alsoAs ?? []) content[type] = { schema: body.schema };
  return {
    required: body.required ?? false,
    ...(body.description ? { description: body.description } : {}),
    content,
  };
}

function completeOperation(
  path: string,
  method: string,
  operation: JsonSchema,
  generateExamples: Record<string, unknown>,
): JsonSchema {
  const access = (operation[ACCESS_FIELD] as RouteAccess | undefined) ?? 'public';
  const { [ACCESS_FIELD]: _access, ...rest } = operation;
  const doc = OPERATIONS[`${method.toUpperCase()} ${path}`];
  const out: JsonSchema = { ...rest, security: SECURITY[access] };
  if (!out.tags) out.tags = [access === 'admin' ? 'admin' : 'system'];

  const given = Array.isArray(rest.parameters) ? (rest.parameters as JsonSchema[]) : [];
  const parameters: unknown[] = doc?.query ? given.filter((p) => p.in !== 'query') : [...given];
  for (const query of doc?.query ?? [])
    parameters.push({
      name: query.name,
      in: 'query',
      required: false,
      description: query.description,
      schema: query.schema,
    });
  if (doc?.idempotent) parameters.push(parameterRef('IdempotencyKey'));
  parameters.push(parameterRef('XRequestId'));
  out.parameters = parameters;

  if (!doc) {
    // A route this file does not describe yet still gets its security, headers and error answers.
    const responses = (rest.responses ?? {}) as Record<string, JsonSchema>;
    out.responses = {
      ...Object.fromEntries(
        Object.entries(responses).map(([status, r]) => [status, { ...r, headers: answerHeaders(access) }]),
      ),
      ...errorResponses(ACCESS_ERRORS[access], answerHeaders('public')),
    };
    return out;
  }

  out.operationId = doc.operationId;
  if (doc.summary) out.summary = doc.summary;
  if (doc.description) out.description = doc.description;
  const body = requestBody(doc, doc.operationId === 'createTask' ? generateExamples : undefined);
  if (body) out.requestBody = body;
  else delete out.requestBody;

  const responses: Record<string, JsonSchema> = {};
  for (const success of doc.success)
    responses[String(success.status)] = successResponse(success, rest, access);
  const codes: ErrorCode[] = [
    ...ACCESS_ERRORS[access],
    ...(doc.body && !doc.body.raw ? BODY_ERRORS : []),
    ...(doc.errors ?? []),
  ];
  for (const [status, response] of Object.entries(
    doc.anthropicErrors
      ? anthropicErrorResponses(codes, answerHeaders('public'))
      : errorResponses(codes, answerHeaders('public'), doc.errorExamples),
  ))
    responses[status] ??= response;
  out.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  return out;
}

/**
 * A free-form object says so (`additionalProperties: true`): JSON Schema allows any member either
 * way, but generated clients read a bare `{type: object}` as an object with no members at all.
 */
function markFreeFormObjects(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) markFreeFormObjects(item);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const schema = value as JsonSchema;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const composed = [
    '$ref',
    'properties',
    'additionalProperties',
    'patternProperties',
    'oneOf',
    'anyOf',
    'allOf',
  ];
  if (types.includes('object') && !composed.some((key) => key in schema)) schema.additionalProperties = true;
  for (const [key, child] of Object.entries(schema)) {
    // A properties map holds schemas under any name; elsewhere example values are data, not schemas.
    if (key === 'properties' && typeof child === 'object' && child !== null)
      for (const property of Object.values(child)) markFreeFormObjects(property);
    else if (key !== 'example' && key !== 'examples') markFreeFormObjects(child);
  }
}

/** The whole document: the routes' base document plus everything above, for this catalog. */
export function completeDocument(base: OpenApiDocument, models: readonly CatalogModel[]): OpenApiDocument {
  const catalog = catalogComponents(models);
  const paths: OpenApiDocument['paths'] = {};
  for (const [path, item] of Object.entries(base.paths)) {
    paths[path] = {};
    for (const [method, operation] of Object.entries(item)) {
      paths[path][method] = METHODS.includes(method)
        ? completeOperation(path, method, operation, catalog.generateExamples)
        : operation;
    }
  }
  const { security: _defaultSecurity, ...rest } = base;
  const document: OpenApiDocument = {
    ...rest,
    openapi: '3.1.0',
    tags: TAGS,
    paths,
    webhooks: TASK_WEBHOOKS,
    components: {
      ...base.components,
      schemas: { ...base.components?.schemas, ...sharedSchemas, ...extraSchemas, ...catalog.schemas },
      headers: sharedHeaders,
      parameters: sharedParameters,
      securitySchemes,
    },
  };
  // A copy: the parts shared with @fastify/swagger's cached base document are never changed.
  const copy = structuredClone(document);
  markFreeFormObjects(copy.paths);
  markFreeFormObjects(copy.components.schemas);
  return copy;
}
