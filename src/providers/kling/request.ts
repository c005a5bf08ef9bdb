// Our params → Kling's create body. Kling has two create endpoints with different poll paths:
// text2video, and image2video when a start image is given. Anything Kling cannot express is refused
// here, before any network call, with a spec-style parameter message.

export type KlingEndpoint = 'text2video' | 'image2video';
export type KlingMode = 'std' | 'pro';

export const KLING_ENDPOINTS: readonly KlingEndpoint[] = ['text2video', 'image2video'];
const DURATIONS = [5, 10];
const ASPECT_RATIOS = ['16:9', '9:16', '1:1'];
/** Our params Kling has a field for; any other one is refused as "unexpected parameter". */
const KNOWN = new Set([
  'prompt',
  'negative_prompt',
  'duration',
  'aspect_ratio',
  'cfg_scale',
  'start_image_url',
  'end_image_url',
]);

/**
 * Kling's model names for our catalog ids, for a route that names no upstream model (its `model` is
 * then our own id). Kling lists kling-v2-1 (standard) for image-to-video only; its text-to-video
 * counterpart is kling-v2-1-master.
 */
const DEFAULT_MODELS: Record<string, Record<KlingEndpoint, string>> = {
  'kling-2-1': { text2video: 'kling-v2-1-master', image2video: 'kling-v2-1' },
  'kling-1-6': { text2video: 'kling-v1-6', image2video: 'kling-v1-6' },
};

/** The model_name sent to Kling: the route's upstream model, or our default for the catalog id. */
export function klingModelName(upstreamModel: string, endpoint: KlingEndpoint): string {
  const base = upstreamModel.split(':')[0];
  return DEFAULT_MODELS[base]?.[endpoint] ?? upstreamModel;
}

export interface KlingCreate {
  endpoint: KlingEndpoint;
  body: Record<string, unknown>;
}

export type MappedRequest = { ok: true; request: KlingCreate } | { ok: false; message: string };

export interface RequestContext {
  taskId: string;
  upstreamModel: string;
  mode: KlingMode;
  callbackUrl?: string;
}

/** The endpoint a task's request goes to (and so the path its job is polled and looked up at). */
export function endpointFor(params: Record<string, unknown>): KlingEndpoint {
  return typeof params.start_image_url === 'string' || typeof params.end_image_url === 'string'
    ? 'image2video'
    : 'text2video';
}

/**
 * Kling's callback carries the task object but not which endpoint created it; our callback URL
 * carries it instead, so a hook names the exact job (see receiveHook). The URL's own query
 * (task, token) is kept intact.
 */
export function callbackWithEndpoint(callbackUrl: string, endpoint: KlingEndpoint): string {
  return `${callbackUrl}${callbackUrl.includes('?') ? '&' : '?'}kling_endpoint=${endpoint}`;
}

export function buildCreateRequest(params: Record<string, unknown>, context: RequestContext): MappedRequest {
  for (const name of Object.keys(params))
    if (!KNOWN.has(name) && params[name] !== undefined && params[name] !== null)
      return { ok: false, message: `unexpected parameter: ${name}` };
  const duration = params.duration ?? 5;
  if (typeof duration !== 'number' || !DURATIONS.includes(duration))
    return { ok: false, message: 'duration must be 5 or 10' };
  const endpoint = endpointFor(params);
  const body: Record<string, unknown> = { model_name: klingModelName(context.upstreamModel, endpoint) };
  if (endpoint === 'image2video') {
    if (typeof params.start_image_url !== 'string')
      return { ok: false, message: 'end_image_url requires start_image_url' };
    body.image = params.start_image_url;
    if (typeof params.end_image_url === 'string') body.image_tail = params.end_image_url;
  }
  if (typeof params.prompt === 'string') body.prompt = params.prompt;
  else if (endpoint === 'text2video') return { ok: false, message: 'prompt is required' };
  if (typeof params.negative_prompt === 'string' && params.negative_prompt)
    body.negative_prompt = params.negative_prompt;
  if (params.cfg_scale !== undefined) {
    if (typeof params.cfg_scale !== 'number' || params.cfg_scale < 0 || params.cfg_scale > 1)
      return { ok: false, message: 'cfg_scale must be between 0 and 1' };
    body.cfg_scale = params.cfg_scale;
  }
  body.mode = context.mode;
  // image2video has no aspect_ratio: the video takes the start image's shape. Our schema fills a
  // default, so it is dropped there rather than refused; text2video checks it.
  if (endpoint === 'text2video') {
    const aspectRatio = params.aspect_ratio ?? '16:9';
    if (typeof aspectRatio !== 'string' || !ASPECT_RATIOS.includes(aspectRatio))
      return { ok: false, message: 'invalid aspect_ratio' };
    body.aspect_ratio = aspectRatio;
  }
  body.duration = String(duration);
  if (context.callbackUrl) body.callback_url = callbackWithEndpoint(context.callbackUrl, endpoint);
  body.external_task_id = context.taskId;
  return { ok: true, request: { endpoint, body } };
}
