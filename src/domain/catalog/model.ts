// A catalog entry as the domain sees it. Prices are integer micro-rubles per unit.
import type { Micro } from '../billing/money.js';

export type ModelKind = 'video' | 'image' | 'text';
export type ModelUnit = 'shot' | 'sec' | 'mtok';

export interface ModelRoute {
  provider: string;
  model: string;
}

export interface ModelBilling {
  /** Params that select an internal billing variant (an id with a colon). First match wins. */
  variants?: { when: Record<string, unknown>; model: string }[];
  /** Token-billed video: worst-case tokens per second of video, by resolution. */
  token_video?: { tokens_per_second: Record<string, number> };
}

export interface CatalogModel {
  id: string;
  name: string;
  provider: string;
  kind: ModelKind;
  unit: ModelUnit;
  /** null means no price is set: generation answers 422. */
  priceMicro: Micro | null;
  priceOutputMicro: Micro | null;
  /**
   * Text models on the Messages API: per 1M tokens written to / read from the prompt cache. Unset
   * (null or absent): 1.25× and 0.1× the input price (domain/billing/messages-cost.ts).
   */
  priceCacheWriteMicro?: Micro | null;
  priceCacheReadMicro?: Micro | null;
  /** Per 1,000 uses of Anthropic's server tools; unset: a request offering the tool is refused. */
  priceWebSearchMicro?: Micro | null;
  priceWebFetchMicro?: Micro | null;
  active: boolean;
  visible: boolean;
  vision: boolean;
  route: ModelRoute | null;
  paramsSchema: Record<string, unknown> | null;
  billing: ModelBilling | null;
  updatedAt: number;
}

/** Internal billing variants carry a colon; they are never public and never accepted from clients. */
export function isInternalModelId(id: string): boolean {
  return id.includes(':');
}

/** A model a client can pay for: a price, and for text models an output price too. */
export function isPriced(model: CatalogModel): boolean {
  return model.priceMicro !== null && (model.kind !== 'text' || model.priceOutputMicro !== null);
}

/**
 * Listed in GET /public/models and /v1/models: active, visible, public and priced. An unpriced model
 * is left out because the catalog entry promises a price (generation with it answers 422).
 */
export function isPublic(model: CatalogModel): boolean {
  return model.active && model.visible && !isInternalModelId(model.id) && isPriced(model);
}
