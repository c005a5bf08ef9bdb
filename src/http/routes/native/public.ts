// Unauthenticated reads: the catalog (native and OpenAI shapes) and the health check.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../context.js';
import { isPublic } from '../../../domain/catalog/model.js';
import { AppError } from '../../../domain/errors.js';
import { sendError, toAppError } from '../../errors.js';
import { anthropicModelPage } from '../../presenters/anthropic-models.js';
import {
  presentCatalogEntry,
  presentOpenAiModel,
  presentPublicModelDetail,
} from '../../presenters/catalog.js';
import { sendAnthropicError } from '../anthropic/errors.js';

const catalogEntrySchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    provider: { type: 'string' },
    kind: { type: 'string' },
    unit: { type: 'string' },
    priceRub: { type: ['number', 'null'] },
    priceOutputRub: { type: ['number', 'null'] },
    priceCacheWriteRub: { type: ['number', 'null'] },
    priceCacheReadRub: { type: ['number', 'null'] },
    priceWebSearchRub: { type: ['number', 'null'] },
    priceWebFetchRub: { type: ['number', 'null'] },
    vision: { type: 'boolean' },
  },
  required: ['id', 'name', 'provider', 'kind', 'unit', 'priceRub'],
} as const;

export function registerPublicRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/public/models',
    {
      config: { access: 'public' },
      schema: {
        tags: ['catalog'],
        summary: 'Active public models with prices in rubles',
        response: { 200: { type: 'array', items: catalogEntrySchema } },
      },
    },
    async () => (await ctx.catalog.publicModels()).map(presentCatalogEntry),
  );

  app.get<{ Params: { id: string } }>(
    '/public/models/:id',
    {
      config: { access: 'public' },
      schema: {
        tags: ['catalog'],
        summary: 'One public model: its price, its params JSON Schema and an example request body',
        description:
          'Answers 404 model_not_found for an unknown, internal, inactive, hidden or unpriced model. POST `example` to `example_endpoint` as is.',
        params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        response: {
          200: {
            type: 'object',
            properties: {
              ...catalogEntrySchema.properties,
              params_schema: { type: ['object', 'null'], additionalProperties: true },
              example: { type: 'object', additionalProperties: true },
              example_endpoint: { type: 'string', enum: ['/generate', '/v1/chat/completions'] },
            },
            required: [...catalogEntrySchema.required, 'params_schema', 'example', 'example_endpoint'],
          },
        },
      },
    },
    async (request) => {
      const { id } = request.params;
      const model = await ctx.catalog.get(id);
      if (!model || !isPublic(model)) throw new AppError('model_not_found', `Model not found: ${id}`, null);
      return presentPublicModelDetail(model);
    },
  );

  app.get<{ Querystring: { limit?: string; after_id?: string; before_id?: string } }>(
    '/v1/models',
    {
      config: { access: 'public' },
      schema: {
        tags: ['openai', 'anthropic'],
        summary: "Model list in OpenAI's shape, or Anthropic's when the request carries anthropic-version",
        description:
          "Anthropic's shape (data[].type = model, display_name, created_at; has_more, first_id, last_id; " +
          'limit, after_id, before_id) lists the text models, which POST /v1/messages serves.',
        response: {
          200: {
            type: 'object',
            properties: {
              object: { type: 'string' },
              data: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    id: { type: 'string' },
                    object: { type: 'string' },
                    created: { type: 'integer' },
                    owned_by: { type: 'string' },
                    type: { type: 'string' },
                    display_name: { type: 'string' },
                    created_at: { type: 'string' },
                  },
                },
              },
              has_more: { type: 'boolean' },
              first_id: { type: ['string', 'null'] },
              last_id: { type: ['string', 'null'] },
            },
          },
        },
      },
      errorHandler: anthropicErrorHandlerWhenAsked,
    },
    async (request) => {
      const models = await ctx.catalog.publicModels();
      if (request.headers['anthropic-version'] === undefined)
        return { object: 'list', data: models.map(presentOpenAiModel) };
      return anthropicModelPage(
        models.filter((model) => model.kind === 'text'),
        request.query,
      );
    },
  );

  app.get('/healthz', { config: { access: 'system' }, schema: { hide: true } }, async () => {
    await ctx.storage.settings.get('maintenance');
    return { status: 'ok' };
  });
}

/** Errors of GET /v1/models in Anthropic's shape for Anthropic's clients (anthropic-version set). */
function anthropicErrorHandlerWhenAsked(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const appError = toAppError(error);
  if (request.headers['anthropic-version'] !== undefined) return sendAnthropicError(reply, appError);
  return sendError(reply, appError);
}
