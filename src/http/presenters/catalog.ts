// Catalog rows → public JSON. Prices are rendered in rubles.

import { messagesPrices } from '../../domain/billing/messages-cost.js';
import { microToRub } from '../../domain/billing/money.js';
import { exampleRequest } from '../../domain/catalog/example.js';
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
          ...messagesPricesInRub(model),
        }
      : {}),
  };
}

const rubOrNull = (micro: number | null | undefined) =>
  micro === null || micro === undefined ? null : microToRub(micro);

/**
 * Claude models (and any text model with a cache price set): the prompt-cache prices the Messages
 * API bills (their defaults when the catalog sets none) and the server-tool prices per 1,000 uses.
 */
function messagesPricesInRub(model: CatalogModel) {
  const claude = /^claude/i.test(model.id) || /anthropic/i.test(model.provider);
  if (!claude && model.priceCacheWriteMicro == null && model.priceCacheReadMicro == null) return {};
  const prices = model.priceMicro === null ? null : messagesPrices(model, 1_000_000);
  return {
    priceCacheWriteRub: rubOrNull(prices?.cacheWritePerMillion),
    priceCacheReadRub: rubOrNull(prices?.cacheReadPerMillion),
    priceWebSearchRub: rubOrNull(model.priceWebSearchMicro),
    priceWebFetchRub: rubOrNull(model.priceWebFetchMicro),
  };
}

/**
 * GET /public/models/{id}: the list entry plus the params schema and a body to start from. Text
 * models take a chat body on /v1/chat/completions; the others {"params": {...}} on /generate.
 */
export function presentPublicModelDetail(model: CatalogModel) {
  return {
    ...presentCatalogEntry(model),
    params_schema: model.kind === 'text' ? null : model.paramsSchema,
    example: exampleRequest(model),
    example_endpoint: model.kind === 'text' ? '/v1/chat/completions' : '/generate',
  };
}

/** The operator's view: everything, internal variants and schemas included. */
export function presentAdminModel(model: CatalogModel) {
  return {
    ...presentCatalogEntry(model),
    priceOutputRub: model.priceOutputMicro === null ? null : microToRub(model.priceOutputMicro),
    // As set in the catalog (null: the default applies), unlike the public view's effective prices.
    priceCacheWriteRub: rubOrNull(model.priceCacheWriteMicro),
    priceCacheReadRub: rubOrNull(model.priceCacheReadMicro),
    priceWebSearchRub: rubOrNull(model.priceWebSearchMicro),
    priceWebFetchRub: rubOrNull(model.priceWebFetchMicro),
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
