// The example builder: every default media model's example validates against its own schema.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ParamsValidator } from '../tasks/params.js';
import { type CatalogEntryInput, parseCatalogEntry } from './catalog-file.js';
import { EXAMPLE_PROMPT, exampleRequest } from './example.js';
import type { CatalogModel } from './model.js';

const file = JSON.parse(readFileSync(new URL('./default-models.json', import.meta.url), 'utf8')) as {
  models: (CatalogEntryInput & { id: string })[];
};
const DEFAULTS = file.models.map((entry) => parseCatalogEntry(entry.id, entry, 1_700_000_000_000));
const base = DEFAULTS.find((m) => m.id === 'seedance-2')!;
const withSchema = (schema: Record<string, unknown> | null): CatalogModel => ({
  ...base,
  id: 'acme-video',
  paramsSchema: schema,
  updatedAt: Math.random(),
});

describe('exampleRequest', () => {
  it('passes the schema of every default media model, with the prompt and the model name', () => {
    const validator = new ParamsValidator();
    for (const model of DEFAULTS.filter((m) => m.kind !== 'text')) {
      const example = exampleRequest(model) as { params: Record<string, unknown> };
      expect(example.params.model_name).toBe(model.id);
      expect(example.params.prompt).toBe(EXAMPLE_PROMPT);
      expect(() => validator.validate(model, example.params)).not.toThrow();
    }
  });

  it('gives a text model a chat body', () => {
    const gpt = DEFAULTS.find((m) => m.id === 'gpt-4o')!;
    expect(exampleRequest(gpt)).toEqual({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: expect.any(String) }],
    });
  });

  it('fills required parameters: default, first enum value, minimum, const, URLs and nested objects', () => {
    const schema = {
      type: 'object',
      properties: {
        model_name: { type: 'string' },
        prompt: { type: 'string', minLength: 1 },
        mode: { type: 'string', enum: ['fast', 'slow'] },
        quality: { type: 'string', enum: ['low', 'high'], default: 'high' },
        steps: { type: 'integer', minimum: 4, maximum: 50 },
        guidance: { type: 'number', exclusiveMinimum: 0, maximum: 10, multipleOf: 0.5 },
        frames: { type: 'integer', default: 24 },
        loop: { type: 'boolean' },
        image_url: { type: 'string', format: 'uri' },
        tags: { type: 'array', items: { type: 'string' }, minItems: 1 },
        kind: { const: 'v2' },
        size: {
          type: 'object',
          properties: { width: { type: 'integer', minimum: 64 }, label: { type: ['null', 'string'] } },
          required: ['width', 'label'],
        },
        code: { type: 'string', minLength: 12, maxLength: 12 },
        seed: { type: 'integer' },
      },
      required: ['model_name', 'mode', 'quality', 'steps', 'guidance', 'frames', 'loop', 'image_url', 'tags'],
      additionalProperties: false,
    };
    const all = { ...schema, required: [...schema.required, 'kind', 'size', 'code'] };
    const model = withSchema(all);
    const { params } = exampleRequest(model) as { params: Record<string, unknown> };
    expect(params).toEqual({
      model_name: 'acme-video',
      prompt: EXAMPLE_PROMPT,
      mode: 'fast',
      quality: 'high',
      steps: 4,
      guidance: 0.5,
      frames: 24,
      loop: false,
      image_url: 'https://example.com/input.png',
      tags: ['example'],
      kind: 'v2',
      size: { width: 64, label: 'example' },
      code: 'examplexxxxx',
    });
    expect(() => new ParamsValidator().validate(model, params)).not.toThrow();
  });

  it('answers {"params": {"model_name"}} for a model without a schema, and survives odd schemas', () => {
    expect(exampleRequest(withSchema(null))).toEqual({ params: { model_name: 'acme-video' } });
    expect(exampleRequest(withSchema({ type: 'object', required: 'prompt' }))).toEqual({
      params: { model_name: 'acme-video' },
    });
    expect(
      exampleRequest(withSchema({ properties: { prompt: { type: 'array', items: { type: 'string' } } } })),
    ).toEqual({ params: { model_name: 'acme-video', prompt: [] } });
  });
});
