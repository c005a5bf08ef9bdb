// The model checks of the OpenAI generation endpoints, in the order chat uses: unknown, inactive,
// internal or of another kind → 404 model_not_found; not in allowed_models → 403; no price → 422.
import type { CatalogModel, ModelKind } from '../../domain/catalog/model.js';
import { isInternalModelId } from '../../domain/catalog/model.js';
import { AppError } from '../../domain/errors.js';
import { modelAllowed } from '../../domain/keys/restrictions.js';
import type { AuthenticatedKey } from '../auth.js';
import type { CatalogService } from '../catalog.js';

const ENDPOINT_OF: Record<ModelKind, string> = {
  image: 'POST /v1/images/generations',
  video: 'POST /v1/videos',
  text: 'POST /v1/chat/completions',
};

export async function resolveOpenAiModel(
  catalog: CatalogService,
  key: AuthenticatedKey,
  modelId: string,
  kind: 'image' | 'video',
): Promise<CatalogModel> {
  const model = isInternalModelId(modelId) ? undefined : await catalog.get(modelId);
  if (!model?.active)
    throw new AppError('model_not_found', `Model ${modelId} not found or inactive`, 'model');
  if (model.kind !== kind) {
    throw new AppError(
      'model_not_found',
      `${modelId} is not ${kind === 'image' ? 'an image' : 'a video'} model; ${model.kind} models are served by ${ENDPOINT_OF[model.kind]}`,
      'model',
    );
  }
  if (!modelAllowed(model.id, key.allowedModels))
    throw new AppError('model_not_allowed', `This key may not use ${model.id}`, 'model');
  if (model.priceMicro === null)
    throw new AppError('model_has_no_price', `No price is set for ${model.id}`, 'model');
  return model;
}
