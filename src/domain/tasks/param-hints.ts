// Hints for the commonest mistakes in a task's params, recognised from the validator's failure and
// the value sent: a number or boolean sent as a string, a duration in milliseconds, an enum value in
// another case or as a pixel size, a parameter under OpenAI's name or misspelt. The hint is a
// sentence appended to the message; status, code and param never change. A value is only echoed
// once recognised (digits, true/false) or taken from the schema, never as sent. Pure.
import type { ErrorObject } from 'ajv';
import { AppError } from '../errors.js';

/** Names other APIs use for a parameter, mapped to ours (used only when the model has ours). */
const ALIAS_LIST: Record<string, string[]> = {
  model: ['model_name'],
  size: ['aspect_ratio'],
  ratio: ['aspect_ratio'],
  seconds: ['duration'],
  length: ['duration'],
  negative: ['negative_prompt'],
  webhook: ['webhook_url'],
  callback_url: ['webhook_url'],
  image: ['image_url', 'start_image_url'],
  input_image: ['image_url', 'start_image_url'],
  first_frame_image: ['start_image_url'],
  last_frame_image: ['end_image_url'],
  audio: ['generate_audio'],
};
// A Map, not an object lookup: a sent name such as __proto__ or constructor must find nothing.
const ALIASES = new Map(Object.entries(ALIAS_LIST));

const NUMERIC = /^-?\d+(\.\d+)?$/;
const DURATION_NAMES = /duration|seconds/;

const quote = (value: unknown) => JSON.stringify(value);

function normalise(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** Levenshtein distance, bounded: names are short. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length];
}

/** The one name among `names` that `given` most plausibly meant, if any. */
export function closestName(given: string, names: readonly string[]): string | undefined {
  const normal = normalise(given);
  const same = names.filter((name) => normalise(name) === normal);
  if (same.length === 1) return same[0];
  const limit = given.length <= 4 ? 1 : 2;
  const near = names
    .map((name) => ({ name, d: distance(normal, normalise(name)) }))
    .filter(({ d }) => d <= limit)
    .sort((a, b) => a.d - b.d);
  if (near.length === 0 || (near.length > 1 && near[0].d === near[1].d)) return undefined;
  return near[0].name;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** "1280x720", "1280*720", "16x9", "16/9", "16-9" → "16:9". */
function asRatio(value: string): string | undefined {
  const match = /^\s*(\d{1,5})\s*[x×*/:\-_]\s*(\d{1,5})\s*$/i.exec(value);
  if (!match) return undefined;
  const w = Number(match[1]);
  const h = Number(match[2]);
  if (w === 0 || h === 0) return undefined;
  const d = gcd(w, h);
  return `${w / d}:${h / d}`;
}

function expectedTypes(error: ErrorObject): string[] {
  const type = (error.params as { type?: unknown }).type;
  return (Array.isArray(type) ? type : [type]).map(String);
}

function typeHint(error: ErrorObject): string | undefined {
  const value = error.data;
  const types = expectedTypes(error);
  if (typeof value === 'string') {
    const text = value.trim();
    if ((types.includes('integer') || types.includes('number')) && NUMERIC.test(text))
      return `Send the number without quotes: ${Number(text)}, not ${quote(value)}`;
    if (types.includes('boolean') && /^(true|false)$/i.test(text))
      return `Send the boolean without quotes: ${text.toLowerCase()}, not ${quote(value)}`;
    if (types.includes('array')) return 'Send a list, even of one item: ["…"]';
  }
  if (typeof value === 'number' && types.includes('string'))
    return `Send it as a string: ${quote(String(value))}`;
  return undefined;
}

/** A duration sent in milliseconds: 5000 where 5 would be right. */
function millisecondsHint(
  name: string,
  value: unknown,
  fits: (seconds: number) => boolean,
): string | undefined {
  if (!DURATION_NAMES.test(name) || typeof value !== 'number' || value < 1000 || value % 1000 !== 0)
    return undefined;
  const seconds = value / 1000;
  return fits(seconds) ? `${name} is in seconds, not milliseconds: send ${seconds}` : undefined;
}

function enumHint(error: ErrorObject, name: string): string | undefined {
  const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues ?? [];
  const value = error.data;
  const ms = millisecondsHint(name, value, (s) => allowed.includes(s));
  if (ms) return ms;
  if (typeof value === 'string') {
    const text = value.trim();
    const numeric = NUMERIC.test(text) ? Number(text) : undefined;
    if (numeric !== undefined && allowed.includes(numeric))
      return `Send the number without quotes: ${numeric}, not ${quote(value)}`;
    const strings = allowed.filter((a): a is string => typeof a === 'string');
    const sameCase = strings.find((a) => a.toLowerCase() === text.toLowerCase());
    if (sameCase) return `Did you mean ${quote(sameCase)}? Values are case-sensitive`;
    const ratio = asRatio(text);
    if (ratio && strings.includes(ratio)) return `Did you mean ${quote(ratio)}? Give the aspect ratio as W:H`;
  }
  if (typeof value === 'number' && allowed.includes(String(value)))
    return `Send it as a string: ${quote(String(value))}`;
  return undefined;
}

function rangeHint(error: ErrorObject, name: string): string | undefined {
  const schema = (error.parentSchema ?? {}) as Record<string, unknown>;
  const min = typeof schema.minimum === 'number' ? schema.minimum : Number.NEGATIVE_INFINITY;
  const max = typeof schema.maximum === 'number' ? schema.maximum : Number.POSITIVE_INFINITY;
  return millisecondsHint(name, error.data, (s) => s >= min && s <= max);
}

function unknownParameterHint(error: ErrorObject): string | undefined {
  const extra = String((error.params as { additionalProperty?: unknown }).additionalProperty);
  const properties =
    (error.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
  const names = Object.keys(properties);
  const alias = ALIASES.get(extra.toLowerCase())?.find((name) => names.includes(name));
  if (alias) return `This API calls it ${alias}`;
  const close = closestName(extra, names);
  if (close) return `Did you mean ${close}?`;
  return undefined;
}

function missingHint(error: ErrorObject): string | undefined {
  const missing = String((error.params as { missingProperty?: unknown }).missingProperty);
  const data = error.data;
  if (typeof data !== 'object' || data === null) return undefined;
  const given = Object.keys(data);
  const close = closestName(missing, given);
  if (close && close !== missing) return `You sent ${close}: parameter names are case-sensitive and exact`;
  const alias = given.find((name) => ALIASES.get(name.toLowerCase())?.includes(missing));
  if (alias) return `This API calls ${alias} ${missing}`;
  return undefined;
}

/** The hint for the failure the message was made from (the first required error, else the first). */
export function paramHint(errors: readonly ErrorObject[]): string | undefined {
  const required = errors.find((e) => e.keyword === 'required');
  if (required) return missingHint(required);
  const error = errors[0];
  if (!error) return undefined;
  const name = error.instancePath.split('/').pop() ?? '';
  switch (error.keyword) {
    case 'type':
      return typeHint(error);
    case 'enum':
      return enumHint(error, name);
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return rangeHint(error, name);
    case 'additionalProperties':
      return unknownParameterHint(error);
    default:
      return undefined;
  }
}

/** The same refusal with the hint appended to its message (status, code, param and extras kept). */
export function withHint(error: AppError, hint: string | undefined): AppError {
  if (!hint) return error;
  return new AppError(error.code, `${error.message}. ${hint}`, error.param, error.extra);
}
