import { describe, expect, it } from 'vitest';
import { readCatalogFile } from '../../services/catalog.js';
import type { CatalogModel } from '../catalog/model.js';
import { AppError } from '../errors.js';
import { closestName } from './param-hints.js';
import { ParamsValidator } from './params.js';

const catalog = readCatalogFile(new URL('../catalog/default-models.json', import.meta.url), 0);
const model = (id: string): CatalogModel => catalog.find((m) => m.id === id)!;
const validator = new ParamsValidator();

function failure(id: string, params: Record<string, unknown>): AppError {
  try {
    validator.validate(model(id), { model_name: id, prompt: 'a cat', ...params });
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('hints on refused params', () => {
  it('a number or boolean sent as a string: send it without quotes; status, code and param unchanged', () => {
    const duration = failure('seedance-2', { duration: '5' });
    expect(duration.message).toBe('duration must be an integer. Send the number without quotes: 5, not "5"');
    expect([duration.status, duration.code, duration.param]).toEqual([422, 'invalid_parameter', 'duration']);
    expect(failure('kling-2-1', { duration: '10' }).message).toBe(
      'duration must be an integer. Send the number without quotes: 10, not "10"',
    );
    expect(failure('veo-3-fast', { generate_audio: 'true' }).message).toBe(
      'generate_audio must be a boolean. Send the boolean without quotes: true, not "true"',
    );
    expect(failure('seedance-2', { reference_image_urls: 'https://example.com/a.png' }).message).toBe(
      'reference_image_urls must be an array. Send a list, even of one item: ["…"]',
    );
  });

  it('a duration in milliseconds: it is in seconds', () => {
    expect(failure('veo-3-fast', { duration: 8000 }).message).toBe(
      'duration must be between 5 and 8. duration is in seconds, not milliseconds: send 8',
    );
    expect(failure('sora-2', { duration: 4000 }).message).toBe(
      'invalid duration: must be one of 4, 8, 12. duration is in seconds, not milliseconds: send 4',
    );
    // The spec's message, unchanged when no mistake is recognisable.
    expect(failure('veo-3-fast', { duration: 9 }).message).toBe('duration must be between 5 and 8');
    expect(failure('veo-3-fast', { duration: 9000 }).message).toBe('duration must be between 5 and 8');
  });

  it('an enum value in another case, as a pixel size or as W/H: the allowed spelling', () => {
    expect(failure('seedance-1-pro', { resolution: '720P' }).message).toBe(
      'invalid resolution: must be one of 480p, 720p, 1080p. Did you mean "720p"? Values are case-sensitive',
    );
    expect(failure('seedance-2', { aspect_ratio: '1280x720' }).message).toBe(
      'invalid aspect_ratio: must be one of 16:9, 4:3, 1:1, 3:4, 9:16, 21:9. Did you mean "16:9"? Give the aspect ratio as W:H',
    );
    expect(failure('seedance-2', { aspect_ratio: '9/16' }).message).toContain('Did you mean "9:16"?');
    expect(failure('gpt-image-1', { aspect_ratio: '16:9' }).message).toBe(
      'invalid aspect_ratio: must be one of 1:1, 3:2, 2:3',
    );
  });

  it("a parameter under another API's name or misspelt: ours", () => {
    const size = failure('seedance-2', { size: '1280x720' });
    expect(size.message).toBe('unexpected parameter: size. This API calls it aspect_ratio');
    expect(size.param).toBe('size');
    expect(failure('seedance-2', { seconds: 5 }).message).toBe(
      'unexpected parameter: seconds. This API calls it duration',
    );
    expect(failure('kling-2-1', { negativ_prompt: 'x' }).message).toBe(
      'unexpected parameter: negativ_prompt. Did you mean negative_prompt?',
    );
    expect(failure('kling-2-1', { Seed: 1 }).message).toBe('unexpected parameter: Seed. Did you mean seed?');
    expect(failure('seedance-2', { quality: 'high' }).message).toBe('unexpected parameter: quality');
    // Names that are members of every object are ordinary unknown names.
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty'])
      expect(failure('seedance-2', JSON.parse(`{"${name}": 1}`)).message).toBe(
        `unexpected parameter: ${name}`,
      );
  });

  it('a required parameter sent under another name: 400, and the name it was sent as', () => {
    const missing = (() => {
      try {
        validator.validate(model('kling-2-1'), { model_name: 'kling-2-1', Prompt: 'x' });
      } catch (error) {
        return error as AppError;
      }
    })();
    expect(missing?.status).toBe(400);
    expect(missing?.message).toBe(
      'prompt is required. You sent Prompt: parameter names are case-sensitive and exact',
    );
    // Where nothing resembles it, the message stays as it was.
    expect(failure('seedance-2', { Seed: 1 }).message).toBe('unexpected parameter: Seed. Did you mean seed?');
    expect(closestName('promt', ['prompt', 'seed'])).toBe('prompt');
    expect(closestName('sed', ['seed', 'sea'])).toBeUndefined();
  });
});
