// The field mapping of the OpenAI-compatible generation endpoints onto native task params (the
// spec: model → model_name, size → aspect_ratio, seconds → duration, prompt stays prompt, extra_body
// → native params). Pure: the route resolves the model first and hands in the names of its native
// params; the model's JSON Schema then validates the result exactly as on POST /generate, so a
// field that is neither an OpenAI field nor a native param ends as "unexpected parameter" (422).
import { AppError } from '../errors.js';

export interface NativeRequest {
  /** Native params, model_name first, ready for the create-task use case. */
  params: Record<string, unknown>;
  /** The OpenAI field each mapped native param came from (aspect_ratio → size), to name it in errors. */
  origins: Record<string, string>;
}

export interface ImageRequest extends NativeRequest {
  responseFormat: 'url' | 'b64_json';
}

/** OpenAI's default models of the two endpoints, as the SDK documents them (for images: its current model). */
export const DEFAULT_IMAGE_MODEL = 'gpt-image-1';
export const DEFAULT_VIDEO_MODEL = 'sora-2';

/**
 * OpenAI image options with no gateway meaning of their own: passed on when the model has a native
 * param of that name (gpt-image-1 has `quality`), otherwise ignored, so a request written for
 * OpenAI keeps working.
 */
const IMAGE_HINTS = new Set([
  'background',
  'moderation',
  'output_compression',
  'output_format',
  'partial_images',
  'quality',
  'style',
  'user',
]);

const PIXELS = /^(\d{1,5})\s*[x×]\s*(\d{1,5})$/i;
const RATIO = /^(\d{1,5}):(\d{1,5})$/;
const WHOLE = /^\d{1,6}$/;

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

const absent = (value: unknown) => value === undefined || value === null;

/**
 * OpenAI's `size` as a native `aspect_ratio`: "W:H" is kept as given, a pixel size is reduced by
 * the gcd (1280x720 → 16:9, 1024x1792 → 4:7), "auto" leaves the model's default. Whether the ratio
 * is supported is the model schema's call.
 */
export function sizeToAspectRatio(size: unknown): string | undefined {
  if (absent(size) || size === 'auto') return undefined;
  const invalid = () =>
    new AppError('invalid_parameter', 'size must be WIDTHxHEIGHT (e.g. 1280x720) or W:H (e.g. 16:9)', 'size');
  if (typeof size !== 'string') throw invalid();
  const text = size.trim();
  if (RATIO.test(text)) {
    const [w, h] = text.split(':').map(Number);
    if (w === 0 || h === 0) throw invalid();
    return text;
  }
  const pixels = PIXELS.exec(text);
  if (!pixels) throw invalid();
  const [w, h] = [Number(pixels[1]), Number(pixels[2])];
  if (w === 0 || h === 0) throw invalid();
  const divisor = gcd(w, h);
  return `${w / divisor}:${h / divisor}`;
}

/** OpenAI's `seconds` as a native `duration`: the SDK sends a string ("4"); integers are fine too. */
export function secondsToDuration(seconds: unknown): number | undefined {
  if (absent(seconds)) return undefined;
  if (typeof seconds === 'number' && Number.isSafeInteger(seconds) && seconds >= 0) return seconds;
  if (typeof seconds === 'string' && WHOLE.test(seconds.trim())) return Number(seconds.trim());
  throw new AppError('invalid_parameter', 'seconds must be a whole number of seconds, e.g. "8"', 'seconds');
}

/**
 * The pixel size reported for a video of `aspectRatio`: the short side is the `resolution` param
 * when it names one ("1080p"), else 720, so 16:9 reads 1280x720 and 9:16 720x1280, as OpenAI's
 * sizes do. Both sides are even, as video encoders need.
 */
export function pixelSizeOf(aspectRatio: unknown, resolution?: unknown): string | null {
  if (typeof aspectRatio !== 'string' || !RATIO.test(aspectRatio)) return null;
  const [w, h] = aspectRatio.split(':').map(Number);
  if (w === 0 || h === 0) return null;
  const short =
    typeof resolution === 'string' && /^\d{3,4}p$/.test(resolution) ? Number.parseInt(resolution, 10) : 720;
  const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);
  return w >= h ? `${even((short * w) / h)}x${short}` : `${short}x${even((short * h) / w)}`;
}

/** The requested model id: a non-empty string, or the endpoint's default when absent. */
export function requestedModel(body: Record<string, unknown>, fallback: string): string {
  const model = body.model;
  if (absent(model) || model === '') return fallback;
  if (typeof model !== 'string') throw new AppError('invalid_parameter', 'model must be a string', 'model');
  return model;
}

/** Collects native params from the several places OpenAI clients put them, refusing contradictions. */
class NativeParams {
  // No prototype: a body field named "__proto__" or "toString" is just a field (for the schema to refuse).
  readonly params: Record<string, unknown> = Object.create(null);
  readonly origins: Record<string, string> = Object.create(null);

  set(name: string, value: unknown, origin: string): void {
    if (value === undefined) return;
    if (name === 'model_name')
      throw new AppError(
        'invalid_parameter',
        `${origin} is not accepted here: name the model with "model"`,
        origin,
      );
    if (Object.hasOwn(this.params, name) && JSON.stringify(this.params[name]) !== JSON.stringify(value)) {
      const earlier = this.origins[name] ?? name;
      throw new AppError(
        'invalid_parameter',
        `${name} is given twice with different values (${earlier} and ${origin})`,
        origin,
      );
    }
    this.params[name] = value;
    if (origin !== name) this.origins[name] = origin;
  }

