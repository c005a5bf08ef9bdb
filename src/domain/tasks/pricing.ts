// What a generation task holds when it is created, and what it captures when it ends.
// All amounts are integer micro-rubles; the account coefficient is applied last, rounding up.
import { applyCoefficient, type Micro, tokenCost } from '../billing/money.js';
import type { CatalogModel } from '../catalog/model.js';
import { AppError } from '../errors.js';

/** Frozen at creation and stored with the task, so a later price change never alters its settlement. */
export interface TaskPricing {
  unit: 'shot' | 'sec' | 'mtok';
  /** Price of the billing model: per shot, per second, or per 1M video tokens. */
  price_micro: Micro;
  coefficient_ppm: number;
  /** Token-billed video only: the worst case that was held. */
  max_tokens?: number;
}

export interface TaskQuote {
  /** The catalog entry the price came from: the model itself or an internal variant. */
  billingModel: CatalogModel;
  holdAmount: Micro;
  pricing: TaskPricing;
}

/**
 * The internal billing variant selected by `params` (first `billing.variants` entry whose `when`
 * values all equal the params), or the model itself.
 */
export function selectBillingModel(
  model: CatalogModel,
  params: Record<string, unknown>,
  lookup: (id: string) => CatalogModel | undefined,
): CatalogModel {
  for (const variant of model.billing?.variants ?? []) {
    const matches = Object.entries(variant.when).every(([name, value]) => params[name] === value);
    if (!matches) continue;
    const billingModel = lookup(variant.model);
    // A variant that is missing or unpriced is an operator error; never fall back to a cheaper price.
    if (!billingModel || billingModel.priceMicro === null) {
      throw new AppError('model_has_no_price', `No price is set for ${model.id} with these parameters`);
    }
    return billingModel;
  }
  return model;
}

function positiveInteger(params: Record<string, unknown>, name: string, modelId: string): number {
  const value = params[name];
  if (value === undefined) {
    throw new AppError('missing_parameter', `${name} is required: ${modelId} is billed per second`, name);
  }
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw new AppError('invalid_parameter', `${name} must be a positive integer`, name);
  }
  return value;
}

/** Worst-case video tokens: tokens per second at the requested resolution (or the largest) × duration. */
export function worstCaseVideoTokens(model: CatalogModel, params: Record<string, unknown>): number {
  const table = model.billing?.token_video?.tokens_per_second;
  if (!table || Object.keys(table).length === 0) {
    throw new AppError('model_has_no_price', `${model.id} has no token table to price a video`);
  }
  const resolution = typeof params.resolution === 'string' ? params.resolution : undefined;
  const perSecond =
    resolution !== undefined && table[resolution] !== undefined
      ? table[resolution]
      : Math.max(...Object.values(table));
  return perSecond * positiveInteger(params, 'duration', model.id);
}

/**
 * The hold for a task: `shot` → price; `sec` → price × duration; token-billed video → the worst case
 * (tokens per second × duration × price per 1M). Always × the account coefficient.
 * `params` must already carry the schema defaults.
 */
export function quoteTask(
  model: CatalogModel,
  params: Record<string, unknown>,
  coefficientPpm: number,
  lookup: (id: string) => CatalogModel | undefined,
): TaskQuote {
  if (model.priceMicro === null) throw new AppError('model_has_no_price');
  const billingModel = selectBillingModel(model, params, lookup);
  const price = billingModel.priceMicro as Micro;
  let base: Micro;
  const pricing: TaskPricing = {
    unit: billingModel.unit,
    price_micro: price,
    coefficient_ppm: coefficientPpm,
  };
  switch (billingModel.unit) {
    case 'shot':
      base = price;
      break;
    case 'sec':
      base = price * positiveInteger(params, 'duration', model.id);
      break;
    case 'mtok': {
      // The token table belongs to the public model; a variant only changes the price.
      const tokens = worstCaseVideoTokens(model, params);
      pricing.max_tokens = tokens;
      base = tokenCost(price, tokens);
      break;
    }
  }
  return { billingModel, holdAmount: applyCoefficient(base, coefficientPpm), pricing };
}

/**
 * The amount to capture when a task succeeds. Fixed-price tasks capture their hold; token-billed
 * video captures the reported tokens at the frozen price (never above the hold). A provider that
 * reports no usage is charged the worst case it was quoted.
 */
export function actualCost(
  pricing: TaskPricing,
  holdAmount: Micro,
  usage: { tokens?: number } | undefined,
): Micro {
  if (pricing.unit !== 'mtok') return holdAmount;
  const tokens = usage?.tokens;
  if (tokens === undefined || !Number.isFinite(tokens) || tokens < 0) return holdAmount;
  const cost = applyCoefficient(tokenCost(pricing.price_micro, Math.ceil(tokens)), pricing.coefficient_ppm);
  return Math.min(cost, holdAmount);
}
