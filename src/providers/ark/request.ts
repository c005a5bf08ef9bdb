// Our validated params → the Ark request bodies. Seedance video takes its settings as top-level
// fields (resolution, ratio, duration, seed, watermark) next to a `content` list of text, image,
// video and audio items; the older `--rs/--rt/--dur` text commands are never written into the prompt.
// Seedream images are one synchronous POST whose `size` we derive from the aspect ratio.

import { ownEntry } from '../../domain/own-entry.js';
import type { ProviderFailure, ProviderTask } from '../task-provider.js';

export type ArkContentItem =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string }; role: 'first_frame' | 'last_frame' | 'reference_image' }
  | { type: 'video_url'; video_url: { url: string }; role: 'reference_video' }
  | { type: 'audio_url'; audio_url: { url: string }; role: 'reference_audio' };

export interface ArkVideoBody {
  model: string;
  content: ArkContentItem[];
  callback_url?: string;
  resolution?: string;
  ratio?: string;
  duration?: number;
  seed?: number;
  watermark: false;
}

export interface ArkImageBody {
  model: string;
  prompt: string;
  size: string;
  response_format: 'url';
  watermark: false;
  seed?: number;
  image?: string;
}

export type Built<T> = { body: T } | { failure: ProviderFailure };

/** Ratios Seedance accepts in `ratio` (`adaptive` lets the first frame decide). */
const VIDEO_RATIOS = new Set(['16:9', '4:3', '1:1', '3:4', '9:16', '21:9', '9:21', 'adaptive']);
const VIDEO_RESOLUTIONS = new Set(['480p', '720p', '1080p']);

/**
 * Seedream 4.0 output sizes by aspect ratio: the "2K" sizes of the Seedream 4.0 docs (about 4 Mpx,
 * every side a multiple of 16). Documented in docs/providers/ark.md.
 */
export const SEEDREAM_SIZES: Record<string, { width: number; height: number }> = {
  '1:1': { width: 2048, height: 2048 },
  '4:3': { width: 2304, height: 1728 },
  '3:4': { width: 1728, height: 2304 },
  '16:9': { width: 2560, height: 1440 },
  '9:16': { width: 1440, height: 2560 },
  '3:2': { width: 2496, height: 1664 },
  '2:3': { width: 1664, height: 2496 },
  '21:9': { width: 3024, height: 1296 },
};

const VIDEO_PARAMS = new Set([
  'prompt',
  'duration',
  'aspect_ratio',
  'resolution',
  'seed',
  'start_image_url',
  'end_image_url',
  'reference_image_urls',
  'reference_video_urls',
  'reference_audio_urls',
]);
const IMAGE_PARAMS = new Set(['prompt', 'aspect_ratio', 'seed', 'image_url']);

function params(message: string): { failure: ProviderFailure } {
  return { failure: { kind: 'params', message } };
}

function unexpected(task: ProviderTask, known: Set<string>): { failure: ProviderFailure } | undefined {
  for (const [name, value] of Object.entries(task.params))
    if (value !== undefined && value !== null && !known.has(name))
      return params(`unexpected parameter: ${name}`);
  return undefined;
}

function urlList(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item === ''))
    return undefined;
  return value as string[];
}

/**
 * Video and audio references exist only on Seedance 2.x (and later); a Seedance 1.x model name
 * (BytePlus or Volcengine spelling) cannot take them. An `ep-…` endpoint id is not recognisable
 * and is left to the upstream to judge.
 */
export function isSeedanceV1(upstreamModel: string): boolean {
  return /seedance-1-/i.test(upstreamModel);
}

