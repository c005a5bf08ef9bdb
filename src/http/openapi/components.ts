// The named parts of the OpenAPI document that every operation shares: the one error shape, the
// headers every answer carries, the request headers, the two bearer schemes and the entities the
// API answers with. Documentation only: nothing here is compiled by Fastify or validates a request.
import { openAiVideoSchema } from '../presenters/openai-video.js';
import { taskSchema } from '../presenters/task.js';
import { openAiModelSchema } from '../routes/openai/models.js';

export type JsonSchema = Record<string, unknown>;

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** DESIGN.md's error body, everywhere: OpenAI's shape, `code` from the one error catalog. */
const errorSchema: JsonSchema = {
  type: 'object',
  description:
    "The one error body of every 4xx and 5xx answer (OpenAI's shape). `code` comes from the error catalog; `message` says what to change, with a hint where a common mistake is recognisable.",
  properties: {
    error: {
      type: 'object',
      properties: {
        message: { type: 'string' },
        type: {
          type: 'string',
          description: 'OpenAI error type, e.g. invalid_request_error, authentication_error',
        },
        code: { type: 'string', description: 'A code of the error catalog, e.g. invalid_parameter' },
        param: { type: ['string', 'null'], description: 'The request field at fault, when there is one' },
        task_id: {
          type: 'string',
          description: 'Only on answers about a task that exists (e.g. 504 of POST /v1/images/generations)',
        },
      },
      required: ['message', 'type', 'code', 'param'],
    },
  },
  required: ['error'],
};

const keySchema: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: { type: ['string', 'null'] },
    key_value: {
      type: 'string',
      description: 'Masked (sk_live_abcd…wxyz), except in the answer that creates the key',
    },
    balance: { type: 'number', description: 'Rubles available' },
    held: { type: 'number', description: 'Rubles held by running tasks and chat calls' },
    allowed_models: { type: ['array', 'null'], items: { type: 'string' }, description: 'null = every model' },
    allowed_ip_cidrs: {
      type: ['array', 'null'],
      items: { type: 'string' },
      description: 'null = any address',
    },
    rate_limit_per_min: { type: ['integer', 'null'], description: 'null = the default' },
    expires_at: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'From then on the key answers 401 key_expired; null = never',
    },
    spend_limit_rub: { type: ['number', 'null'], description: 'Spend cap per period; null = none' },
    spend_limit_period: { type: ['string', 'null'], enum: ['day', 'week', 'month', 'total', null] },
    spent_in_period_rub: {
      type: ['number', 'null'],
      description: 'Held or spent in the current period (null without a cap)',
    },
    created_at: { type: 'string', format: 'date-time' },
  },
  required: [
    'id',
    'name',
    'key_value',
    'balance',
    'held',
    'allowed_models',
    'allowed_ip_cidrs',
    'rate_limit_per_min',
    'expires_at',
    'spend_limit_rub',
    'spend_limit_period',
    'spent_in_period_rub',
    'created_at',
  ],
};

const catalogEntryProperties = {
  id: { type: 'string' },
  name: { type: 'string' },
  provider: { type: 'string' },
  kind: { type: 'string', enum: ['video', 'image', 'text'] },
  unit: {
    type: 'string',
    enum: ['shot', 'sec', 'mtok'],
    description: 'What priceRub is per: a result, a second of video, 1M input tokens',
  },
  priceRub: { type: ['number', 'null'], description: 'Rubles per unit' },
  priceOutputRub: { type: ['number', 'null'], description: 'Text models: rubles per 1M output tokens' },
  vision: { type: 'boolean', description: 'Text models: accepts image input' },
};

const catalogEntrySchema: JsonSchema = {
  type: 'object',
  properties: catalogEntryProperties,
  required: ['id', 'name', 'provider', 'kind', 'unit', 'priceRub'],
};

const modelDetailSchema: JsonSchema = {
  type: 'object',
  properties: {
    ...catalogEntryProperties,
    params_schema: {
      type: ['object', 'null'],
      description: 'JSON Schema of `params` for POST /generate (null for text models)',
    },
    example: { type: 'object', description: 'A request body to POST to example_endpoint as is' },
    example_endpoint: { type: 'string', enum: ['/generate', '/v1/chat/completions'] },
  },
  required: [
    'id',
    'name',
    'provider',
    'kind',
    'unit',
    'priceRub',
    'params_schema',
    'example',
    'example_endpoint',
  ],
};

const adminModelSchema: JsonSchema = {
  type: 'object',
  properties: {
    ...catalogEntryProperties,
    active: { type: 'boolean' },
    visible: { type: 'boolean' },
    route: {
      type: ['object', 'null'],
      properties: { provider: { type: 'string' }, model: { type: 'string' } },
    },
    params_schema: { type: ['object', 'null'] },
    billing: { type: ['object', 'null'] },
  },
  required: ['id', 'name', 'provider', 'kind', 'unit', 'priceRub', 'active', 'visible', 'params_schema'],
};

const webhookDeliverySchema: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    task_id: { type: 'string' },
    url: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'delivered', 'undelivered'] },
    attempts: { type: 'integer' },
    next_attempt_at: { type: ['string', 'null'], format: 'date-time' },
    last_status_code: { type: ['integer', 'null'] },
    last_error: { type: ['string', 'null'] },
    created_at: { type: ['string', 'null'], format: 'date-time' },
    updated_at: { type: ['string', 'null'], format: 'date-time' },
    delivered_at: { type: ['string', 'null'], format: 'date-time' },
  },
  required: ['id', 'task_id', 'url', 'status', 'attempts'],
};

