// Validates a task's params against the model's JSON Schema (catalog data). Each schema is compiled
// once per model id and version, never per request. A missing required parameter is a 400; a type,
// range, enum or unknown-parameter failure is a 422 with a message a person can act on.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { CatalogModel } from '../catalog/model.js';
import { AppError } from '../errors.js';
import { MAX_JSON_DEPTH, valueTooDeep } from '../json-depth.js';
import { paramHint, withHint } from './param-hints.js';

// ajv-formats is CommonJS: under NodeNext its default export arrives as the module object.
type FormatsPlugin = typeof addFormatsModule.default;
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as FormatsPlugin;

export type Params = Record<string, unknown>;

interface Compiled {
  updatedAt: number;
  validate: ValidateFunction;
}

export class ParamsValidator {
  private readonly ajv: Ajv;
  private readonly compiled = new Map<string, Compiled>();

  constructor() {
    // allErrors so that a missing required parameter (400) wins over a type error (422) in any order;
    // verbose for the bounds of range errors; strict off because schemas come from operators.
    this.ajv = new Ajv({
      allErrors: true,
      verbose: true,
      strict: false,
      useDefaults: true,
      coerceTypes: false,
    });
    addFormats(this.ajv);
  }

  private validatorFor(model: CatalogModel): ValidateFunction | null {
    if (!model.paramsSchema) return null;
    const cached = this.compiled.get(model.id);
    if (cached && cached.updatedAt === model.updatedAt) return cached.validate;
    let validate: ValidateFunction;
    try {
      validate = this.ajv.compile(model.paramsSchema);
    } catch (error) {
      throw new Error(`params_schema of model ${model.id} does not compile: ${(error as Error).message}`);
    }
    this.compiled.set(model.id, { updatedAt: model.updatedAt, validate });
    return validate;
  }

  /** Returns a copy of `params` with the schema defaults applied, or throws the first failure. */
  validate(model: CatalogModel, params: Params): Params {
    // The copy and the schema walk below recurse: bound the depth first, iteratively. The HTTP layer
    // refuses deeper bodies already; this keeps every other caller safe too.
    if (valueTooDeep(params, MAX_JSON_DEPTH))
      throw new AppError(
        'invalid_parameter',
        `params is nested more than ${MAX_JSON_DEPTH} levels deep`,
        'params',
      );
    // Params come from a JSON body and are stored as JSON: a JSON round trip is a faithful deep copy,
    // and for small objects several times cheaper than structuredClone.
    const copy = JSON.parse(JSON.stringify(params)) as Params;
    const validate = this.validatorFor(model);
    if (!validate || validate(copy)) return copy;
    const errors = validate.errors ?? [];
    throw withHint(toAppError(errors), paramHint(errors));
  }
}

function fieldOf(error: ErrorObject): string {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  return path.reduce(
    (acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part),
    '',
  );
}

function describeType(type: unknown): string {
  const names = (Array.isArray(type) ? type : [type]).map((t) =>
    t === 'integer'
      ? 'an integer'
      : t === 'array'
        ? 'an array'
        : t === 'object'
          ? 'an object'
          : `a ${String(t)}`,
  );
  return names.join(' or ');
}

/** Maps the most relevant Ajv error to the one error catalog. */
export function toAppError(errors: ErrorObject[]): AppError {
  const required = errors.find((e) => e.keyword === 'required');
  if (required) {
    const parent = fieldOf(required);
    const name = String((required.params as { missingProperty: string }).missingProperty);
    const field = parent ? `${parent}.${name}` : name;
    return new AppError('missing_parameter', `${field} is required`, field);
  }
  const error = errors[0];
  const field = fieldOf(error);
  const subject = field || 'params';
  const schema = (error.parentSchema ?? {}) as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const extra = String((error.params as { additionalProperty: string }).additionalProperty);
      const name = field ? `${field}.${extra}` : extra;
      return new AppError('invalid_parameter', `unexpected parameter: ${name}`, name);
    }
    case 'enum': {
      const allowed = ((error.params as { allowedValues: unknown[] }).allowedValues ?? [])
        .map(String)
        .join(', ');
      return new AppError(
        'invalid_parameter',
        `invalid ${subject}: must be one of ${allowed}`,
        field || null,
      );
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const min = schema.minimum ?? schema.exclusiveMinimum;
      const max = schema.maximum ?? schema.exclusiveMaximum;
      const message =
        min !== undefined && max !== undefined
          ? `${subject} must be between ${min} and ${max}`
          : min !== undefined
            ? `${subject} must be at least ${min}`
            : `${subject} must be at most ${max}`;
      return new AppError('invalid_parameter', message, field || null);
    }
    case 'type':
      return new AppError(
        'invalid_parameter',
        `${subject} must be ${describeType((error.params as { type: unknown }).type)}`,
        field || null,
      );
    case 'format':
      return new AppError(
        'invalid_parameter',
        `${subject} must be a valid ${(error.params as { format: string }).format === 'uri' ? 'URL' : (error.params as { format: string }).format}`,
        field || null,
      );
    case 'const':
      return new AppError(
        'invalid_parameter',
        `invalid ${subject}: must be ${JSON.stringify((error.params as { allowedValue: unknown }).allowedValue)}`,
        field || null,
      );
    default:
      return new AppError('invalid_parameter', `${subject} ${error.message ?? 'is invalid'}`, field || null);
  }
}
