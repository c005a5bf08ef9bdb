// Our params → a Replicate prediction request. Every Replicate model has its own input schema, so
// the names of the catalog's params are mapped per upstream model family (the models our catalog
// routes to), with a generic mapping for any other model. What a model cannot take is refused here,
// before any network call; values the model might refuse are left to its own 422 (see errors.ts).

import { ownEntry } from '../../domain/own-entry.js';
import type { ProviderFailure, ProviderTask, SubmitContext } from '../task-provider.js';

/** Where a prediction is created: an official model's endpoint, or a version on /predictions. */
export type ModelTarget =
  | { kind: 'model'; owner: string; name: string }
  | { kind: 'version'; version: string };

const VERSION_HASH = /^[0-9a-f]{64}$/;
const OWNER_NAME = /^([a-z0-9][a-z0-9._-]*)\/([a-z0-9][a-z0-9._-]*)$/i;

/** "owner/name" → official model; "owner/name:hash" or a bare 64-hex hash → that version. */
export function parseUpstreamModel(model: string): ModelTarget | undefined {
  if (VERSION_HASH.test(model)) return { kind: 'version', version: model };
  const colon = model.indexOf(':');
  if (colon >= 0) {
    const version = model.slice(colon + 1);
    return OWNER_NAME.test(model.slice(0, colon)) && VERSION_HASH.test(version)
      ? { kind: 'version', version }
      : undefined;
  }
  const match = OWNER_NAME.exec(model);
  return match ? { kind: 'model', owner: match[1], name: match[2] } : undefined;
}

/**
 * How one model family names our params. `rename`: our param → its input name (missing = same
 * name); `lists`: input names that take an array (one URL becomes a one-element list); `refuse`:
 * our params it has no input for; `aspectRatios`: values it accepts, when it accepts fewer than
 * our catalog offers; `aspectRatio`: a translation of values (Sora's portrait/landscape);
 * `require`: our params it cannot run without; `omit`: our params it has no use for that the
 * catalog fills with a default (not sent); `fixed`: inputs always sent.
 */
interface InputMapping {
  rename?: Record<string, string>;
  lists?: string[];
  refuse?: string[];
  aspectRatios?: string[];
  aspectRatio?: Record<string, string>;
  require?: string[];
  omit?: string[];
  fixed?: Record<string, unknown>;
}

/** Params of our catalog that carry files no Replicate model we route to takes. */
const GENERIC: InputMapping = {
  rename: {
    start_image_url: 'image',
    end_image_url: 'last_frame_image',
    image_url: 'image',
    reference_image_urls: 'reference_images',
  },
  refuse: ['reference_video_urls', 'reference_audio_urls'],
};

/** Keyed by "owner/name" (without a version); the inputs as the models' pages list them. */
const FAMILIES: Record<string, InputMapping> = {
  'black-forest-labs/flux-1.1-pro': {
    rename: { image_url: 'image_prompt' },
    aspectRatios: ['1:1', '16:9', '3:2', '2:3', '4:5', '5:4', '9:16', '3:4', '4:3'],
  },
  'bytedance/seedream-4': { rename: { image_url: 'image_input' }, lists: ['image_input'], refuse: ['seed'] },
  'google/nano-banana': { rename: { image_url: 'image_input' }, lists: ['image_input'], refuse: ['seed'] },
  'bytedance/seedance-1-pro': {
    rename: { start_image_url: 'image', end_image_url: 'last_frame_image' },
  },
  'kwaivgi/kling-v2.1': {
    // Image-to-video: the first frame is required and sets the frame shape, so aspect_ratio (which
    // our catalog always fills with its default) is not sent.
    rename: { start_image_url: 'start_image' },
    refuse: ['cfg_scale', 'seed'],
    require: ['start_image_url'],
    omit: ['aspect_ratio'],
    fixed: { mode: 'standard' },
  },
  'google/veo-3-fast': { rename: { start_image_url: 'image' } },
  'openai/sora-2': {
    rename: { duration: 'seconds', start_image_url: 'input_reference' },
    aspectRatio: { '16:9': 'landscape', '9:16': 'portrait' },
    refuse: ['seed'],
  },
};

/** Params that never go into the input: they are ours, not the model's. */
const NOT_INPUT = new Set(['model_name', 'webhook_url']);

export function mappingFor(upstreamModel: string): InputMapping {
  const base = upstreamModel.split(':')[0].toLowerCase();
  const family = ownEntry(FAMILIES, base);
  if (!family) return GENERIC;
  return {
    ...family,
    rename: { ...GENERIC.rename, ...family.rename },
    refuse: [...(GENERIC.refuse ?? []), ...(family.refuse ?? [])],
  };
}

/**
 * Our name for a model's input field (for a 422's field): among our params renamed to it, the one
 * the task carries (`image` is both `start_image_url` and `image_url` in the generic mapping).
 */
export function ourParamName(
  task: Pick<ProviderTask, 'upstreamModel' | 'params'>,
  inputName: string,
): string {
  const rename = mappingFor(task.upstreamModel).rename ?? {};
  const candidates = Object.entries(rename)
    .filter(([, upstream]) => upstream === inputName)
    .map(([ours]) => ours);
  return candidates.find((ours) => task.params[ours] !== undefined) ?? candidates[0] ?? inputName;
}

function refusal(message: string): { failure: ProviderFailure } {
  return { failure: { kind: 'params', message } };
}

/** The model's `input` for a task, or the parameter refusal the client sees. */
export function buildInput(
  task: Pick<ProviderTask, 'upstreamModel' | 'params'>,
): { input: Record<string, unknown> } | { failure: ProviderFailure } {
  const mapping = mappingFor(task.upstreamModel);
  for (const name of mapping.require ?? [])
    if (task.params[name] === undefined) return refusal(`${name} is required for this model`);
  const input: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(task.params)) {
    if (NOT_INPUT.has(name) || mapping.omit?.includes(name) || value === undefined || value === null)
      continue;
    if (mapping.refuse?.includes(name)) return refusal(`unexpected parameter: ${name}`);
    let sent = value;
    if (name === 'aspect_ratio') {
      if (mapping.aspectRatio) {
        sent = mapping.aspectRatio[String(value)];
        if (sent === undefined)
          return refusal(
            `invalid aspect_ratio: must be one of ${Object.keys(mapping.aspectRatio).join(', ')}`,
          );
      } else if (mapping.aspectRatios && !mapping.aspectRatios.includes(String(value))) {
        return refusal(`invalid aspect_ratio: must be one of ${mapping.aspectRatios.join(', ')}`);
      }
    }
    const inputName = mapping.rename?.[name] ?? name;
    if (mapping.lists?.includes(inputName) && !Array.isArray(sent)) sent = [sent];
    input[inputName] = sent;
  }
  return { input: { ...input, ...mapping.fixed } };
}

export interface CreateCall {
  path: string;
  body: Record<string, unknown>;
}

/** The create call: the endpoint by model target, the input, and our callback as the webhook. */
export function createCall(
  target: ModelTarget,
  input: Record<string, unknown>,
  context: SubmitContext | undefined,
): CreateCall {
  // Replicate has no client reference field: our callback URL (which carries `task=<id>`) is the
  // only place our task id travels, and it is what reconcile matches on.
  const hook = context?.callbackUrl
    ? { webhook: context.callbackUrl, webhook_events_filter: ['completed'] }
    : {};
  if (target.kind === 'model')
    return {
      path: `/models/${encodeURIComponent(target.owner)}/${encodeURIComponent(target.name)}/predictions`,
      body: { input, ...hook },
    };
  return { path: '/predictions', body: { version: target.version, input, ...hook } };
}
