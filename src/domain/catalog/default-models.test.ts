// The default catalog data file: every entry parses, every parameter schema compiles, and the
// seedance-2 schema is exactly the spec's parameter table.
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { type CatalogEntryInput, parseCatalogEntry } from './catalog-file.js';
import { isInternalModelId, isPublic } from './model.js';

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => void;
const file = JSON.parse(readFileSync(new URL('./default-models.json', import.meta.url), 'utf8')) as {
  models: (CatalogEntryInput & { id: string })[];
};
const models = file.models.map((entry) => parseCatalogEntry(entry.id, entry, 0));
const byId = new Map(models.map((m) => [m.id, m]));

const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true });
addFormats(ajv);
const compiled = new Map<string, ReturnType<Ajv['compile']>>();
function validator(id: string) {
  if (!compiled.has(id)) compiled.set(id, ajv.compile(byId.get(id)!.paramsSchema!));
  return compiled.get(id)!;
}

describe('default catalog', () => {
  it('parses every entry, with unique ids', () => {
    expect(models.length).toBe(file.models.length);
    expect(byId.size).toBe(models.length);
  });

  it('has a compiling JSON Schema for every video and image model', () => {
    for (const model of models.filter((m) => m.kind !== 'text')) {
      expect(model.paramsSchema, model.id).not.toBeNull();
      expect(() => validator(model.id), model.id).not.toThrow();
    }
  });

  it('lists the public ids of DESIGN.md section 5 with prices, and keeps internal variants hidden', () => {
    const listed = models.filter(isPublic).map((m) => m.id);
    expect(listed.filter((id) => byId.get(id)!.kind === 'video').sort()).toEqual([
      'kling-2-1',
      'seedance-1-pro',
      'seedance-2',
      'sora-2',
      'veo-3-fast',
    ]);
    expect(listed.filter((id) => byId.get(id)!.kind === 'image').sort()).toEqual([
      'flux-1-1-pro',
      'gpt-image-1',
      'nano-banana',
      'seedream-4',
    ]);
    expect(listed.filter((id) => byId.get(id)!.kind === 'text')).toHaveLength(17);
    const internal = models.filter((m) => isInternalModelId(m.id));
    expect(internal.map((m) => m.id)).toEqual(
      expect.arrayContaining(['veo-3-fast:audio', 'seedance-2:1080p']),
    );
    for (const variant of internal) {
      expect(variant.visible).toBe(false);
      expect(byId.has(variant.id.split(':')[0])).toBe(true);
    }
    // Every variant a model's billing rules point at exists.
    for (const model of models)
      for (const v of model.billing?.variants ?? []) expect(byId.has(v.model), v.model).toBe(true);
  });

  it('prices text per million input and output tokens', () => {
    for (const model of models.filter((m) => m.kind === 'text')) {
      expect(model.unit).toBe('mtok');
      expect(model.priceMicro).toBeGreaterThan(0);
      expect(model.priceOutputMicro).toBeGreaterThan(model.priceMicro!);
    }
  });

  it('makes the seedance-2 schema exactly the spec table', () => {
    const uri = { type: 'string', format: 'uri' };
    expect(byId.get('seedance-2')).toMatchObject({ kind: 'video', unit: 'shot' });
    expect(byId.get('seedance-2')!.paramsSchema).toEqual({
      type: 'object',
      properties: {
        model_name: { type: 'string' },
        prompt: { type: 'string' },
        duration: { type: 'integer', minimum: 5, maximum: 15, default: 5 },
        aspect_ratio: { type: 'string', enum: ['16:9', '4:3', '1:1', '3:4', '9:16', '21:9'] },
        start_image_url: uri,
        end_image_url: uri,
        reference_image_urls: { type: 'array', items: uri },
        reference_video_urls: { type: 'array', items: uri },
        reference_audio_urls: { type: 'array', items: uri },
        seed: { type: 'integer', minimum: 0, maximum: 4294967295 },
        webhook_url: uri,
      },
      required: ['model_name'],
      additionalProperties: false,
    });
  });

  it('validates seedance-2 parameters by the spec rules', () => {
    const validate = validator('seedance-2');
    const ok = {
      model_name: 'seedance-2',
      prompt: 'a lighthouse',
      duration: 15,
      aspect_ratio: '21:9',
      seed: 4294967295,
      reference_image_urls: ['https://x.test/a.png'],
    };
    expect(validate(ok)).toBe(true);
    const defaulted: Record<string, unknown> = { model_name: 'seedance-2' };
    expect(validate(defaulted)).toBe(true);
    expect(defaulted.duration).toBe(5);
    for (const bad of [
      { duration: 4 },
      { duration: 16 },
      { duration: 5.5 },
      { aspect_ratio: '2:1' },
      { seed: -1 },
      { seed: 4294967296 },
      { start_image_url: 'not a url' },
      { resolution: '1080p' },
    ]) {
      expect(validate({ model_name: 'seedance-2', ...bad }), JSON.stringify(bad)).toBe(false);
    }
  });

  it('gives the other video models their documented durations', () => {
    const accepts = (id: string, duration: number) =>
      validator(id)({ model_name: id, prompt: 'x', duration });
    expect([4, 5, 8, 9, 10].map((d) => accepts('veo-3-fast', d))).toEqual([false, true, true, false, false]);
    expect([5, 7, 10].map((d) => accepts('kling-2-1', d))).toEqual([true, false, true]);
    expect([4, 6, 8, 12].map((d) => accepts('sora-2', d))).toEqual([true, false, true, true]);
    for (const id of ['kling-2-1', 'veo-3-fast', 'sora-2']) expect(byId.get(id)!.unit).toBe('sec');
  });
});
