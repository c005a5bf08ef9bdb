// Unauthenticated reads: the catalog (native and OpenAI shapes) and the health check.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { isPublic } from '../../../domain/catalog/model.js';
import { AppError } from '../../../domain/errors.js';
import {
  presentCatalogEntry,
  presentOpenAiModel,
  presentPublicModelDetail,
} from '../../presenters/catalog.js';

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

  app.get(
    '/v1/models',
    {
      config: { access: 'public' },
      schema: {
        tags: ['openai'],
        summary: 'Model list in OpenAI shape',
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
                  },
                },
              },
            },
          },
        },
      },
    },
    async () => ({ object: 'list', data: (await ctx.catalog.publicModels()).map(presentOpenAiModel) }),
  );

  app.get('/healthz', { config: { access: 'system' }, schema: { hide: true } }, async () => {
    await ctx.storage.settings.get('maintenance');
    return { status: 'ok' };
  });
}