const providerAccountSchema: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'The provider name in PROVIDERS_FILE (one upstream account)' },
    type: { type: 'string', description: 'Its adapter type (fal, replicate, kling, …)' },
    state: {
      type: 'string',
      enum: ['up', 'cooling', 'down'],
      description:
        'up; cooling: skipped after failing submits, then probed; down: auth or billing refused, re-checked',
    },
    in_flight: { type: 'integer', description: 'Jobs in flight at the account, across every worker' },
    max_concurrency: { type: ['integer', 'null'], description: 'Its cap of jobs in flight (null: none)' },
    last_error: { type: ['string', 'null'] },
    checked_at: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'The last re-check of a down account, or the last change of state',
    },
  },
  required: ['name', 'type', 'state', 'in_flight', 'last_error', 'checked_at'],
};

const accountProperties = {
  messaging_id: { type: 'integer' },
  coefficient: { type: 'number', description: 'Price multiplier of the account (1 = catalog prices)' },
  keys: { type: 'array', items: ref('Key') },
};

/** The entity schemas, named so that generated clients get one type each. */
export const sharedSchemas: Record<string, JsonSchema> = {
  Error: errorSchema,
  Task: {
    ...(taskSchema as unknown as JsonSchema),
    properties: { ...(taskSchema.properties as JsonSchema), result: ref('TaskResult') },
  },
  TaskResult: {
    type: ['object', 'null'],
    description:
      'null until completed. A video: {video_url, duration}; an image: {image_url, width, height}, and `images` when there are several. URLs are served by GET /objects/{name}.',
    properties: {
      video_url: { type: 'string', format: 'uri' },
      duration: { type: ['integer', 'null'], description: 'Seconds of video' },
      image_url: { type: 'string', format: 'uri' },
      width: { type: ['integer', 'null'] },
      height: { type: ['integer', 'null'] },
      images: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            url: { type: 'string', format: 'uri' },
            width: { type: ['integer', 'null'] },
            height: { type: ['integer', 'null'] },
          },
          required: ['url', 'width', 'height'],
        },
      },
      deleted_at: {
        type: 'string',
        format: 'date-time',
        description: 'Set once DELETE /v1/videos/{id} removed the file',
      },
    },
    additionalProperties: true,
  },
  WebhookEvent: {
    description:
      "The body of a task's webhook: its final state, sent once it is final, to the task's webhook_url. Signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature headers).",
    oneOf: [
      {
        type: 'object',
        properties: {
          task_id: { type: 'string' },
          status: { type: 'string', const: 'completed' },
          result: ref('TaskResult'),
        },
        required: ['task_id', 'status', 'result'],
        additionalProperties: false,
      },
      {
        type: 'object',
        properties: {
          task_id: { type: 'string' },
          status: { type: 'string', const: 'failed' },
          error: { type: 'string', description: 'Why the task failed, as in GET /tasks/{task_id}' },
        },
        required: ['task_id', 'status', 'error'],
        additionalProperties: false,
      },
    ],
  },
  TaskList: {
    type: 'object',
    properties: {
      object: { type: 'string', enum: ['list'] },
      data: { type: 'array', items: ref('Task') },
      has_more: { type: 'boolean' },
      next_cursor: { type: ['string', 'null'], description: 'Pass as `after` for the next page' },
    },
    required: ['object', 'data', 'has_more', 'next_cursor'],
  },
  TaskCreated: {
    type: 'object',
    properties: { task_id: { type: 'string', format: 'uuid' } },
    required: ['task_id'],
  },
  Key: keySchema,
  KeyCreated: { ...keySchema, description: 'A new key: key_value is the full key, shown this once' },
  Account: {
    type: 'object',
    properties: accountProperties,
    required: ['messaging_id', 'coefficient', 'keys'],
  },
  AdminAccount: {
    type: 'object',
    properties: { ...accountProperties, webhook_secret: { type: 'string', description: 'whsec_…' } },
    required: ['messaging_id', 'coefficient', 'webhook_secret', 'keys'],
  },
  CatalogModel: catalogEntrySchema,
  ModelDetail: modelDetailSchema,
  AdminModel: adminModelSchema,
  WebhookDelivery: webhookDeliverySchema,
  ProviderAccount: providerAccountSchema,
  Video: openAiVideoSchema as unknown as JsonSchema,
  OpenAiModel: openAiModelSchema as unknown as JsonSchema,
};

/** Response headers, by name in components.headers. */
export const sharedHeaders: Record<string, JsonSchema> = {
  'X-Request-Id': {
    description: "The request's id: the client's X-Request-Id when it is a sane token, else the server's",
    schema: { type: 'string' },
  },
  'X-Api-Version': { description: 'The API version (semver)', schema: { type: 'string' } },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
  'RateLimit-Limit': { description: 'Requests per window of the calling key', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the window', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window resets', schema: { type: 'integer' } },
  'RateLimit-Policy': { description: 'limit;w=window seconds', schema: { type: 'string' } },
  'Idempotent-Replayed': {
    description: 'true when this is the stored answer of an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
};

/** Request headers, by name in components.parameters. */
export const sharedParameters: Record<string, JsonSchema> = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes a retry safe: the same key with the same body within 24 h answers the first answer again (Idempotent-Replayed: true) and never creates a second task. 8 to 256 printable ASCII characters.',
    schema: { type: 'string', minLength: 8, maxLength: 256 },
  },
  XRequestId: {
    name: 'X-Request-Id',
    in: 'header',
    required: false,
    description: 'Your id for this request ([A-Za-z0-9._:-], at most 128): logged and echoed back',
    schema: { type: 'string', maxLength: 128, pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  },
};

export const securitySchemes: Record<string, JsonSchema> = {
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key: `Authorization: Bearer sk_live_…`',
  },
  adminToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      'The operator token (ADMIN_TOKEN): `Authorization: Bearer …`. Without ADMIN_TOKEN the admin API answers 404.',
  },
};
