// Our params → a fal endpoint path and its JSON input. fal hosts each model under its own path with
// its own input schema, so the mapping is per model family (chosen by our catalog model id). When a
// start image is given, most families live under a sibling path (…/image-to-video, …/edit).
// Anything the endpoint cannot express is refused here, before any network call.
import { ownEntry } from '../../domain/own-entry.js';

export type FalInput = Record<string, unknown>;

export type FalRequest =
  | { path: string; input: FalInput }
  /** A parameter the endpoint cannot take: the client's message. */
  | { error: string }
  /** The route names no fal endpoint for this model: an operator's mistake, not the client's. */
  | { config: string };

interface Family {
  /** The fal path used when the route names none (its `model` is our own model id). */
  defaultPath?: string;
  /** The sibling endpoint that takes a start/input image. */
  imagePath(path: string): string;
  /** Our params that this family accepts; any other param is refused. */
  accepts: readonly string[];
  build(params: Record<string, unknown>, withImage: boolean): FalInput | string;
}

const replaceTail = (from: string, to: string) => (path: string) =>
  path.endsWith(`/${from}`) ? `${path.slice(0, -from.length)}${to}` : path;
const appendTail = (tail: string) => (path: string) => (path.endsWith(`/${tail}`) ? path : `${path}/${tail}`);

/** fal's named image sizes; the other ratios go as explicit {width, height}. */
const IMAGE_SIZES: Record<string, string | { width: number; height: number }> = {
  '1:1': 'square_hd',
  '16:9': 'landscape_16_9',
  '9:16': 'portrait_16_9',
  '4:3': 'landscape_4_3',
  '3:4': 'portrait_4_3',
  '3:2': { width: 1536, height: 1024 },
  '2:3': { width: 1024, height: 1536 },
  '21:9': { width: 2016, height: 864 },
};

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Copies the params that are set, under fal's names. */
function pick(params: Record<string, unknown>, names: Record<string, string>): FalInput {
  const out: FalInput = {};
  for (const [ours, theirs] of Object.entries(names))
    if (params[ours] !== undefined) out[theirs] = params[ours];
  return out;
}

function imageSize(params: Record<string, unknown>): FalInput | string {
  const ratio = str(params.aspect_ratio);
  if (!ratio) return {};
  const size = ownEntry(IMAGE_SIZES, ratio);
  return size
    ? { image_size: size }
    : `invalid aspect_ratio: must be one of ${Object.keys(IMAGE_SIZES).join(', ')}`;
}

const FAMILIES: Record<string, Family> = {
  // fal-ai/kling-video/v2.1/{standard|pro|master}/{text|image}-to-video: duration is the string "5"|"10";
  // the image endpoint takes no aspect_ratio (the image decides) and neither takes a seed.
  'kling-2-1': {
    defaultPath: 'fal-ai/kling-video/v2.1/standard/text-to-video',
    imagePath: replaceTail('text-to-video', 'image-to-video'),
    accepts: ['prompt', 'negative_prompt', 'duration', 'aspect_ratio', 'cfg_scale', 'start_image_url'],
    build(params, withImage) {
      const duration = params.duration === undefined ? undefined : String(params.duration);
      if (duration !== undefined && duration !== '5' && duration !== '10') return 'duration must be 5 or 10';
      return {
        ...pick(params, { prompt: 'prompt', negative_prompt: 'negative_prompt', cfg_scale: 'cfg_scale' }),
        ...(duration ? { duration } : {}),
        ...(withImage
          ? { image_url: params.start_image_url }
          : pick(params, { aspect_ratio: 'aspect_ratio' })),
      };
    },
  },
  // fal-ai/veo3/fast[/image-to-video]: duration is "4s"|"6s"|"8s".
  'veo-3-fast': {
    defaultPath: 'fal-ai/veo3/fast',
    imagePath: appendTail('image-to-video'),
    accepts: [
      'prompt',
      'negative_prompt',
      'duration',
      'aspect_ratio',
      'generate_audio',
      'seed',
      'start_image_url',
    ],
    build(params, withImage) {
      const duration = params.duration;
      if (duration !== undefined && ![4, 6, 8].includes(Number(duration)))
        return 'duration must be 4, 6 or 8';
      return {
        ...pick(params, {
          prompt: 'prompt',
          negative_prompt: 'negative_prompt',
          aspect_ratio: 'aspect_ratio',
          generate_audio: 'generate_audio',
          seed: 'seed',
        }),
        ...(duration !== undefined ? { duration: `${Number(duration)}s` } : {}),
        ...(withImage ? { image_url: params.start_image_url } : {}),
      };
    },
  },
  // fal-ai/sora-2/{text|image}-to-video: duration is the integer 4|8|12; no seed.
  'sora-2': {
    defaultPath: 'fal-ai/sora-2/text-to-video',
    imagePath: replaceTail('text-to-video', 'image-to-video'),
    accepts: ['prompt', 'duration', 'aspect_ratio', 'start_image_url'],
    build(params, withImage) {
      const duration = params.duration === undefined ? undefined : Number(params.duration);
      if (duration !== undefined && ![4, 8, 12].includes(duration)) return 'duration must be 4, 8 or 12';
      return {
        ...pick(params, { prompt: 'prompt', aspect_ratio: 'aspect_ratio' }),
        ...(duration !== undefined ? { duration } : {}),
        ...(withImage ? { image_url: params.start_image_url } : {}),
      };
    },
  },
  // fal-ai/bytedance/seedance/v1/pro/{text|image}-to-video: duration is a string of seconds; the
  // image endpoint also takes end_image_url and no aspect_ratio.
  'seedance-1-pro': seedance('fal-ai/bytedance/seedance/v1/pro/text-to-video'),
  // Seedance 2 has no default path here: the route names the fal endpoint (same input shape).
  'seedance-2': seedance(undefined),
  // fal-ai/flux-pro/v1.1 (image_size) and its image-variation sibling …/redux (image_url).
  'flux-1-1-pro': {
    defaultPath: 'fal-ai/flux-pro/v1.1',
    imagePath: appendTail('redux'),
    accepts: ['prompt', 'aspect_ratio', 'seed', 'image_url'],
    build(params, withImage) {
      const size = imageSize(params);
      if (typeof size === 'string') return size;
      return {
        ...pick(params, { prompt: 'prompt', seed: 'seed' }),
        ...size,
        ...(withImage ? { image_url: params.image_url } : {}),
        num_images: 1,
      };
    },
  },
  // fal-ai/bytedance/seedream/v4/text-to-image and …/edit (image_urls).
  'seedream-4': {
    defaultPath: 'fal-ai/bytedance/seedream/v4/text-to-image',
    imagePath: replaceTail('text-to-image', 'edit'),
    accepts: ['prompt', 'aspect_ratio', 'seed', 'image_url'],
    build(params, withImage) {
      const size = imageSize(params);
      if (typeof size === 'string') return size;
      return {
        ...pick(params, { prompt: 'prompt', seed: 'seed' }),
        ...size,
        ...(withImage ? { image_urls: [params.image_url] } : {}),
        num_images: 1,
      };
    },
  },
  // fal-ai/nano-banana and …/edit (image_urls): aspect_ratio as is; no seed.
  'nano-banana': {
    defaultPath: 'fal-ai/nano-banana',
    imagePath: appendTail('edit'),
    accepts: ['prompt', 'aspect_ratio', 'image_url'],
    build(params, withImage) {
      return {
        ...pick(params, { prompt: 'prompt', aspect_ratio: 'aspect_ratio' }),
        ...(withImage ? { image_urls: [params.image_url] } : {}),
        num_images: 1,
      };
    },
  },
};

