// GET /v1/models in Anthropic's shape (Anthropic's SDK `models.list()`): a page of model objects in
// catalog order, with has_more / first_id / last_id, the limit (1-1000, default 20) and the
// after_id and before_id cursors (an unknown cursor reads from the start, or to the end).
import type { CatalogModel } from '../../domain/catalog/model.js';
import { AppError } from '../../domain/errors.js';

export function presentAnthropicModel(model: CatalogModel) {
  return {
    type: 'model' as const,
    id: model.id,
    display_name: model.name,
    created_at: new Date(model.updatedAt).toISOString(),
  };
}

export function anthropicModelPage(
  models: CatalogModel[],
  query: { limit?: string; after_id?: string; before_id?: string },
) {
  const limit = query.limit === undefined ? 20 : Number(query.limit);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000)
    throw new AppError('invalid_parameter', 'limit: must be an integer from 1 to 1000', 'limit');
  let start = 0;
  let end = models.length;
  if (query.after_id !== undefined) start = models.findIndex((m) => m.id === query.after_id) + 1;
  if (query.before_id !== undefined) {
    const at = models.findIndex((m) => m.id === query.before_id);
    end = at < 0 ? models.length : at;
  }
  const window = models.slice(start, end);
  // before_id alone pages backwards: the `limit` models just before it.
  const page =
    query.before_id !== undefined && query.after_id === undefined
      ? window.slice(-limit)
      : window.slice(0, limit);
  return {
    data: page.map(presentAnthropicModel),
    has_more: window.length > page.length,
    first_id: page[0]?.id ?? null,
    last_id: page.at(-1)?.id ?? null,
  };
}
