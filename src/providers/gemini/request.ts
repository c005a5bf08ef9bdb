// Our validated params → the Gemini API bodies: Veo's predictLongRunning and the image model's
// generateContent. Whatever the Gemini API cannot express is refused here, before any network call,
// with a spec-style parameter message.
import type { ProviderFailure, ProviderTask } from '../task-provider.js';
import type { InlineImage } from './inputs.js';

export type Refusal = { refused: ProviderFailure };

export interface VeoBody {
  instances: Array<{ prompt: string; image?: { bytesBase64Encoded: string; mimeType: string } }>;
  parameters: {
    aspectRatio?: string;
    durationSeconds?: number;
    negativePrompt?: string;
    personGeneration?: string;
  };
}

export interface ImageBody {
  contents: Array<{
    role: 'user';
    parts: Array<{ text: string } | { inlineData: { mimeType: string; data: string } }>;
  }>;
  generationConfig: {
    responseModalities: ['IMAGE'];
    imageConfig?: { aspectRatio: string };
    seed?: number;
  };
}

const VEO_PARAMS = new Set([
  'prompt',
  'negative_prompt',
  'duration',
  'aspect_ratio',
  'generate_audio',
  'start_image_url',
  'seed',
]);
const IMAGE_PARAMS = new Set(['prompt', 'aspect_ratio', 'seed', 'image_url']);
const VEO_ASPECT_RATIOS = new Set(['16:9', '9:16']);
const IMAGE_ASPECT_RATIOS = new Set([
  '1:1',
  '2:3',
  '3:2',
  '3:4',
  '4:3',
  '4:5',
  '5:4',
  '9:16',
  '16:9',
  '21:9',
]);
/** GenerationConfig.seed is an int32. */
const MAX_IMAGE_SEED = 2_147_483_647;

function refuse(message: string): Refusal {
  return { refused: { kind: 'params', message } };
}

function unexpected(params: Record<string, unknown>, known: Set<string>): Refusal | undefined {
  const extra = Object.keys(params).find((name) => !known.has(name) && params[name] !== undefined);
  return extra ? refuse(`unexpected parameter: ${extra}`) : undefined;
}

/**
 * Veo 3 and 3.1 take 4, 6 or 8 seconds; Veo 2 takes 5 to 8. Our veo-3-fast is billed per second of
 * the requested duration, so a length the model cannot make is refused, never rounded.
 */
export function veoDurations(upstreamModel: string): number[] {
  return upstreamModel.startsWith('veo-2') ? [5, 6, 7, 8] : [4, 6, 8];
}

/** The image input the task needs downloaded first, if any (checked before the download). */
export function inputImageUrl(task: ProviderTask): string | undefined {
  const url = task.kind === 'video' ? task.params.start_image_url : task.params.image_url;
  return typeof url === 'string' && url !== '' ? url : undefined;
}

export function validateVeo(task: ProviderTask): Refusal | undefined {
  const { params } = task;
  const extra = unexpected(params, VEO_PARAMS);
  if (extra) return extra;
  if (typeof params.prompt !== 'string' || params.prompt.trim() === '') return refuse('prompt is required');
  // The Gemini API has no seed for Veo (Vertex AI has); the official SDK refuses it for this API too.
  if (params.seed !== undefined) return refuse('unexpected parameter: seed');
  if (params.aspect_ratio !== undefined && !VEO_ASPECT_RATIOS.has(String(params.aspect_ratio)))
    return refuse('invalid aspect_ratio: must be 16:9 or 9:16');
  if (params.duration !== undefined) {
    const allowed = veoDurations(task.upstreamModel).filter((d) => d >= 5 && d <= 8);
    if (!allowed.includes(Number(params.duration)))
      return refuse(
        allowed.length === 4
          ? 'duration must be between 5 and 8'
          : `duration must be ${allowed.join(' or ')}`,
      );
  }
  return undefined;
}

export function validateImage(task: ProviderTask): Refusal | undefined {
  const { params } = task;
  const extra = unexpected(params, IMAGE_PARAMS);
  if (extra) return extra;
  if (typeof params.prompt !== 'string' || params.prompt.trim() === '') return refuse('prompt is required');
  if (params.aspect_ratio !== undefined && !IMAGE_ASPECT_RATIOS.has(String(params.aspect_ratio)))
    return refuse('invalid aspect_ratio');
  if (params.seed !== undefined && (!Number.isInteger(params.seed) || Number(params.seed) > MAX_IMAGE_SEED))
    return refuse(`seed must be an integer from 0 to ${MAX_IMAGE_SEED}`);
  return undefined;
}

/**
 * `generate_audio` is never sent: the Gemini API refuses the field, and Veo 3 there always renders
 * audio. The client asked for audio or not; either way the price of its choice is what it pays.
 */
export function veoBody(
  task: ProviderTask,
  image: InlineImage | undefined,
  personGeneration?: string,
): VeoBody {
  const { params } = task;
  const instance: VeoBody['instances'][number] = { prompt: String(params.prompt) };
  if (image) instance.image = { bytesBase64Encoded: image.data.toString('base64'), mimeType: image.mimeType };
  const parameters: VeoBody['parameters'] = {};
  if (params.aspect_ratio !== undefined) parameters.aspectRatio = String(params.aspect_ratio);
  if (params.duration !== undefined) parameters.durationSeconds = Number(params.duration);
  if (typeof params.negative_prompt === 'string' && params.negative_prompt !== '')
    parameters.negativePrompt = params.negative_prompt;
  if (personGeneration) parameters.personGeneration = personGeneration;
  return { instances: [instance], parameters };
}

export function imageBody(task: ProviderTask, image: InlineImage | undefined): ImageBody {
  const { params } = task;
  const parts: ImageBody['contents'][number]['parts'] = [];
  // The image to edit goes before the instruction, as Google's editing examples order them.
  if (image) parts.push({ inlineData: { mimeType: image.mimeType, data: image.data.toString('base64') } });
  parts.push({ text: String(params.prompt) });
  const generationConfig: ImageBody['generationConfig'] = { responseModalities: ['IMAGE'] };
  if (params.aspect_ratio !== undefined)
    generationConfig.imageConfig = { aspectRatio: String(params.aspect_ratio) };
  if (params.seed !== undefined) generationConfig.seed = Number(params.seed);
  return { contents: [{ role: 'user', parts }], generationConfig };
}

/** The API root: the operator's base_url with or without its trailing /v1beta. */
export function apiRoot(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '').replace(/\/v1beta$/, '')}/v1beta`;
}
