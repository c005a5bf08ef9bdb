// What the document says about each operation beyond what Fastify knows: its request body, its
// success answers with their real status codes, the error codes its handler can answer (the guard's
// and the JSON reader's are added by route access), query parameters and idempotency. Keyed by
// "METHOD /openapi/{path}". Documentation only: the routes validate bodies by hand, in the order of
// DESIGN.md §4, and nothing here changes what a request is checked against.
import type { ErrorCode } from '../../domain/errors.js';
import { type JsonSchema, ref } from './components.js';
import { hookBody, hookReceived } from './hook-docs.js';
import type { OperationDoc } from './operation-doc.js';
import { PAYMENT_OPERATIONS } from './payment-operations.js';

export type { BodyDoc, OperationDoc, SuccessDoc } from './operation-doc.js';

const rubles = (description: string): JsonSchema => ({ type: 'number', description });
const nullableStrings = (description: string): JsonSchema => ({
  type: ['array', 'null'],
  items: { type: 'string' },
  description,
});

const keyRestrictions = {
  allowed_models: nullableStrings('Public model ids this key may use; null = all'),
  allowed_ip_cidrs: nullableStrings('IPv4/IPv6 CIDRs or addresses the key may be used from; null = any'),
  rate_limit_per_min: {
    type: ['integer', 'null'],
    minimum: 1,
    description: 'Requests per minute; null = the default (600)',
  },
  expires_at: {
    type: ['string', 'null'],
    format: 'date-time',
    description: 'From then on the key answers 401 key_expired; null = never',
  },
  spend_limit_rub: {
    type: ['number', 'string', 'null'],
    description:
      'Rubles the key may spend per spend_limit_period (402 spend_limit_reached past it); null = no cap',
  },
  spend_limit_period: {
    type: ['string', 'null'],
    enum: ['day', 'week', 'month', 'total', null],
    description:
      'UTC day, ISO week (from Monday), calendar month, or the whole life of the key; default month',
  },
};

const chatMessage: JsonSchema = {
  type: 'object',
  properties: {
    role: { type: 'string', enum: ['system', 'developer', 'user', 'assistant', 'tool'] },
    content: {
      description:
        'Text, or an array of parts ({type: "text", text} or {type: "image_url", image_url: {url}} for vision models)',
      oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'object' } }, { type: 'null' }],
    },
    name: { type: 'string' },
    tool_calls: { type: 'array', items: { type: 'object' } },
    tool_call_id: { type: 'string' },
  },
  required: ['role'],
};

const chatRequest: JsonSchema = {
  type: 'object',
  description:
    'OpenAI chat-completions body. Only known fields reach the upstream (the list and what is billed: docs/chat.md); any other answers 422 unknown_field, and fields billed beyond the token prices (best_of, audio output, web_search_options, priority tiers) 400 unsupported_parameter.',
  properties: {
    model: { type: 'string', description: 'A text model id (GET /v1/models)', examples: ['gpt-4o-mini'] },
    messages: { type: 'array', items: chatMessage, minItems: 1 },
    stream: { type: 'boolean', default: false },
    stream_options: { type: 'object', properties: { include_usage: { type: 'boolean' } } },
    max_tokens: { type: 'integer', minimum: 1 },
    max_completion_tokens: { type: 'integer', minimum: 1 },
    n: {
      type: 'integer',
      minimum: 1,
      maximum: 128,
      default: 1,
      description: 'Choices to generate: the hold and the charge cover every one',
    },
    temperature: { type: 'number' },
    top_p: { type: 'number' },
    stop: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
    tools: { type: 'array', items: { type: 'object' } },
    tool_choice: { oneOf: [{ type: 'string' }, { type: 'object' }] },
    parallel_tool_calls: { type: 'boolean' },
    response_format: { type: 'object' },
    user: { type: 'string' },
  },
  required: ['model', 'messages'],
  additionalProperties: true,
};

