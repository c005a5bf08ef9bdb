// Our validated task params → the OpenAI Images and Videos request bodies. What the upstream cannot
// express is refused here, before any network call, with the spec's parameter message.
import { FormData } from 'undici';
import { ownEntry } from '../../domain/own-entry.js';
import type { ProviderFailure, ProviderTask } from '../task-provider.js';

/** gpt-image-1 sizes; the images API has no other shapes (besides "auto", which we never send). */
export const IMAGE_SIZES: Record<string, { size: string; width: number; height: number }> = {
  '1:1': { size: '1024x1024', width: 1024, height: 1024 },
  '3:2': { size: '1536x1024', width: 1536, height: 1024 },
  '2:3': { size: '1024x1536', width: 1024, height: 1536 },
};

/** sora-2 sizes (sora-2-pro adds larger ones that no catalog model asks for). */
export const VIDEO_SIZES: Record<string, { size: string; width: number; height: number }> = {
  '16:9': { size: '1280x720', width: 1280, height: 720 },
  '9:16': { size: '720x1280', width: 720, height: 1280 },
};

export const VIDEO_SECONDS = [4, 8, 12] as const;
const IMAGE_QUALITIES = ['low', 'medium', 'high'];

/**
 * How a `seed` is treated. The OpenAI APIs have no seed (their output is never reproducible), but the
 * catalog offers one for gpt-image-1 and sora-2: by default it is dropped so that a request the
 * catalog accepts is not failed by the route; `refuse` fails it as "unexpected parameter: seed".
 */
export type SeedPolicy = 'ignore' | 'refuse';

type Refusal = { failure: ProviderFailure };

export interface ImageRequest {
  body: { model: string; prompt: string; n: 1; size: string; quality?: string };
  width: number;
  height: number;
}

export interface VideoRequest {
  form: FormData;
  /** The fields sent, for the logs and tests (the form itself is consumed by the request). */
  fields: { model: string; prompt: string; seconds: string; size: string };
  seconds: number;
  width: number;
  height: number;
}

const KNOWN_IMAGE = new Set(['prompt', 'aspect_ratio', 'quality', 'seed']);
const KNOWN_VIDEO = new Set(['prompt', 'duration', 'aspect_ratio', 'seed', 'start_image_url']);

function params(message: string): Refusal {
  return { failure: { kind: 'params', message } };
}

/** The first param this adapter cannot pass on (a catalog edited to offer more than the API takes). */
function unexpected(task: ProviderTask, known: Set<string>, seed: SeedPolicy): Refusal | undefined {
  for (const [name, value] of Object.entries(task.params)) {
    if (value === undefined || value === null) continue;
    if (!known.has(name) || (name === 'seed' && seed === 'refuse'))
      return params(`unexpected parameter: ${name}`);
  }
  return undefined;
}

function prompt(task: ProviderTask): string | Refusal {
  const value = task.params.prompt;
  return typeof value === 'string' && value.trim() ? value : params('prompt is required');
}

export function imageRequest(task: ProviderTask, seed: SeedPolicy = 'ignore'): ImageRequest | Refusal {
  const refusal = unexpected(task, KNOWN_IMAGE, seed);
  if (refusal) return refusal;
  const text = prompt(task);
  if (typeof text !== 'string') return text;
  const aspect = task.params.aspect_ratio ?? '1:1';
  const shape = typeof aspect === 'string' ? ownEntry(IMAGE_SIZES, aspect) : undefined;
  if (!shape) return params('invalid aspect_ratio');
  const quality = task.params.quality;
  if (quality !== undefined && (typeof quality !== 'string' || !IMAGE_QUALITIES.includes(quality)))
    return params('quality must be low, medium or high');
  return {
    body: {
      model: task.upstreamModel,
      prompt: text,
      n: 1,
      size: shape.size,
      ...(quality !== undefined ? { quality } : {}),
    },
    width: shape.width,
    height: shape.height,
  };
}

export function videoRequest(task: ProviderTask, seed: SeedPolicy = 'ignore'): VideoRequest | Refusal {
  const refusal = unexpected(task, KNOWN_VIDEO, seed);
  if (refusal) return refusal;
  // input_reference is a file upload whose pixels must equal `size` exactly: sending it would mean
  // downloading a client URL from our servers and resizing it, which this adapter does not do.
  if (task.params.start_image_url !== undefined) return params('unexpected parameter: start_image_url');
  const text = prompt(task);
  if (typeof text !== 'string') return text;
  const duration = task.params.duration ?? 4;
  if (!VIDEO_SECONDS.includes(duration as (typeof VIDEO_SECONDS)[number]))
    return params('duration must be 4, 8 or 12');
  const aspect = task.params.aspect_ratio ?? '16:9';
  const shape = typeof aspect === 'string' ? ownEntry(VIDEO_SIZES, aspect) : undefined;
  if (!shape) return params('invalid aspect_ratio');
  const fields = { model: task.upstreamModel, prompt: text, seconds: String(duration), size: shape.size };
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return { form, fields, seconds: duration as number, width: shape.width, height: shape.height };
}

export function isRefusal(value: object): value is Refusal {
  return 'failure' in value;
}