function seedance(defaultPath: string | undefined): Family {
  return {
    defaultPath,
    imagePath: replaceTail('text-to-video', 'image-to-video'),
    accepts: ['prompt', 'duration', 'resolution', 'aspect_ratio', 'seed', 'start_image_url', 'end_image_url'],
    build(params, withImage) {
      if (params.end_image_url !== undefined && !withImage) return 'end_image_url requires start_image_url';
      return {
        ...pick(params, { prompt: 'prompt', resolution: 'resolution', seed: 'seed' }),
        ...(params.duration !== undefined ? { duration: String(params.duration) } : {}),
        ...(withImage
          ? pick(params, { start_image_url: 'image_url', end_image_url: 'end_image_url' })
          : pick(params, { aspect_ratio: 'aspect_ratio' })),
      };
    },
  };
}

/** Our model ids with a variant suffix (`veo-3-fast:audio`) map like their base model. */
function familyOf(modelId: string): Family | undefined {
  return ownEntry(FAMILIES, modelId.split(':')[0]);
}

/** A route's `model` that is a fal path (owner/app[/…]); otherwise it is our own model id. */
function isFalPath(model: string): boolean {
  return /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/.test(model);
}

/**
 * The endpoint and input for a task. Models without a family (any other fal endpoint a route names)
 * get our params as they are, with `start_image_url` sent as fal's usual `image_url`.
 */
export function buildFalRequest(task: {
  modelId: string;
  upstreamModel: string;
  params: Record<string, unknown>;
}): FalRequest {
  const family = familyOf(task.modelId);
  const routed = isFalPath(task.upstreamModel) ? task.upstreamModel : undefined;
  const path = routed ?? family?.defaultPath;
  if (!path) return { config: `no fal endpoint for model ${task.upstreamModel}: set the route's model` };
  // A resolution variant of our catalog (`seedance-2:1080p`) asks for that resolution.
  const variant = task.modelId.split(':')[1];
  const params =
    variant &&
    /^\d+p$/.test(variant) &&
    family?.accepts.includes('resolution') &&
    task.params.resolution === undefined
      ? { ...task.params, resolution: variant }
      : task.params;
  if (!family) {
    const { start_image_url, ...rest } = params;
    const input = start_image_url === undefined ? rest : { ...rest, image_url: start_image_url };
    return { path, input };
  }
  for (const name of Object.keys(params))
    if (params[name] !== undefined && !family.accepts.includes(name))
      return { error: `unexpected parameter: ${name}` };
  const withImage = str(params.start_image_url) !== undefined || str(params.image_url) !== undefined;
  const input = family.build(params, withImage);
  if (typeof input === 'string') return { error: input };
  return { path: withImage ? family.imagePath(path) : path, input };
}

/** The fal app (owner/app) of an endpoint path: the queue's status and result URLs live under it. */
export function appOf(path: string): string {
  return path.split('/').slice(0, 2).join('/');
}