const chatCompletion: JsonSchema = {
  type: 'object',
  description: 'OpenAI chat.completion object; usage is what was billed',
  properties: {
    id: { type: 'string' },
    object: { type: 'string', enum: ['chat.completion'] },
    created: { type: 'integer' },
    model: { type: 'string' },
    choices: { type: 'array', items: { type: 'object' } },
    usage: {
      type: 'object',
      properties: {
        prompt_tokens: { type: 'integer' },
        completion_tokens: { type: 'integer' },
        total_tokens: { type: 'integer' },
      },
    },
  },
  required: ['id', 'object', 'created', 'model', 'choices'],
};

const sse = (description: string): JsonSchema => ({ type: 'string', description });

const responsesRequest: JsonSchema = {
  type: 'object',
  description:
    'OpenAI Responses body. Nothing is stored (store: false): previous_response_id, item_reference and built-in tools are refused.',
  properties: {
    model: { type: 'string', examples: ['gpt-4o-mini'] },
    input: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'object' } }] },
    instructions: { type: 'string' },
    stream: { type: 'boolean', default: false },
    max_output_tokens: { type: 'integer', minimum: 1 },
    temperature: { type: 'number' },
    top_p: { type: 'number' },
    tools: { type: 'array', items: { type: 'object' } },
    tool_choice: { oneOf: [{ type: 'string' }, { type: 'object' }] },
    text: { type: 'object' },
    reasoning: { type: 'object' },
    metadata: { type: 'object' },
    store: { type: 'boolean', enum: [false] },
  },
  required: ['model', 'input'],
  additionalProperties: true,
};

const imageRequest: JsonSchema = {
  type: 'object',
  properties: {
    model: {
      type: 'string',
      description: 'An image model id; default gpt-image-1',
      examples: ['gpt-image-1'],
    },
    prompt: { type: 'string' },
    size: { type: 'string', description: 'W:H or pixels such as 1024x1024; auto keeps the model default' },
    n: { type: 'integer', enum: [1] },
    response_format: { type: 'string', enum: ['url', 'b64_json'], default: 'url' },
    extra_body: { type: 'object', description: 'Native parameters of the model (its params component)' },
  },
  required: ['prompt'],
  additionalProperties: true,
};

const imagesAnswer: JsonSchema = {
  type: 'object',
  properties: {
    created: { type: 'integer' },
    data: {
      type: 'array',
      items: { type: 'object', properties: { url: { type: 'string' }, b64_json: { type: 'string' } } },
    },
  },
  required: ['created', 'data'],
};

const videoRequest: JsonSchema = {
  type: 'object',
  properties: {
    model: { type: 'string', description: 'A video model id; default sora-2', examples: ['sora-2'] },
    prompt: { type: 'string' },
    seconds: { oneOf: [{ type: 'string' }, { type: 'integer' }], description: 'The duration in seconds' },
    size: { type: 'string', description: 'W:H or pixels such as 1280x720' },
    input_reference: { type: 'object', properties: { image_url: { type: 'string', format: 'uri' } } },
    extra_body: { type: 'object', description: 'Native parameters of the model (its params component)' },
  },
  required: ['prompt'],
  additionalProperties: true,
};

const dateQuery = (description: string) => ({ type: 'string', format: 'date', description });

/** The model-independent part of every media creation (before the params are checked). */
const CREATE_TASK_ERRORS: ErrorCode[] = [
  'unknown_field',
  'model_name_required',
  'model_not_found',
  'model_not_allowed',
  'model_kind_not_supported',
  'model_has_no_price',
  'missing_parameter',
  'invalid_parameter',
  'webhook_url_not_allowed',
  'insufficient_balance',
  'spend_limit_reached',
];
const IDEMPOTENCY_ERRORS: ErrorCode[] = [
  'idempotency_key_invalid',
  'idempotency_key_reused',
  'idempotency_in_progress',
];
const CHAT_ERRORS: ErrorCode[] = [
  'missing_parameter',
  'invalid_parameter',
  'unsupported_parameter',
  'model_name_required',
  'model_not_found',
  'model_not_allowed',
  'model_kind_not_supported',
  'model_has_no_price',
  'vision_not_supported',
  'insufficient_balance',
  'spend_limit_reached',
  'upstream_rejected_request',
  'upstream_error',
  'upstream_timeout',
];

