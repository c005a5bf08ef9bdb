// multipart/form-data carries every value as text: the official openai SDK always sends
// POST /v1/videos that way, so `seed` arrives as "42". Before the model's schema validates the
// params, text that is a literal of the type the schema declares becomes that type ("42" → 42 for
// an integer, "true" → true for a boolean). Anything else is left as it is, for the schema to refuse.
import { ownEntry } from '../own-entry.js';

type Schema = Record<string, unknown>;

const INTEGER = /^-?\d{1,16}$/;
const NUMBER = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

function typesOf(schema: Schema | undefined): string[] {
  const type = schema?.type;
  return Array.isArray(type) ? type.map(String) : typeof type === 'string' ? [type] : [];
}

function coerce(value: unknown, schema: Schema | undefined): unknown {
  if (!schema) return value;
  const types = typesOf(schema);
  if (Array.isArray(value)) {
    const items = schema.items as Schema | undefined;
    return value.map((item) => coerce(item, items));
  }
  if (value !== null && typeof value === 'object') {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([name, item]) => [
        name,
        coerce(item, ownEntry(properties, name)),
      ]),
    );
  }
  if (typeof value !== 'string' || types.includes('string')) return value;
  const text = value.trim();
  if (types.includes('integer') && INTEGER.test(text)) return Number(text);
  if (types.includes('number') && NUMBER.test(text)) return Number(text);
  if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  if (types.includes('null') && text === 'null') return null;
  return value;
}

/** `params` with form text converted to the types of `paramsSchema` (a model's params schema). */
export function coerceFormValues(
  params: Record<string, unknown>,
  paramsSchema: Record<string, unknown> | null,
): Record<string, unknown> {
  if (!paramsSchema) return params;
  return coerce(params, paramsSchema) as Record<string, unknown>;
}
