// The OpenAI media adapter: gpt-image-1 through the synchronous Images API (the result comes back in
// the create answer, so submit succeeds at once) and sora-2 through the asynchronous Videos API
// (create, then poll GET /videos/{id}, then download /videos/{id}/content with our key).
// No cancel: DELETE /videos/{id} is documented for completed or failed videos only.
// No reconcile: the API cannot look a video up by a client reference.

import { ownEntry } from '../../domain/own-entry.js';
import {
  callUpstream,
  describeAnswer,
  openDownload,
  UncertainError,
  type UpstreamResponse,
} from '../http/upstream-http.js';
import type {
  HookOutcome,
  IncomingHook,
  PollOutcome,
  ProviderCheck,
  ProviderOutput,
  ProviderTask,
  SubmitContext,
  SubmitOutcome,
  TaskProvider,
} from '../task-provider.js';
import { jobFailure, openAiError, pollError, submitError } from './media-errors.js';
import { imageRequest, isRefusal, type SeedPolicy, videoRequest } from './media-request.js';
import { receiveOpenAiHook } from './media-webhook.js';

export interface OpenAiMediaSettings {
  /** Includes /v1, no trailing slash. */
  baseUrl: string;
  /** Optional like for chat (an OpenAI-compatible server may need none); OpenAI answers 401 without. */
  apiKey: string | undefined;
  /** The project's webhook signing secret (`whsec_…`); without it a delivery is only a hint. */
  webhookSecret?: string;
  seed?: SeedPolicy;
}

/** Image generation is synchronous and can take a while at high quality; the spec allows 180 s. */
const IMAGE_TIMEOUT_MS = 180_000;
const CALL_TIMEOUT_MS = 60_000;
/** The job id of a synchronous image: never polled, since the task finished at submit. */
const IMAGE_JOB_PREFIX = 'img_';

const IMAGE_TYPES: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

/** The content type of the upstream's `output_format`: PNG when absent or not one it documents. */
export function imageContentType(format: unknown): string {
  return ownEntry(IMAGE_TYPES, String(format ?? 'png')) ?? 'image/png';
}

interface ImageAnswer {
  data?: Array<{ b64_json?: unknown; url?: unknown }>;
  output_format?: unknown;
  usage?: { output_tokens?: unknown };
}

interface VideoObject {
  id?: unknown;
  status?: unknown;
  seconds?: unknown;
  size?: unknown;
  expires_at?: unknown;
  error?: unknown;
}

export class OpenAiMediaProvider implements TaskProvider {
  readonly type = 'openai';

  constructor(private readonly settings: OpenAiMediaSettings) {}

  private headers(task?: ProviderTask): Record<string, string> {
    return {
      ...(this.settings.apiKey ? { authorization: `Bearer ${this.settings.apiKey}` } : {}),
      // OpenAI logs this id with the request: it ties our task to the upstream's records for support.
      ...(task ? { 'x-client-request-id': task.id } : {}),
    };
  }

  async submit(task: ProviderTask, _context?: SubmitContext): Promise<SubmitOutcome> {
    // OpenAI has no per-request callback: its webhooks are configured once per project.
    return task.kind === 'image' ? this.submitImage(task) : this.submitVideo(task);
  }

  private async create(call: Parameters<typeof callUpstream>[0]): Promise<UpstreamResponse | SubmitOutcome> {
    try {
      return await callUpstream(call);
    } catch (error) {
      // NotSentError propagates: nothing reached OpenAI, so the runner may retry or move on.
      if (error instanceof UncertainError) return { status: 'uncertain', detail: error.message };
      throw error;
    }
  }