/** The fields of a Messages request the gateway reads; every other field is passed on as sent. */
const messagesRequest: JsonSchema = {
  type: 'object',
  required: ['model', 'max_tokens', 'messages'],
  properties: {
    model: { type: 'string' },
    max_tokens: { type: 'integer', minimum: 1 },
    messages: {
      type: 'array',
      items: {
        type: 'object',
        properties: { role: { type: 'string', enum: ['user', 'assistant'] }, content: {} },
        required: ['role', 'content'],
      },
    },
    system: {},
    stream: { type: 'boolean' },
    tools: { type: 'array', items: { type: 'object' } },
  },
  additionalProperties: true,
};

export const OPERATIONS: Record<string, OperationDoc> = {
  ...PAYMENT_OPERATIONS,
  // Catalog
  'GET /public/models': {
    operationId: 'listPublicModels',
    success: [
      {
        status: 200,
        description: 'Active public models with prices in rubles',
        schema: { type: 'array', items: ref('CatalogModel') },
      },
    ],
  },
  'GET /public/models/{id}': {
    operationId: 'getPublicModel',
    success: [
      {
        status: 200,
        description: 'The model, its params schema and an example body',
        schema: ref('ModelDetail'),
      },
    ],
    errors: ['model_not_found'],
  },
  'GET /v1/models': {
    operationId: 'listOpenAiModels',
    success: [{ status: 200, description: 'OpenAI model list', schema: 'route' }],
  },
  'GET /v1/models/{model}': {
    operationId: 'getOpenAiModel',
    success: [{ status: 200, description: 'OpenAI model object', schema: ref('OpenAiModel') }],
    errors: ['model_not_found'],
  },

  // Key holders
  'GET /me/keys': {
    operationId: 'getAccount',
    success: [
      { status: 200, description: 'The account of the calling key, its keys masked', schema: ref('Account') },
    ],
  },
  'GET /me/balance': {
    operationId: 'getBalance',
    success: [
      {
        status: 200,
        description: 'Available balance of the calling key',
        schema: {
          type: 'object',
          properties: { key_balance: rubles('Rubles available') },
          required: ['key_balance'],
        },
      },
    ],
  },
  'GET /me/usage': {
    operationId: 'getUsage',
    success: [
      { status: 200, description: 'Requests, spend and tokens per model and UTC day', schema: 'route' },
    ],
    errors: ['invalid_parameter'],
    query: [
      {
        name: 'from',
        description: 'First day (UTC), included; default 29 days before `to`',
        schema: dateQuery('YYYY-MM-DD'),
      },
      { name: 'to', description: 'Last day (UTC), included; default today', schema: dateQuery('YYYY-MM-DD') },
    ],
  },

  // Tasks
  'POST /generate': {
    operationId: 'createTask',
    description:
      'Creates a video or image task: the parameters of one model inside `params`, selected by `params.model_name` (GenerateRequest). The cost is held on the key in the same transaction as the task and answers 202 with the task id; poll GET /tasks/{task_id} or pass `params.webhook_url`. A failed task returns the hold. Checks run in this order: Idempotency-Key 400 → replay / 422 mismatch → body 400 → model_name 422 → unknown model 404 → allowed_models 403 → no price 422 → params 400/422 → balance 402.',
    body: { schema: ref('GenerateRequest'), required: true },
    success: [
      {
        status: 202,
        description: 'The task is created and its cost held',
        schema: ref('TaskCreated'),
        headers: ['Idempotent-Replayed'],
      },
    ],
    errors: [...IDEMPOTENCY_ERRORS, ...CREATE_TASK_ERRORS],
    errorExamples: {
      unknown_field: {
        message:
          'Unknown field: model_name. Put the generation parameters inside "params": {"params": {"model_name": …}}',
        param: 'model_name',
      },
      model_not_found: {
        message:
          'Model not found or inactive: Seedance-2. Did you mean "seedance-2"? GET /public/models lists the models',
        param: 'model_name',
      },
      missing_parameter: { message: 'prompt is required', param: 'prompt' },
      invalid_parameter: {
        message: 'duration must be an integer. Send the number without quotes: 5, not "5"',
        param: 'duration',
      },
      insufficient_balance: {
        message:
          'Balance is below the cost of this request (45 RUB). This key has 10.5 RUB available (GET /me/balance)',
        param: null,
      },
    },
    idempotent: true,
  },
  'GET /tasks': {
    operationId: 'listTasks',
    success: [{ status: 200, description: 'A page of tasks, newest first', schema: ref('TaskList') }],
    errors: ['invalid_parameter'],
    query: [
      {
        name: 'limit',
        description: 'Tasks per page',
        schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
      },
      {
        name: 'after',
        description: "The previous page's next_cursor (a task id)",
        schema: { type: 'string' },
      },
      {
        name: 'status',
        description: 'Only tasks in this state',
        schema: { type: 'string', enum: ['pending', 'processing', 'completed', 'failed'] },
      },
      { name: 'model', description: 'Only tasks of this model_name', schema: { type: 'string' } },
    ],
  },
  'GET /tasks/{task_id}': {
    operationId: 'getTask',
    success: [{ status: 200, description: 'The task', schema: ref('Task') }],
    errors: ['task_not_found'],
  },
  'GET /objects/{name}': {
    operationId: 'getObject',
    description:
      'The URL itself is the capability: no key. Supports Range (206) and answers with the stored Content-Type.',
    success: [
      {
        status: 200,
        description: 'The file',
        content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
      },
      {
        status: 206,
        description: 'The requested byte range',
        content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
      },
    ],
    errors: ['not_found', 'range_not_satisfiable'],
  },

  // OpenAI surface
  'POST /v1/chat/completions': {
    operationId: 'createChatCompletion',
    body: {
      schema: chatRequest,
      required: true,
      examples: {
        chat: {
          summary: 'A short chat',
          value: {
            model: 'gpt-4o-mini',
            messages: [{ role: 'user', content: 'Say hello in one sentence.' }],
          },
        },
      },
    },
    success: [
      {
        status: 200,
        description:
          'The completion (JSON), or with stream: true its chunks as server-sent events ending in data: [DONE]',
        content: {
          'application/json': { schema: chatCompletion },
          'text/event-stream': { schema: sse('data: {chat.completion.chunk}… then data: [DONE]') },
        },
      },
    ],
    errors: CHAT_ERRORS,
  },
  'POST /v1/responses': {
    operationId: 'createResponse',
    body: {
      schema: responsesRequest,
      required: true,
      examples: {
        text: {
          summary: 'A short answer',
          value: { model: 'gpt-4o-mini', input: 'Say hello in one sentence.' },
        },
      },
    },
    success: [
      {
        status: 200,
        description:
          'The Response object, or with stream: true its events (response.created … response.completed)',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: { id: { type: 'string' }, object: { type: 'string', enum: ['response'] } },
            },
          },
          'text/event-stream': { schema: sse('event: response.* / data: {…}') },
        },
      },
    ],
    errors: CHAT_ERRORS,
  },
  'POST /v1/messages': {
    operationId: 'createMessage',
    summary: 'Create a message (Anthropic Messages API), streaming with stream: true',
    anthropicErrors: true,
    body: {
      schema: messagesRequest,
      required: true,
      examples: {
        text: {
          summary: 'A short answer',
          value: {
            model: 'claude-sonnet-4-5',
            max_tokens: 256,
            messages: [{ role: 'user', content: 'Say hello in one sentence.' }],
          },
        },
      },
    },
    success: [
      {
        status: 200,
        description:
          'The Message, or with stream: true its events (message_start … message_stop) as server-sent events',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: { id: { type: 'string' }, type: { type: 'string', enum: ['message'] } },
            },
          },
          'text/event-stream': { schema: sse('event: message_start / data: {…} … event: message_stop') },
        },
      },
    ],
    errors: [...CHAT_ERRORS, 'upstream_overloaded'],
  },
  'POST /v1/messages/count_tokens': {
    operationId: 'countMessageTokens',
    anthropicErrors: true,
    body: { schema: messagesRequest, required: true },
    success: [
      {
        status: 200,
        description: 'The input tokens of the request (nothing is charged)',
        schema: {
          type: 'object',
          properties: { input_tokens: { type: 'integer' } },
          required: ['input_tokens'],
        },
      },
    ],
    errors: CHAT_ERRORS,
  },
  'POST /v1/images/generations': {
    operationId: 'createImage',
    body: {
      schema: imageRequest,
      required: true,
      examples: {
        image: {
          summary: 'One image',
          value: { model: 'gpt-image-1', prompt: 'a lighthouse at dawn', size: '1024x1024' },
        },
      },
    },
    success: [
      {
        status: 200,
        description: 'The image, once its task is done',
        schema: imagesAnswer,
        headers: ['Idempotent-Replayed'],
      },
    ],
    errors: [
      ...IDEMPOTENCY_ERRORS,
      ...CREATE_TASK_ERRORS,
      'upstream_error',
      'provider_timeout',
      'upstream_overloaded',
      'content_policy_violation',
      'upstream_timeout',
    ],
    idempotent: true,
  },
  'POST /v1/videos': {
    operationId: 'createVideo',
    body: {
      schema: videoRequest,
      required: true,
      alsoAs: ['multipart/form-data'],
      examples: {
        video: {
          summary: 'Four seconds of sora-2',
          value: { model: 'sora-2', prompt: 'a lighthouse at dawn', seconds: '4', size: '1280x720' },
        },
      },
    },
    success: [
      {
        status: 200,
        description: 'The video object, status queued',
        schema: ref('Video'),
        headers: ['Idempotent-Replayed'],
      },
    ],
    errors: [...IDEMPOTENCY_ERRORS, ...CREATE_TASK_ERRORS],
    idempotent: true,
  },
  'GET /v1/videos': {
    operationId: 'listVideos',
    success: [{ status: 200, description: 'A page of videos', schema: 'route' }],
    errors: ['invalid_parameter'],
    query: [
      {
        name: 'limit',
        description: 'Videos per page',
        schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
      },
      {
        name: 'after',
        description: 'The id of the last video of the previous page',
        schema: { type: 'string' },
      },
      {
        name: 'order',
        description: 'By creation time',
        schema: { type: 'string', enum: ['asc', 'desc'], default: 'desc' },
      },
    ],
  },
  'GET /v1/videos/{video_id}': {
    operationId: 'getVideo',
    success: [{ status: 200, description: 'The video object', schema: ref('Video') }],
    errors: ['not_found'],
  },
  'DELETE /v1/videos/{video_id}': {
    operationId: 'deleteVideo',
    success: [{ status: 200, description: 'The media is deleted; the charge stays', schema: 'route' }],
    errors: ['not_found', 'video_not_ready'],
  },
  'GET /v1/videos/{video_id}/content': {
    operationId: 'getVideoContent',
    success: [
      {
        status: 200,
        description: 'The MP4',
        content: { 'video/mp4': { schema: { type: 'string', format: 'binary' } } },
      },
      {
        status: 206,
        description: 'The requested byte range',
        content: { 'video/mp4': { schema: { type: 'string', format: 'binary' } } },
      },
    ],
    errors: ['not_found', 'video_not_ready', 'range_not_satisfiable'],
    query: [
      {
        name: 'variant',
        description: 'Only video is available',
        schema: { type: 'string', enum: ['video'], default: 'video' },
      },
    ],
  },

  // Admin API (DESIGN.md §5)
  'POST /admin/accounts': {
    operationId: 'adminCreateAccount',
    summary: 'Create an account',
    body: {
      schema: {
        type: 'object',
        properties: {
          messaging_id: { type: 'integer', minimum: 1 },
          coefficient: { type: 'number', exclusiveMinimum: 0, default: 1, description: 'Price multiplier' },
        },
        required: ['messaging_id'],
        additionalProperties: false,
      },
      required: true,
      examples: { account: { value: { messaging_id: 42 } } },
    },
    success: [{ status: 201, description: 'The account', schema: ref('AdminAccount') }],
    errors: ['unknown_field', 'invalid_parameter', 'account_exists'],
  },
  'GET /admin/accounts/{messaging_id}': {
    operationId: 'adminGetAccount',
    summary: 'An account with its webhook secret and its keys (masked)',
    success: [{ status: 200, description: 'The account', schema: ref('AdminAccount') }],
    errors: ['invalid_parameter'],
  },
  'PATCH /admin/accounts/{messaging_id}': {
    operationId: 'adminUpdateAccount',
    summary: "Change an account's coefficient or low-balance notice threshold (null clears)",
    body: {
      schema: {
        type: 'object',
        properties: {
          coefficient: { type: ['number', 'string', 'null'], description: 'Price multiplier; null = 1' },
          low_balance_rub: {
            type: ['number', 'string', 'null'],
            description: "Telegram notice when a key's funds (balance + held) fall below this; null = none",
          },
        },
        additionalProperties: false,
      },
      required: true,
      examples: { notice: { value: { low_balance_rub: 100 } } },
    },
    success: [{ status: 200, description: 'The account', schema: ref('AdminAccount') }],
    errors: ['unknown_field', 'invalid_parameter'],
  },
  'POST /admin/accounts/{messaging_id}/keys': {
    operationId: 'adminCreateKey',
    summary: 'Create a key; the only answer with the full key_value',
    body: {
      schema: {
        type: 'object',
        properties: { name: { type: ['string', 'null'], maxLength: 100 }, ...keyRestrictions },
        additionalProperties: false,
      },
      examples: { key: { value: { name: 'prod', rate_limit_per_min: 120 } } },
    },
    success: [{ status: 201, description: 'The key, key_value in full', schema: ref('KeyCreated') }],
    errors: ['unknown_field', 'invalid_parameter'],
  },
  'POST /admin/accounts/{messaging_id}/webhook-secret/rotate': {
    operationId: 'adminRotateWebhookSecret',
    summary: "Rotate the account's webhook secret; the previous one stays valid for 24 h",
    success: [
      {
        status: 200,
        description: 'The new secret',
        schema: {
          type: 'object',
          properties: {
            webhook_secret: { type: 'string' },
            previous_valid_until: { type: 'string', format: 'date-time' },
          },
          required: ['webhook_secret', 'previous_valid_until'],
        },
      },
    ],
    errors: ['invalid_parameter'],
  },
  'POST /admin/accounts/{messaging_id}/login-link': {
    operationId: 'adminCreateLoginLink',
    summary: 'A one-time panel sign-in link, valid 15 minutes',
    success: [
      {
        status: 201,
        description: 'The link',
        schema: {
          type: 'object',
          properties: {
            url: { type: 'string', format: 'uri' },
            expires_at: { type: 'string', format: 'date-time' },
          },
          required: ['url', 'expires_at'],
        },
      },
    ],
    errors: ['invalid_parameter'],
  },
  'PATCH /admin/keys/{id}': {
    operationId: 'adminUpdateKey',
    summary: "Change a key's restrictions and limits (null clears one)",
    body: {
      schema: { type: 'object', properties: keyRestrictions, additionalProperties: false },
      required: true,
      examples: { restrict: { value: { allowed_models: ['seedance-2'], rate_limit_per_min: null } } },
    },
    success: [{ status: 200, description: 'The key', schema: ref('Key') }],
    errors: ['unknown_field', 'invalid_parameter'],
  },
  'DELETE /admin/keys/{id}': {
    operationId: 'adminDeleteKey',
    summary: 'Delete a key; it answers 401 from then on',
    success: [{ status: 204, description: 'Deleted' }],
  },
  'POST /admin/keys/{id}/topup': {
    operationId: 'adminTopup',
    summary: 'Add rubles to a key',
    body: {
      schema: {
        type: 'object',
        properties: {
          amount_rub: {
            type: 'number',
            exclusiveMinimum: 0,
            description: 'Rubles (not micro-rubles), at most 6 decimals',
          },
          note: { type: 'string', maxLength: 500 },
        },
        required: ['amount_rub'],
        additionalProperties: false,
      },
      required: true,
      examples: { topup: { value: { amount_rub: 500, note: 'invoice 17' } } },
    },
    success: [
      {
        status: 200,
        description: 'The new balance',
        schema: {
          type: 'object',
          properties: { balance: rubles('Rubles available') },
          required: ['balance'],
        },
      },
    ],
    errors: ['unknown_field', 'missing_parameter', 'invalid_parameter'],
  },
  'PUT /admin/maintenance': {
    operationId: 'adminSetMaintenance',
    summary: 'Turn maintenance mode on or off',
    body: {
      schema: {
        type: 'object',
        properties: { enabled: { type: 'boolean' } },
        required: ['enabled'],
        additionalProperties: false,
      },
      required: true,
      examples: { on: { value: { enabled: true } } },
    },
    success: [
      {
        status: 200,
        description: 'The new state',
        schema: { type: 'object', properties: { enabled: { type: 'boolean' } }, required: ['enabled'] },
      },
    ],
    errors: ['unknown_field', 'invalid_parameter'],
  },
  'GET /admin/models': {
    operationId: 'adminListModels',
    summary: 'Every model, internal variants and inactive ones included',
    success: [
      { status: 200, description: 'The catalog', schema: { type: 'array', items: ref('AdminModel') } },
    ],
  },
  'PUT /admin/models/{id}': {
    operationId: 'adminPutModel',
    summary: 'Create or replace a catalog model',
    body: {
      schema: {
        type: 'object',
        properties: {
          id: { type: 'string', description: 'Must match the path when given' },
          name: { type: 'string' },
          provider: { type: 'string' },
          kind: { type: 'string', enum: ['video', 'image', 'text'] },
          unit: { type: 'string', enum: ['shot', 'sec', 'mtok'] },
          priceRub: {
            type: ['number', 'null'],
            description: 'Rubles per unit; null = no price (generation answers 422)',
          },
          priceOutputRub: { type: ['number', 'null'] },
          priceCacheWriteRub: { type: ['number', 'null'], description: 'null: 1.25× priceRub' },
          priceCacheReadRub: { type: ['number', 'null'], description: 'null: 0.1× priceRub' },
          priceWebSearchRub: { type: ['number', 'null'], description: 'Per 1,000 searches; null: refused' },
          priceWebFetchRub: { type: ['number', 'null'], description: 'Per 1,000 fetches; null: refused' },
          active: { type: 'boolean', default: true },
          visible: { type: 'boolean', default: true },
          vision: { type: 'boolean', default: false },
          route: {
            type: ['object', 'null'],
            properties: { provider: { type: 'string' }, model: { type: 'string' } },
          },
          params_schema: { type: ['object', 'null'], description: 'JSON Schema of the params' },
          billing: { type: ['object', 'null'] },
        },
        required: ['name', 'provider', 'kind', 'unit', 'priceRub'],
        additionalProperties: false,
      },
      required: true,
      examples: {
        image: {
          value: {
            name: 'My image model',
            provider: 'Acme',
            kind: 'image',
            unit: 'shot',
            priceRub: 3,
            params_schema: {
              type: 'object',
              properties: { model_name: { type: 'string' }, prompt: { type: 'string' } },
              required: ['prompt'],
            },
          },
        },
      },
    },
    success: [{ status: 200, description: 'The model', schema: ref('AdminModel') }],
    errors: ['unknown_field', 'invalid_parameter'],
  },
  'GET /admin/webhooks': {
    operationId: 'adminListWebhooks',
    summary: 'Webhook deliveries by status (default: those that ran out of attempts)',
    success: [
      { status: 200, description: 'Deliveries', schema: { type: 'array', items: ref('WebhookDelivery') } },
    ],
    errors: ['invalid_parameter'],
    query: [
      {
        name: 'status',
        description: 'Delivery state',
        schema: { type: 'string', enum: ['pending', 'delivered', 'undelivered'], default: 'undelivered' },
      },
      {
        name: 'limit',
        description: 'At most this many',
        schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
      },
    ],
  },
  'GET /admin/providers': {
    operationId: 'adminListProviders',
    summary: 'Provider accounts with their health (up, cooling, down) and jobs in flight',
    success: [
      {
        status: 200,
        description: 'Every PROVIDERS_FILE account',
        schema: {
          type: 'object',
          properties: { data: { type: 'array', items: ref('ProviderAccount') } },
          required: ['data'],
        },
      },
    ],
    errors: [],
  },
  'POST /admin/webhooks/{id}/redeliver': {
    operationId: 'adminRedeliverWebhook',
    summary: 'Deliver a webhook again (three new attempts)',
    success: [{ status: 200, description: 'The delivery', schema: ref('WebhookDelivery') }],
    errors: ['not_found'],
  },
  'GET /admin/reports/margin': {
    operationId: 'adminMarginReport',
    summary: 'Revenue, provider cost and margin per UTC day, model and provider',
    success: [
      {
        status: 200,
        description:
          'One row per day, model and provider; cost and margin null unless every request has a known cost',
        schema: {
          type: 'object',
          properties: {
            data: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  day: { type: 'string', format: 'date' },
                  model: { type: 'string' },
                  provider: { type: ['string', 'null'] },
                  requests: { type: 'integer' },
                  revenue_rub: rubles('Captured from balances'),
                  cost_rub: { type: ['number', 'null'], description: 'Provider cost; null when not known' },
                  margin_rub: {
                    type: ['number', 'null'],
                    description: 'Revenue minus cost; null when the cost is not known',
                  },
                },
                required: ['day', 'model', 'provider', 'requests', 'revenue_rub', 'cost_rub', 'margin_rub'],
              },
            },
          },
          required: ['data'],
        },
      },
    ],
    errors: ['invalid_parameter'],
    query: [
      {
        name: 'from',
        description: 'First UTC day (default: 29 days before `to`)',
        schema: dateQuery('First UTC day'),
      },
      {
        name: 'to',
        description: 'Last UTC day, included (default: today)',
        schema: dateQuery('Last UTC day'),
      },
    ],
  },

  // Probes, version, metrics, upstream callbacks: no key, and they answer in maintenance mode.
  'GET /healthz': {
    operationId: 'healthz',
    summary: 'Liveness: the process and its database answer',
    success: [
      {
        status: 200,
        description: 'Alive',
        schema: {
          type: 'object',
          properties: { status: { type: 'string', enum: ['ok'] } },
          required: ['status'],
        },
      },
    ],
  },
  'GET /readyz': {
    operationId: 'readyz',
    summary: 'Readiness: database and Redis reachable, migrations done',
    success: [
      {
        status: 200,
        description: 'Ready',
        schema: {
          type: 'object',
          properties: { status: { type: 'string', enum: ['ready'] }, checks: ref('ReadinessChecks') },
          required: ['status', 'checks'],
        },
      },
      {
        status: 503,
        description: 'Not ready: the error shape (code not_ready) plus the checks; with Retry-After',
        schema: {
          allOf: [
            ref('Error'),
            { type: 'object', properties: { checks: ref('ReadinessChecks') }, required: ['checks'] },
          ],
        },
        headers: ['Retry-After'],
      },
    ],
  },
  'GET /version': {
    operationId: 'version',
    summary: 'The API version (semver) and the package build',
    success: [
      {
        status: 200,
        description: 'Versions',
        schema: {
          type: 'object',
          properties: { api_version: { type: 'string' }, build: { type: 'string' } },
          required: ['api_version'],
        },
      },
    ],
  },
  'GET /metrics': {
    operationId: 'metrics',
    summary: 'Prometheus metrics of this process',
    success: [
      {
        status: 200,
        description: 'Prometheus text exposition format',
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
    ],
  },
  'GET /status.json': {
    operationId: 'status',
    success: [
      {
        status: 200,
        description: 'Health of each component and the last hour per model family',
        schema: 'route',
      },
    ],
  },
  'GET /status': {
    operationId: 'statusPage',
    success: [
      {
        status: 200,
        description: 'The status page',
        content: { 'text/html': { schema: { type: 'string' } } },
      },
    ],
  },
  'POST /hooks/{provider}': {
    operationId: 'providerCallback',
    summary: "An upstream provider's callback (for the providers, not for clients)",
    description:
      "A callback is only a hint to poll the job now: the result always comes from the provider's own API. The body is read raw, whatever its content type.",
    body: hookBody,
    success: hookReceived,
    errors: ['not_found', 'invalid_signature', 'payload_too_large'],
  },
};

export const extraSchemas: Record<string, JsonSchema> = {
  ReadinessChecks: {
    type: 'object',
    properties: Object.fromEntries(
      ['database', 'redis', 'migrations'].map((name) => [
        name,
        { type: 'string', enum: ['ok', 'not_configured', 'failed'] },
      ]),
    ),
    required: ['database', 'redis', 'migrations'],
  },
};
