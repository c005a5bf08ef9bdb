// Reads catalog entries in their file/admin form (rubles) into the domain form (micro-rubles).

import { rubToMicro } from '../billing/money.js';
import { AppError } from '../errors.js';
import type { CatalogModel, ModelKind, ModelUnit } from './model.js';

const KINDS: ModelKind[] = ['video', 'image', 'text'];
const UNITS: ModelUnit[] = ['shot', 'sec', 'mtok'];

export interface CatalogEntryInput {
  id?: unknown;
  name?: unknown;
  provider?: unknown;
  kind?: unknown;
  unit?: unknown;
  priceRub?: unknown;
  priceOutputRub?: unknown;
  priceCacheWriteRub?: unknown;
  priceCacheReadRub?: unknown;
  priceWebSearchRub?: unknown;
  priceWebFetchRub?: unknown;
  active?: unknown;
  visible?: unknown;
  vision?: unknown;
  route?: unknown;
  params_schema?: unknown;
  billing?: unknown;
}

export function parseCatalogEntry(id: string, input: CatalogEntryInput, now: number): CatalogModel {
  const fail = (param: string, message: string): never => {
    throw new AppError('invalid_parameter', message, param);
  };
  if (!/^[a-z0-9][a-z0-9._:-]{0,127}$/i.test(id)) fail('id', 'model id must be 1-128 of [a-z0-9._:-]');
  const text = (param: string, value: unknown) =>
    typeof value === 'string' && value.length > 0 && value.length <= 200
      ? value
      : fail(param, `${param} must be a non-empty string`);
  const kind = KINDS.includes(input.kind as ModelKind)
    ? (input.kind as ModelKind)
    : fail('kind', `kind must be one of ${KINDS.join(', ')}`);
  const unit = UNITS.includes(input.unit as ModelUnit)
    ? (input.unit as ModelUnit)
    : fail('unit', `unit must be one of ${UNITS.join(', ')}`);
  const price = (param: string, value: unknown) => {
    if (value === null || value === undefined) return null;
    const micro = rubToMicro(value, param);
    return micro < 0 ? fail(param, `${param} must not be negative`) : micro;
  };
  const flag = (param: string, value: unknown, fallback: boolean) =>
    value === undefined
      ? fallback
      : typeof value === 'boolean'
        ? value
        : fail(param, `${param} must be a boolean`);
  const objectOrNull = (param: string, value: unknown) =>
    value === undefined || value === null
      ? null
      : typeof value === 'object' && !Array.isArray(value)
        ? value
        : fail(param, `${param} must be an object`);
  const route = objectOrNull('route', input.route) as CatalogModel['route'];
  if (route && (typeof route.provider !== 'string' || typeof route.model !== 'string')) {
    fail('route', 'route must be {provider, model}');
  }
  return {
    id,
    name: text('name', input.name),
    provider: text('provider', input.provider),
    kind,
    unit,
    priceMicro: price('priceRub', input.priceRub),
    priceOutputMicro: price('priceOutputRub', input.priceOutputRub),
    priceCacheWriteMicro: price('priceCacheWriteRub', input.priceCacheWriteRub),
    priceCacheReadMicro: price('priceCacheReadRub', input.priceCacheReadRub),
    priceWebSearchMicro: price('priceWebSearchRub', input.priceWebSearchRub),
    priceWebFetchMicro: price('priceWebFetchRub', input.priceWebFetchRub),
    active: flag('active', input.active, true),
    visible: flag('visible', input.visible, true),
    vision: flag('vision', input.vision, false),
    route,
    paramsSchema: objectOrNull('params_schema', input.params_schema) as Record<string, unknown> | null,
    billing: objectOrNull('billing', input.billing) as CatalogModel['billing'],
    updatedAt: now,
  };
}
