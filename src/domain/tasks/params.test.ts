import { describe, expect, it } from 'vitest';
import { readCatalogFile } from '../../services/catalog.js';
import type { CatalogModel } from '../catalog/model.js';
import { ParamsValidator } from './params.js';

const catalog = new Map(
  readCatalogFile(new URL('../catalog/default-models.json', import.meta.url), 1).map((m) => [m.id, m]),
);
const get = (id: string) => catalog.get(id) as CatalogModel;

function failure(model: string, params: Record<string, unknown>) {
  try {
    new ParamsValidator().validate(get(model), { model_name: model, ...params });
  } catch (error) {
    const e = error as { status: number; code: string; message: string; param: string | null };
    return { status: e.status, code: e.code, message: e.message, param: e.param };
  }
  throw new Error('expected a validation failure');
}

describe('ParamsValidator on the default catalog', () => {
  it('applies schema defaults and keeps the caller object untouched', () => {
    const given = { model_name: 'seedance-2', prompt: 'a cat' };
    const params = new ParamsValidator().validate(get('seedance-2'), given);
    expect(params).toEqual({ model_name: 'seedance-2', prompt: 'a cat', duration: 5 });
    expect(given).toEqual({ model_name: 'seedance-2', prompt: 'a cat' });
  });

  it('a missing required parameter is 400 missing_parameter', () => {
    expect(failure('kling-2-1', {})).toEqual({
      status: 400,
      code: 'missing_parameter',
      message: 'prompt is required',
      param: 'prompt',
    });
  });

  it('a missing required parameter wins over a type error listed first', () => {
    expect(failure('kling-2-1', { duration: 'x' }).status).toBe(400);
  });

  it('range failures name the bounds', () => {
    expect(failure('seedance-2', { duration: 20 })).toMatchObject({
      status: 422,
      code: 'invalid_parameter',
      message: 'duration must be between 5 and 15',
      param: 'duration',
    });
    expect(failure('veo-3-fast', { prompt: 'x', duration: 9 }).message).toBe(
      'duration must be between 5 and 8',
    );
    expect(failure('seedance-2', { seed: -1 }).message).toBe('seed must be between 0 and 4294967295');
  });

  it('enum failures list the allowed values', () => {
    expect(failure('seedance-2', { aspect_ratio: '2:1' })).toMatchObject({
      status: 422,
      message: 'invalid aspect_ratio: must be one of 16:9, 4:3, 1:1, 3:4, 9:16, 21:9',
      param: 'aspect_ratio',
    });
  });

  it('unknown parameters are refused', () => {
    expect(failure('seedance-2', { foo: 1 })).toMatchObject({
      status: 422,
      message: 'unexpected parameter: foo',
      param: 'foo',
    });
  });

  it('types and formats are checked without coercion', () => {
    expect(failure('seedance-2', { duration: '5' }).message).toMatch(/^duration must be an integer\b/);
    expect(failure('seedance-2', { duration: 5.5 }).message).toBe('duration must be an integer');
    expect(failure('seedance-2', { webhook_url: 'not a url' }).message).toBe(
      'webhook_url must be a valid URL',
    );
    expect(failure('seedance-2', { reference_image_urls: ['x'] })).toMatchObject({
      message: 'reference_image_urls[0] must be a valid URL',
      param: 'reference_image_urls[0]',
    });
  });

  it('compiles a schema once per model version and recompiles when the model changes', () => {
    const validator = new ParamsValidator();
    const compiled = () =>
      (validator as unknown as { compiled: Map<string, { validate: unknown }> }).compiled.get('seedance-2')
        ?.validate;
    const model = get('seedance-2');
    validator.validate(model, { model_name: 'seedance-2', duration: 15 });
    const first = compiled();
    validator.validate(model, { model_name: 'seedance-2', duration: 7 });
    expect(compiled()).toBe(first);
    // An admin lowers the maximum: the new version is compiled and enforced.
    const schema = structuredClone(model.paramsSchema) as { properties: { duration: { maximum: number } } };
    schema.properties.duration.maximum = 10;
    const updated = {
      ...model,
      paramsSchema: schema as unknown as Record<string, unknown>,
      updatedAt: model.updatedAt + 1,
    };
    expect(() => validator.validate(updated, { model_name: 'seedance-2', duration: 15 })).toThrow(
      'duration must be between 5 and 10',
    );
    expect(compiled()).not.toBe(first);
  });

  it('accepts anything when a model has no schema', () => {
    expect(
      new ParamsValidator().validate({ ...get('seedance-2'), paramsSchema: null }, { anything: 1 }),
    ).toEqual({ anything: 1 });
  });
});