  /** extra_body: an object whose fields are native params. */
  merge(extraBody: unknown): void {
    if (absent(extraBody)) return;
    if (typeof extraBody !== 'object' || Array.isArray(extraBody))
      throw new AppError(
        'invalid_parameter',
        'extra_body must be an object of native parameters',
        'extra_body',
      );
    for (const [name, value] of Object.entries(extraBody as Record<string, unknown>)) {
      if (name === 'model')
        throw new AppError(
          'invalid_parameter',
          'extra_body.model: give the model at the top level',
          'extra_body.model',
        );
      this.set(name, value, `extra_body.${name}`);
    }
  }

  result(modelId: string): NativeRequest {
    return {
      params: { model_name: modelId, ...this.params },
      origins: { model_name: 'model', ...this.origins },
    };
  }
}

/** The fields images and videos map alike; true when `field` was one of them. */
function mapSharedField(native: NativeParams, field: string, value: unknown): boolean {
  switch (field) {
    case 'model':
    case 'extra_body':
      return true;
    case 'prompt':
      if (!absent(value)) native.set('prompt', value, 'prompt');
      return true;
    case 'size':
      native.set('aspect_ratio', sizeToAspectRatio(value), 'size');
      return true;
    default:
      return false;
  }
}

/**
 * POST /v1/images/generations. `nativeNames` are the model's params (its schema's properties): an
 * OpenAI image option with a native twin is passed on, one without is ignored. `n` must be 1 and
 * `stream` false: one image per request, answered as a whole.
 */
export function mapImageRequest(
  body: Record<string, unknown>,
  modelId: string,
  nativeNames: ReadonlySet<string>,
): ImageRequest {
  const native = new NativeParams();
  let responseFormat: ImageRequest['responseFormat'] = 'url';
  for (const [field, value] of Object.entries(body)) {
    if (mapSharedField(native, field, value)) continue;
    switch (field) {
      case 'n':
        if (!absent(value) && value !== 1 && value !== '1')
          throw new AppError(
            'invalid_parameter',
            'n must be 1: this gateway generates one image per request',
            'n',
          );
        break;
      case 'response_format':
        if (absent(value)) break;
        if (value !== 'url' && value !== 'b64_json')
          throw new AppError(
            'invalid_parameter',
            'response_format must be "url" or "b64_json"',
            'response_format',
          );
        responseFormat = value;
        break;
      case 'stream':
        if (!absent(value) && value !== false)
          throw new AppError(
            'invalid_parameter',
            'stream is not supported: the image is returned when it is ready',
            'stream',
          );
        break;
      default:
        if (IMAGE_HINTS.has(field)) {
          if (!absent(value) && nativeNames.has(field)) native.set(field, value, field);
        } else {
          native.set(field, value, field);
        }
    }
  }
  native.merge(body.extra_body);
  return { ...native.result(modelId), responseFormat };
}

/** `input_reference` as a reference object ({image_url}); a file upload never gets this far. */
function inputReference(value: unknown): string | undefined {
  if (absent(value)) return undefined;
  if (typeof value === 'object' && !Array.isArray(value)) {
    const reference = value as Record<string, unknown>;
    const unknown = Object.keys(reference).find((k) => k !== 'image_url' && k !== 'file_id');
    if (unknown !== undefined)
      throw new AppError(
        'invalid_parameter',
        `input_reference.${unknown} is not supported`,
        `input_reference.${unknown}`,
      );
    if (!absent(reference.file_id))
      throw new AppError(
        'invalid_parameter',
        'input_reference.file_id is not supported: give input_reference.image_url (an https URL)',
        'input_reference.file_id',
      );
    if (!absent(reference.image_url)) return reference.image_url as string;
  }
  throw new AppError(
    'invalid_parameter',
    'input_reference must be {"image_url": "https://…"}; file uploads are not supported',
    'input_reference',
  );
}

/** POST /v1/videos. `input_reference.image_url` becomes the first frame (`start_image_url`). */
export function mapVideoRequest(body: Record<string, unknown>, modelId: string): NativeRequest {
  const native = new NativeParams();
  for (const [field, value] of Object.entries(body)) {
    if (mapSharedField(native, field, value)) continue;
    switch (field) {
      case 'seconds':
        native.set('duration', secondsToDuration(value), 'seconds');
        break;
      case 'input_reference':
        native.set('start_image_url', inputReference(value), 'input_reference.image_url');
        break;
      default:
        native.set(field, value, field);
    }
  }
  native.merge(body.extra_body);
  return native.result(modelId);
}

/** The names of a model's native params: the properties of its params schema. */
export function nativeParamNames(paramsSchema: Record<string, unknown> | null): ReadonlySet<string> {
  const properties = paramsSchema?.properties;
  return new Set(properties && typeof properties === 'object' ? Object.keys(properties) : []);
}

/** An error about a native param, renamed to the OpenAI field it came from (aspect_ratio → size). */
export function inOpenAiTerms(error: AppError, origins: Record<string, string>): AppError {
  const native = error.param;
  const origin = native !== null && Object.hasOwn(origins, native) ? origins[native] : undefined;
  if (origin === undefined) return error;
  // "invalid aspect_ratio: …" alone would puzzle a client that sent `size`.
  const message = origin === 'model' ? error.message : `${error.message} (${origin} → ${native})`;
  return new AppError(error.code, message, origin, error.extra);
}
