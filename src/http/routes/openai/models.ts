// GET /v1/models/{model}: OpenAI's model object (openai SDK `models.retrieve`). Unlike the public
// list it needs a key, because the answer is about that key: a model it may not use is as absent as
// an unknown, inactive, unlisted or internal (`:`) one, so every such id is the same 404.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { isInternalModelId, isPublic } from '../../../domain/catalog/model.js';
import { AppError } from '../../../domain/errors.js';
import { modelAllowed } from '../../../domain/keys/restrictions.js';
import { presentOpenAiModel } from '../../presenters/catalog.js';

export const openAiModelSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { type: 'string', enum: ['model'] },
    created: { type: 'integer' },
    owned_by: { type: 'string' },
  },
  required: ['id', 'object', 'created', 'owned_by'],
} as const;

export function registerModelRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Params: { model: string } }>(
    '/v1/models/:model',
    {
      config: { access: 'key' },
      schema: {
        tags: ['openai'],
        summary: 'One model the calling key may use (OpenAI model object)',
        params: { type: 'object', properties: { model: { type: 'string' } }, required: ['model'] },
        response: { 200: openAiModelSchema },
      },
    },
    async (request) => {
      const id = request.params.model;
      const model = isInternalModelId(id) ? undefined : await ctx.catalog.get(id);
      if (!model || !isPublic(model) || !modelAllowed(model.id, request.apiKey.allowedModels))
        throw new AppError(
          'model_not_found',
          `The model ${id} does not exist or is not available to this key`,
          'model',
        );
      return presentOpenAiModel(model);
    },
  );
}