  private async submitImage(task: ProviderTask): Promise<SubmitOutcome> {
    const request = imageRequest(task, this.settings.seed);
    if (isRefusal(request)) return { status: 'failed', failure: request.failure };
    const response = await this.create({
      method: 'POST',
      url: `${this.settings.baseUrl}/images/generations`,
      headers: this.headers(task),
      json: request.body,
      timeoutMs: IMAGE_TIMEOUT_MS,
    });
    if (!('text' in response)) return response;
    if (response.status < 200 || response.status >= 300) return submitError(response);
    const answer = response.json as ImageAnswer | undefined;
    const contentType = imageContentType(answer?.output_format);
    const outputs: ProviderOutput[] = [];
    for (const item of Array.isArray(answer?.data) ? answer.data : []) {
      const size = { contentType, width: request.width, height: request.height };
      if (typeof item?.b64_json === 'string' && item.b64_json)
        outputs.push({ source: { kind: 'bytes', data: Buffer.from(item.b64_json, 'base64') }, ...size });
      // dall-e models answer a public URL instead (gpt-image-1 always sends base64).
      else if (typeof item?.url === 'string')
        outputs.push({ source: { kind: 'url', url: item.url }, ...size });
    }
    if (outputs.length === 0)
      return { status: 'uncertain', detail: `2xx answer without an image: ${describeAnswer(response)}` };
    const tokens = answer?.usage?.output_tokens;
    return {
      status: 'succeeded',
      jobId: `${IMAGE_JOB_PREFIX}${task.id}`,
      outputs,
      usage: { images: outputs.length, ...(typeof tokens === 'number' ? { tokens } : {}) },
    };
  }

  private async submitVideo(task: ProviderTask): Promise<SubmitOutcome> {
    const request = videoRequest(task, this.settings.seed);
    if (isRefusal(request)) return { status: 'failed', failure: request.failure };
    const response = await this.create({
      method: 'POST',
      url: `${this.settings.baseUrl}/videos`,
      headers: this.headers(task),
      body: request.form,
      timeoutMs: CALL_TIMEOUT_MS,
    });
    if (!('text' in response)) return response;
    if (response.status < 200 || response.status >= 300) return submitError(response);
    const id = (response.json as VideoObject | undefined)?.id;
    if (typeof id !== 'string' || !id)
      return { status: 'uncertain', detail: `2xx answer without a video id: ${describeAnswer(response)}` };
    return { status: 'submitted', jobId: id };
  }

  async poll(jobId: string, task: ProviderTask): Promise<PollOutcome> {
    if (jobId.startsWith(IMAGE_JOB_PREFIX)) {
      return {
        status: 'failed',
        failure: {
          kind: 'upstream',
          detail: `image job ${jobId} finished at submit; there is nothing to poll`,
        },
      };
    }
    const url = `${this.settings.baseUrl}/videos/${encodeURIComponent(jobId)}`;
    const response = await callUpstream({
      method: 'GET',
      url,
      headers: this.headers(),
      timeoutMs: CALL_TIMEOUT_MS,
    });
    if (response.status < 200 || response.status >= 300) return pollError(response);
    const video = (response.json ?? {}) as VideoObject;
    if (video.status === 'failed')
      return { status: 'failed', failure: jobFailure(openAiError(video), describeAnswer(response)) };
    // queued, in_progress, and anything we do not know yet: never terminal.
    if (video.status !== 'completed') return { status: 'running' };
    return { status: 'succeeded', ...this.videoResult(url, video, task) };
  }

  private videoResult(url: string, video: VideoObject, task: ProviderTask) {
    const seconds = Number(video.seconds ?? task.params.duration);
    const size = typeof video.size === 'string' ? /^(\d+)x(\d+)$/.exec(video.size) : null;
    const headers = this.headers();
    const output: ProviderOutput = {
      source: { kind: 'stream', open: () => openDownload(`${url}/content`, headers) },
      contentType: 'video/mp4',
      ...(size ? { width: Number(size[1]), height: Number(size[2]) } : {}),
      ...(Number.isFinite(seconds) ? { durationSec: seconds } : {}),
      ...(typeof video.expires_at === 'number' ? { expiresAt: video.expires_at * 1000 } : {}),
    };
    return { outputs: [output], usage: Number.isFinite(seconds) ? { seconds } : undefined };
  }

  async receiveHook(hook: IncomingHook): Promise<HookOutcome> {
    return receiveOpenAiHook(hook, this.settings.webhookSecret);
  }

  /** GET /models: authenticated, lists what the key may use, generates nothing. */
  async check(): Promise<ProviderCheck> {
    let response: UpstreamResponse;
    try {
      response = await callUpstream({
        method: 'GET',
        url: `${this.settings.baseUrl}/models`,
        headers: this.headers(),
        timeoutMs: 15_000,
      });
    } catch (error) {
      return { reachable: false, authOk: false, detail: (error as Error).message };
    }
    if (response.status >= 200 && response.status < 300) return { reachable: true, authOk: true };
    return { reachable: true, authOk: false, detail: describeAnswer(response) };
  }
}
