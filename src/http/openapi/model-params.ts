// The catalog's part of the document: for each public media model its params schema as a named
// component, and GenerateRequest, the body of POST /generate: {params: oneOf the models,
// discriminated by model_name}. Built from the catalog of the moment, so a model an operator adds
// is documented at once.
//
// Naming rule (docs/openapi.md): the model id split at every character that is not a letter or a
// digit, each part capitalised and joined, an underscore kept between two parts that would join
// digit to digit, then "Params": seedance-2 → Seedance2Params, kling-2-1 → Kling2_1Params,
// gpt-image-1 → GptImage1Params. Two ids that would give the same name (e.g. a-b and a.b) both
// fall back to "Params.<id>".
import { microToRub } from '../../domain/billing/money.js';
import { exampleRequest } from '../../domain/catalog/example.js';
import { type CatalogModel, isPublic } from '../../domain/catalog/model.js';
import { type JsonSchema, ref } from './components.js';

export function pascalParamsName(id: string): string {
  const parts = id.split(/[^A-Za-z0-9]+/).filter(Boolean);
  let name = '';
  for (const part of parts) {
    if (/\d$/.test(name) && /^\d/.test(part)) name += '_';
    name += part[0].toUpperCase() + part.slice(1);
  }
  return `${name}Params`;
}

/** The component name of each model's params, collisions resolved as the rule above says. */
export function paramsComponentNames(ids: readonly string[]): Map<string, string> {
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(pascalParamsName(id), (counts.get(pascalParamsName(id)) ?? 0) + 1);
  return new Map(
    ids.map((id) => {
      const name = pascalParamsName(id);
      return [id, counts.get(name) === 1 && name !== 'Params' ? name : `Params.${id}`];
    }),
  );
}

/** The media models POST /generate accepts from any key: public ones (text models go to chat). */
export function generationModels(models: readonly CatalogModel[]): CatalogModel[] {
  return models.filter((model) => isPublic(model) && model.kind !== 'text');
}

const isObject = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The model's params schema with model_name pinned to its id: the discriminator's branch. */
function paramsComponent(model: CatalogModel): JsonSchema {
  const schema: JsonSchema = isObject(model.paramsSchema)
    ? structuredClone(model.paramsSchema)
    : { type: 'object', additionalProperties: true };
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((r) => r !== 'model_name') : [];
  const price = model.priceMicro === null ? '' : ` ${microToRub(model.priceMicro)} RUB per ${model.unit}.`;
  return {
    ...schema,
    title: schema.title ?? `${model.name} (${model.id})`,
    description: schema.description ?? `Parameters of ${model.name}, a ${model.kind} model.${price}`,
    type: 'object',
    properties: {
      model_name: { type: 'string', const: model.id, enum: [model.id] },
      ...withoutModelName(properties),
    },
    required: ['model_name', ...required],
  };
}

function withoutModelName(properties: JsonSchema): JsonSchema {
  const { model_name: _ignored, ...rest } = properties;
  return rest;
}

export interface CatalogComponents {
  schemas: Record<string, JsonSchema>;
  /** Named request examples of POST /generate, one per model, catalog order. */
  generateExamples: Record<string, { summary: string; value: unknown }>;
}

export function catalogComponents(models: readonly CatalogModel[]): CatalogComponents {
  const media = generationModels(models);
  const names = paramsComponentNames(media.map((m) => m.id));
  const schemas: Record<string, JsonSchema> = {};
  const mapping: Record<string, string> = {};
  const generateExamples: CatalogComponents['generateExamples'] = {};
  for (const model of media) {
    const name = names.get(model.id)!;
    schemas[name] = paramsComponent(model);
    mapping[model.id] = `#/components/schemas/${name}`;
    generateExamples[model.id] = {
      summary: `${model.id}: ${model.name} (${model.kind})`,
      value: exampleRequest(model),
    };
  }
  const branches = media.map((m) => ref(names.get(m.id)!));
  const first = media[0];
  schemas.GenerateRequest = {
    type: 'object',
    description:
      "The body of POST /generate: the parameters of one model, wrapped in `params` and selected by `params.model_name`. Each model's parameters are the component named after it (see GET /public/models/{id}).",
    properties: {
      params:
        branches.length > 0
          ? { oneOf: branches, discriminator: { propertyName: 'model_name', mapping } }
          : { type: 'object', properties: { model_name: { type: 'string' } }, required: ['model_name'] },
    },
    required: ['params'],
    additionalProperties: false,
    ...(first ? { examples: [exampleRequest(first)] } : {}),
  };
  schemas.MediaModelName = {
    type: 'string',
    description: 'The public id of a video or image model',
    ...(media.length > 0 ? { enum: media.map((m) => m.id) } : {}),
  };
  return { schemas, generateExamples };
}
