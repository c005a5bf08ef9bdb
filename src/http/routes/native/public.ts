// Unauthenticated reads: the catalog (native and OpenAI shapes) and the health check.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { presentCatalogEntry, presentOpenAiModel } from '../../presenters/catalog.js';

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
