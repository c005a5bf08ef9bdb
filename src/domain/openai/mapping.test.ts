import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { coerceFormValues } from './form-values.js';
import {
  inOpenAiTerms,
  mapImageRequest,
  mapVideoRequest,
  nativeParamNames,
  pixelSizeOf,
  requestedModel,
  secondsToDuration,
  sizeToAspectRatio,
} from './mapping.js';
import { failureCode, taskFailureError } from './task-failure.js';

function failure(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

const FLUX = new Set(['model_name', 'prompt', 'aspect_ratio', 'seed', 'webhook_url', 'image_url']);
const GPT_IMAGE = new Set(['model_name', 'prompt', 'aspect_ratio', 'seed', 'webhook_url', 'quality']);

describe('size → aspect_ratio', () => {
  it.each([
    ['1280x720', '16:9'],
    ['720x1280', '9:16'],
    ['1024x1792', '4:7'],
    ['1792x1024', '7:4'],
    ['1024x1024', '1:1'],
    ['1536x1024', '3:2'],
    ['1024x1536', '2:3'],
    ['1920X1080', '16:9'],
    ['2560 x 1080', '64:27'],
  ])('pixel size %s reduces to %s', (size, ratio) => {
    expect(sizeToAspectRatio(size)).toBe(ratio);
  });

  it('keeps W:H as given (the schema decides whether it is supported)', () => {
    expect(sizeToAspectRatio('16:9')).toBe('16:9');
    expect(sizeToAspectRatio('32:18')).toBe('32:18');
  });

  it('"auto", null and absent leave the model default', () => {
    expect(sizeToAspectRatio('auto')).toBeUndefined();
    expect(sizeToAspectRatio(null)).toBeUndefined();
    expect(sizeToAspectRatio(undefined)).toBeUndefined();
  });

  it.each(['big', '0x720', '1280x0', '16:0', '1280x', 1280, '1280*720', '-1280x720'])(
    'refuses %s with 422 param size',
    (size) => {
      const error = failure(() => sizeToAspectRatio(size));
      expect([error.status, error.code, error.param]).toEqual([422, 'invalid_parameter', 'size']);
    },
  );
});

describe('seconds → duration', () => {
  it('accepts the SDK strings and integers', () => {
    expect(secondsToDuration('4')).toBe(4);
    expect(secondsToDuration(' 12 ')).toBe(12);
    expect(secondsToDuration(8)).toBe(8);
    expect(secondsToDuration(undefined)).toBeUndefined();
    expect(secondsToDuration(null)).toBeUndefined();
  });

  it.each(['4.5', 4.5, 'four', '', '-4', -4, true, {}])('refuses %s with 422 param seconds', (seconds) => {
    const error = failure(() => secondsToDuration(seconds));
    expect([error.status, error.param]).toEqual([422, 'seconds']);
  });
});

describe('pixelSizeOf (the size of a video object)', () => {
  it('is the 720p size of the ratio, or of the resolution param', () => {
    expect(pixelSizeOf('16:9')).toBe('1280x720');
    expect(pixelSizeOf('9:16')).toBe('720x1280');
    expect(pixelSizeOf('1:1')).toBe('720x720');
    expect(pixelSizeOf('21:9')).toBe('1680x720');
    expect(pixelSizeOf('16:9', '1080p')).toBe('1920x1080');
    expect(pixelSizeOf('4:3', '480p')).toBe('640x480');
    expect(pixelSizeOf(undefined)).toBeNull();
  });
});

describe('requestedModel', () => {
  it('is the model field, or the default when it is absent', () => {
    expect(requestedModel({ model: 'kling-2-1' }, 'sora-2')).toBe('kling-2-1');
    expect(requestedModel({}, 'sora-2')).toBe('sora-2');
    expect(requestedModel({ model: null }, 'sora-2')).toBe('sora-2');
    expect(failure(() => requestedModel({ model: 42 }, 'sora-2')).param).toBe('model');
  });
});

describe('mapImageRequest', () => {
  it('maps model, prompt and size, with model_name first', () => {
    const mapped = mapImageRequest(
      { model: 'flux-1-1-pro', prompt: 'a fox', size: '1792x1024' },
      'flux-1-1-pro',
      FLUX,
    );
    expect(mapped.params).toEqual({ model_name: 'flux-1-1-pro', prompt: 'a fox', aspect_ratio: '7:4' });
    expect(Object.keys(mapped.params)[0]).toBe('model_name');
    expect(mapped.origins).toMatchObject({ model_name: 'model', aspect_ratio: 'size' });
    expect(mapped.responseFormat).toBe('url');
  });

  it('merges extra_body fields into the native params', () => {
    const mapped = mapImageRequest(
      {
        prompt: 'p',
        extra_body: {
          seed: 7,
          webhook_url: 'https://hooks.example.com/x',
          image_url: 'https://img.example.com/a.png',
        },
      },
      'flux-1-1-pro',
      FLUX,
    );
    expect(mapped.params).toEqual({
      model_name: 'flux-1-1-pro',
      prompt: 'p',
      seed: 7,
      webhook_url: 'https://hooks.example.com/x',
      image_url: 'https://img.example.com/a.png',
    });
    expect(mapped.origins.seed).toBe('extra_body.seed');
  });

  it('accepts native params at the top level (the SDK merges extra_body there)', () => {
    expect(mapImageRequest({ prompt: 'p', seed: 3 }, 'flux-1-1-pro', FLUX).params).toEqual({
      model_name: 'flux-1-1-pro',
      prompt: 'p',
      seed: 3,
    });
  });

  it('passes unknown fields on, so the model schema refuses them', () => {
    expect(mapImageRequest({ prompt: 'p', colour: 'red' }, 'flux-1-1-pro', FLUX).params.colour).toBe('red');
  });

  it('passes an OpenAI option only to a model that has it natively, and ignores it otherwise', () => {
    const body = { prompt: 'p', quality: 'high', user: 'u-1', style: 'vivid', output_format: 'png' };
    expect(mapImageRequest(body, 'gpt-image-1', GPT_IMAGE).params).toEqual({
      model_name: 'gpt-image-1',
      prompt: 'p',
      quality: 'high',
    });
    expect(mapImageRequest(body, 'flux-1-1-pro', FLUX).params).toEqual({
      model_name: 'flux-1-1-pro',
      prompt: 'p',
    });
  });

  it('n must be 1 or absent', () => {
    for (const n of [1, '1', null, undefined])
      expect(() => mapImageRequest({ prompt: 'p', n }, 'x', FLUX)).not.toThrow();
    for (const n of [2, 0, 10, 'two']) {
      const error = failure(() => mapImageRequest({ prompt: 'p', n }, 'x', FLUX));
      expect([error.status, error.param, error.message]).toEqual([
        422,
        'n',
        'n must be 1: this gateway generates one image per request',
      ]);
    }
  });

  it('response_format is url (default) or b64_json', () => {
    expect(mapImageRequest({ prompt: 'p', response_format: 'b64_json' }, 'x', FLUX).responseFormat).toBe(
      'b64_json',
    );
    expect(mapImageRequest({ prompt: 'p', response_format: null }, 'x', FLUX).responseFormat).toBe('url');
    expect(failure(() => mapImageRequest({ prompt: 'p', response_format: 'jpeg' }, 'x', FLUX)).param).toBe(
      'response_format',
    );
  });

  it('stream: true is refused; stream: false is fine', () => {
    expect(failure(() => mapImageRequest({ prompt: 'p', stream: true }, 'x', FLUX)).param).toBe('stream');
    expect(mapImageRequest({ prompt: 'p', stream: false }, 'x', FLUX).params).toEqual({
      model_name: 'x',
      prompt: 'p',
    });
  });

  it('refuses model_name (use model) and contradicting duplicates; equal duplicates are fine', () => {
    expect(failure(() => mapImageRequest({ prompt: 'p', model_name: 'x' }, 'x', FLUX)).param).toBe(
      'model_name',
    );
    expect(
      failure(() => mapImageRequest({ prompt: 'p', extra_body: { model_name: 'x' } }, 'x', FLUX)).param,
    ).toBe('extra_body.model_name');
    const twice = failure(() =>
      mapImageRequest({ prompt: 'p', size: '16:9', extra_body: { aspect_ratio: '1:1' } }, 'x', FLUX),
    );
    expect(twice.message).toBe(
      'aspect_ratio is given twice with different values (size and extra_body.aspect_ratio)',
    );
    expect(mapImageRequest({ prompt: 'p', seed: 1, extra_body: { seed: 1 } }, 'x', FLUX).params).toEqual({
      model_name: 'x',
      prompt: 'p',
      seed: 1,
    });
  });

  it('fields named like Object members stay plain fields for the schema to judge', () => {
    const body = JSON.parse('{"prompt": "p", "toString": 1, "__proto__": {"polluted": true}}');
    const mapped = mapImageRequest(body, 'x', FLUX);
    expect(Object.keys(mapped.params)).toEqual(['model_name', 'prompt', 'toString', '__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(mapped.params)).toBe(Object.prototype);
  });

  it('extra_body must be an object', () => {
    for (const extra of ['seed=1', [1], 3]) {
      expect(failure(() => mapImageRequest({ prompt: 'p', extra_body: extra }, 'x', FLUX)).param).toBe(
        'extra_body',
      );
    }
  });
});

describe('mapVideoRequest', () => {
  it('maps seconds → duration, size → aspect_ratio, prompt, extra_body', () => {
    const mapped = mapVideoRequest(
      { model: 'sora-2', prompt: 'waves', seconds: '8', size: '1280x720', extra_body: { seed: 5 } },
      'sora-2',
    );
    expect(mapped.params).toEqual({
      model_name: 'sora-2',
      prompt: 'waves',
      duration: 8,
      aspect_ratio: '16:9',
      seed: 5,
    });
    expect(mapped.origins).toMatchObject({
      duration: 'seconds',
      aspect_ratio: 'size',
      seed: 'extra_body.seed',
    });
  });

  it('input_reference.image_url becomes start_image_url; file ids and other shapes are refused', () => {
    expect(
      mapVideoRequest(
        { prompt: 'p', input_reference: { image_url: 'https://img.example.com/first.png' } },
        'kling-2-1',
      ).params.start_image_url,
    ).toBe('https://img.example.com/first.png');
    expect(
      failure(() => mapVideoRequest({ prompt: 'p', input_reference: { file_id: 'file_1' } }, 'x')).param,
    ).toBe('input_reference.file_id');
    expect(
      failure(() => mapVideoRequest({ prompt: 'p', input_reference: 'https://a.example/x.png' }, 'x')).param,
    ).toBe('input_reference');
  });

  it('passes other fields on for the schema to judge', () => {
    expect(mapVideoRequest({ prompt: 'p', generate_audio: true }, 'veo-3-fast').params.generate_audio).toBe(
      true,
    );
  });
});

describe('errors in OpenAI terms', () => {
  it('names the OpenAI field a native param came from', () => {
    const renamed = inOpenAiTerms(
      new AppError('invalid_parameter', 'invalid aspect_ratio: must be one of 16:9, 9:16', 'aspect_ratio'),
      {
        aspect_ratio: 'size',
        model_name: 'model',
      },
    );
    expect([renamed.param, renamed.message, renamed.status]).toEqual([
      'size',
      'invalid aspect_ratio: must be one of 16:9, 9:16 (size → aspect_ratio)',
      422,
    ]);
    const model = inOpenAiTerms(new AppError('model_not_allowed', 'This key may not use x', 'model_name'), {
      model_name: 'model',
    });
    expect([model.param, model.message]).toEqual(['model', 'This key may not use x']);
    const untouched = new AppError('missing_parameter', 'prompt is required', 'prompt');
    expect(inOpenAiTerms(untouched, { aspect_ratio: 'size' })).toBe(untouched);
  });
});

describe('nativeParamNames', () => {
  it('lists the properties of a params schema', () => {
    expect([...nativeParamNames({ type: 'object', properties: { a: {}, b: {} } })]).toEqual(['a', 'b']);
    expect(nativeParamNames(null).size).toBe(0);
  });
});

describe('form values', () => {
  const schema = {
    type: 'object',
    properties: {
      model_name: { type: 'string' },
      prompt: { type: 'string' },
      seed: { type: 'integer' },
      cfg_scale: { type: 'number' },
      generate_audio: { type: 'boolean' },
      reference_image_urls: { type: 'array', items: { type: 'string' } },
    },
  };

  it('turns text into the declared type when it is a literal of it', () => {
    expect(
      coerceFormValues(
        {
          model_name: 'm',
          prompt: '42',
          seed: '42',
          cfg_scale: '0.5',
          generate_audio: 'true',
          reference_image_urls: ['https://a'],
        },
        schema,
      ),
    ).toEqual({
      model_name: 'm',
      prompt: '42',
      seed: 42,
      cfg_scale: 0.5,
      generate_audio: true,
      reference_image_urls: ['https://a'],
    });
  });

  it('leaves anything else for the schema to refuse', () => {
    expect(coerceFormValues({ seed: 'x1', generate_audio: 'yes', unknown: '3' }, schema)).toEqual({
      seed: 'x1',
      generate_audio: 'yes',
      unknown: '3',
    });
    expect(coerceFormValues({ seed: '1' }, null)).toEqual({ seed: '1' });
  });
});

describe('a failed task as an OpenAI error', () => {
  it.each([
    ['Provider rejected prompt: contains restricted content', 'content_policy_violation', 400],
    ['Parameter validation failed: invalid aspect_ratio for this provider', 'upstream_rejected_request', 400],
    ['duration must be between 5 and 8', 'upstream_rejected_request', 400],
    ['unexpected parameter: foo', 'upstream_rejected_request', 400],
    ['Provider billing error', 'upstream_error', 502],
    ['Timeout while waiting for provider response', 'provider_timeout', 502],
    ['Service temporarily unavailable (code E-294, high load)', 'upstream_overloaded', 503],
    ['Provider returned no result', 'upstream_error', 502],
  ])('%s → %s (%i), with the task id and the message', (message, code, status) => {
    expect(failureCode(message)).toBe(code);
    const error = taskFailureError('t-1', message);
    expect([error.code, error.status, error.message, error.extra.body]).toEqual([
      code,
      status,
      message,
      { task_id: 't-1' },
    ]);
  });

  it('an overloaded provider says when to retry', () => {
    expect(
      taskFailureError('t', 'Service temporarily unavailable (code E-294, high load)').extra.headers,
    ).toEqual({
      'Retry-After': '10',
    });
  });
});
