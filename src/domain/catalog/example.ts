// A request body a client can send as is: built from a model's params JSON Schema. Required
// parameters get a sensible value (the default, the first enum value, the minimum), and `prompt` is
// always filled in when the schema has one, so the example reads like a real request. Pure.
import type { CatalogModel } from './model.js';

export const EXAMPLE_PROMPT = 'a lighthouse at dawn';
const EXAMPLE_URL = 'https://example.com/input.png';
const MAX_DEPTH = 8;

type Schema = Record<string, unknown>;

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The example body of a model: {"params": {...}} for /generate, a chat body for text models. */
export function exampleRequest(model: CatalogModel): Record<string, unknown> {
  if (model.kind === 'text')
    return { model: model.id, messages: [{ role: 'user', content: 'Say hello in one sentence.' }] };
  const params = isSchema(model.paramsSchema) ? objectExample(model.paramsSchema, 0, true) : {};
  return { params: { ...(isSchema(params) ? params : {}), model_name: model.id } };
}

function objectExample(schema: Schema, depth: number, top: boolean): Record<string, unknown> {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === 'string')
    : [];
  const names = new Set(required);
  if (top && isSchema(properties.prompt)) names.add('prompt');
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const property = properties[name];
    out[name] = name === 'prompt' && top ? promptValue(property) : valueFor(property, depth + 1, name);
  }
  return out;
}

function promptValue(schema: unknown): unknown {
  if (!isSchema(schema) || schema.type === undefined || schema.type === 'string') return EXAMPLE_PROMPT;
  return valueFor(schema, 1, 'prompt');
}

function typeOf(schema: Schema): string | undefined {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (typeof type === 'string') return type;
  if (isSchema(schema.properties)) return 'object';
  if (schema.items !== undefined) return 'array';
  return undefined;
}

/** A value the schema accepts, for the common keywords; operators' exotic schemas get a best effort. */
function valueFor(schema: unknown, depth: number, name: string): unknown {
  if (!isSchema(schema) || depth > MAX_DEPTH) return null;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0)
    return 'default' in schema && schema.enum.includes(schema.default) ? schema.default : schema.enum[0];
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length > 0) return valueFor(branches[0], depth + 1, name);
  }
  switch (typeOf(schema)) {
    case 'string':
      return stringValue(schema, name);
    case 'integer':
    case 'number':
      return numberValue(schema, typeOf(schema) === 'integer');
    case 'boolean':
      return false;
    case 'array': {
      const min = typeof schema.minItems === 'number' ? Math.min(schema.minItems, 16) : 0;
      return Array.from({ length: min }, () => valueFor(schema.items, depth + 1, name));
    }
    case 'object':
      return objectExample(schema, depth, false);
    case 'null':
      return null;
    default:
      return EXAMPLE_PROMPT;
  }
}

function stringValue(schema: Schema, name: string): string {
  if (schema.format === 'uri' || schema.format === 'url' || /_urls?$/.test(name)) return EXAMPLE_URL;
  let value = name.includes('prompt') ? EXAMPLE_PROMPT : 'example';
  // Bounded: an operator's schema may ask for anything; the example stays small.
  const min = typeof schema.minLength === 'number' ? Math.min(schema.minLength, 10_000) : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  if (value.length < min) value += 'x'.repeat(min - value.length);
  return value.slice(0, Math.max(min, Math.min(max, value.length)));
}

function numberValue(schema: Schema, integer: boolean): number {
  const step = integer ? 1 : 0.5;
  let low = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  if (typeof schema.exclusiveMinimum === 'number') low = schema.exclusiveMinimum + step;
  let high = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  if (typeof schema.exclusiveMaximum === 'number') high = schema.exclusiveMaximum - step;
  let value = low ?? (high !== undefined && high < 0 ? high : 0);
  if (integer) value = Math.ceil(value);
  const multiple = typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : 0;
  if (multiple) value = Math.ceil(value / multiple) * multiple;
  return value;
}