export function buildVideoBody(task: ProviderTask, callbackUrl: string | undefined): Built<ArkVideoBody> {
  const refused = unexpected(task, VIDEO_PARAMS);
  if (refused) return refused;
  const p = task.params;
  const content: ArkContentItem[] = [];
  if (p.prompt !== undefined && p.prompt !== null) {
    if (typeof p.prompt !== 'string') return params('prompt must be a string');
    if (p.prompt.trim() !== '') content.push({ type: 'text', text: p.prompt });
  }
  const body: ArkVideoBody = { model: task.upstreamModel, content, watermark: false };
  if (p.duration !== undefined && p.duration !== null) {
    if (typeof p.duration !== 'number' || !Number.isInteger(p.duration) || p.duration <= 0)
      return params('duration must be a whole number of seconds');
    body.duration = p.duration;
  }
  if (p.aspect_ratio !== undefined && p.aspect_ratio !== null) {
    if (typeof p.aspect_ratio !== 'string' || !VIDEO_RATIOS.has(p.aspect_ratio))
      return params('invalid aspect_ratio');
    body.ratio = p.aspect_ratio;
  }
  if (p.resolution !== undefined && p.resolution !== null) {
    if (typeof p.resolution !== 'string' || !VIDEO_RESOLUTIONS.has(p.resolution))
      return params('resolution must be 480p, 720p or 1080p');
    body.resolution = p.resolution;
  }
  if (p.seed !== undefined && p.seed !== null) {
    if (typeof p.seed !== 'number' || !Number.isInteger(p.seed)) return params('seed must be an integer');
    body.seed = p.seed;
  }
  const start = p.start_image_url;
  const end = p.end_image_url;
  if (start !== undefined && start !== null) {
    if (typeof start !== 'string' || start === '') return params('start_image_url must be a URL');
    content.push({ type: 'image_url', image_url: { url: start }, role: 'first_frame' });
  }
  if (end !== undefined && end !== null) {
    if (typeof end !== 'string' || end === '') return params('end_image_url must be a URL');
    // Ark generates towards a last frame only from a first frame.
    if (typeof start !== 'string') return params('end_image_url requires start_image_url');
    content.push({ type: 'image_url', image_url: { url: end }, role: 'last_frame' });
  }
  const images = urlList(p.reference_image_urls);
  const videos = urlList(p.reference_video_urls);
  const audios = urlList(p.reference_audio_urls);
  if (!images) return params('reference_image_urls must be a list of URLs');
  if (!videos) return params('reference_video_urls must be a list of URLs');
  if (!audios) return params('reference_audio_urls must be a list of URLs');
  if (isSeedanceV1(task.upstreamModel)) {
    if (videos.length > 0) return params('unexpected parameter: reference_video_urls');
    if (audios.length > 0) return params('unexpected parameter: reference_audio_urls');
  }
  // Seedance 2.0 refuses audio as the only reference: it needs an image or a video beside it.
  if (audios.length > 0 && images.length + videos.length === 0 && typeof start !== 'string')
    return params('reference_audio_urls requires a reference image or video');
  for (const url of images) content.push({ type: 'image_url', image_url: { url }, role: 'reference_image' });
  for (const url of videos) content.push({ type: 'video_url', video_url: { url }, role: 'reference_video' });
  for (const url of audios) content.push({ type: 'audio_url', audio_url: { url }, role: 'reference_audio' });
  if (content.length === 0) return params('prompt is required');
  if (callbackUrl) body.callback_url = callbackUrl;
  return { body };
}

export function buildImageBody(task: ProviderTask): Built<ArkImageBody> {
  const refused = unexpected(task, IMAGE_PARAMS);
  if (refused) return refused;
  const p = task.params;
  if (typeof p.prompt !== 'string' || p.prompt.trim() === '') return params('prompt is required');
  const ratio = p.aspect_ratio ?? '1:1';
  const size = typeof ratio === 'string' ? ownEntry(SEEDREAM_SIZES, ratio) : undefined;
  if (!size) return params('invalid aspect_ratio');
  const body: ArkImageBody = {
    model: task.upstreamModel,
    prompt: p.prompt,
    size: `${size.width}x${size.height}`,
    response_format: 'url',
    watermark: false,
  };
  if (p.seed !== undefined && p.seed !== null) {
    if (typeof p.seed !== 'number' || !Number.isInteger(p.seed)) return params('seed must be an integer');
    body.seed = p.seed;
  }
  if (p.image_url !== undefined && p.image_url !== null) {
    if (typeof p.image_url !== 'string' || p.image_url === '') return params('image_url must be a URL');
    body.image = p.image_url;
  }
  return { body };
}

/** "2048x2048" → width and height, when the upstream says. */
export function parseSize(size: unknown): { width: number; height: number } | undefined {
  if (typeof size !== 'string') return undefined;
  const match = /^(\d+)\s*[x×*]\s*(\d+)$/i.exec(size.trim());
  return match ? { width: Number(match[1]), height: Number(match[2]) } : undefined;
}
