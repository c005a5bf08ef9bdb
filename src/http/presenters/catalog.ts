// Catalog rows → public JSON. Prices are rendered in rubles.
import { microToRub } from '../../domain/billing/money.js';
import type { CatalogModel } from '../../domain/catalog/model.js';

export function presentCatalogEntry(model: CatalogModel) {
  return {
    id: model.id,
    name: model.name,
    provider: model.provider,
    kind: model.kind,
    unit: model.unit,
    priceRub: model.priceMicro === null ? null : microToRub(model.priceMicro),
    ...(model.kind === 'text'
      ? {
          priceOutputRub: model.priceOutputMicro === null ? null : microToRub(model.priceOutputMicro),
          vision: model.vision,
        }
      : {}),
  };
}

/** The operator's view: everything, internal variants and schemas included. */
export function presentAdminModel(model: CatalogModel) {
  return {
    ...presentCatalogEntry(model),
    priceOutputRub: model.priceOutputMicro === null ? null : microToRub(model.priceOutputMicro),
    vision: model.vision,
    active: model.active,
    visible: model.visible,
    route: model.route,
    params_schema: model.paramsSchema,
    billing: model.billing,
  };
}

/** OpenAI's model list shape for GET /v1/models. */
export function presentOpenAiModel(model: CatalogModel) {
  return {
    id: model.id,
    object: 'model' as const,
    created: Math.floor(model.updatedAt / 1000),
    owned_by: model.provider,
  };
}
