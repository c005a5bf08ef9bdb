// The Gemini API (generativelanguage.googleapis.com) as a TaskProvider:
// - video (Veo): POST /v1beta/models/{model}:predictLongRunning starts an operation whose `name` is
//   our job id; GET /v1beta/{name} polls it; the video file is downloaded with our key.
// - image (gemini-2.5-flash-image, "nano-banana"): POST /v1beta/models/{model}:generateContent is
//   synchronous, so the submit answers with the image itself.
// The API has no client reference, no webhooks and no cancel for these operations (models.operations
// has only get and list), so there is no reconcile, receiveHook or cancel: an uncertain submit is
// left to the deadline, which refunds.
import {
  callUpstream,
  NotSentError,
  openDownload,
  retryAfterMs,
  UncertainError,
} from '../http/upstream-http.js';
import type {
  PollOutcome,
  ProviderCheck,
  ProviderTask,
  SubmitOutcome,
  TaskProvider,
} from '../task-provider.js';
import { mapErrorAnswer, mapOperationError } from './errors.js';
import { type InlineImage, InputImageError, type InputImageFetcher } from './inputs.js';
import { apiRoot, imageBody, inputImageUrl, validateImage, validateVeo, veoBody } from './request.js';
import {
  type GenerateContentResponse,
  pngSize,
  readImage,
  readOperation,
  type VeoOperation,
} from './response.js';

export interface GeminiOptions {
  baseUrl: string;
  apiKey: string;
  /** Veo's personGeneration, when the operator must set it (e.g. "allow_adult" in some regions). */
  personGeneration?: string;
  inputs: InputImageFetcher;
  submitTimeoutMs?: number;
}

/** Our job id for a synchronous image answer: there is no upstream job to resume. */
const IMAGE_JOB_PREFIX = 'sync:';
const POLL_RETRY_MS = 15_000;
/** An image generation answers in 5-30 s; a Veo submit at once. */
const IMAGE_TIMEOUT_MS = 180_000;
/** `models/{model}/operations/{id}` as documented; a bare `operations/{id}` is accepted too. */
const OPERATION_NAME = /^(?:models\/[\w.-]+\/)?operations\/[\w.-]+$/;

function isOperationName(name: string): boolean {
  return OPERATION_NAME.test(name) && !name.split('/').some((segment) => segment === '.' || segment === '..');
}

export class GeminiProvider implements TaskProvider {
  readonly type = 'gemini';
  private readonly root: string;

  constructor(private readonly options: GeminiOptions) {
    this.root = apiRoot(options.baseUrl);
  }

  private get auth(): Record<string, string> {
    return { 'x-goog-api-key': this.options.apiKey };
  }

  async submit(task: ProviderTask): Promise<SubmitOutcome> {
    const refusal = task.kind === 'video' ? validateVeo(task) : validateImage(task);
    if (refusal) return { status: 'failed', failure: refusal.refused };
    let image: InlineImage | undefined;
    const url = inputImageUrl(task);
    if (url) {
      try {
        image = await this.options.inputs.fetch(url);
      } catch (error) {
        if (!(error instanceof InputImageError)) throw error;
        const name = task.kind === 'video' ? 'start_image_url' : 'image_url';
        return { status: 'failed', failure: { kind: 'params', message: `${name} ${error.message}` } };
      }
    }
    return task.kind === 'video' ? this.submitVideo(task, image) : this.submitImage(task, image);
  }

  private modelUrl(model: string, method: string): string {
    return `${this.root}/models/${encodeURIComponent(model.replace(/^models\//, ''))}:${method}`;
  }

  private async submitVideo(task: ProviderTask, image: InlineImage | undefined): Promise<SubmitOutcome> {
    let response: Awaited<ReturnType<typeof callUpstream>>;
    try {
      response = await callUpstream({
        method: 'POST',
        url: this.modelUrl(task.upstreamModel, 'predictLongRunning'),
        headers: this.auth,
        json: veoBody(task, image, this.options.personGeneration),
        timeoutMs: this.options.submitTimeoutMs,
      });
    } catch (error) {
      if (error instanceof UncertainError) return { status: 'uncertain', detail: error.message };
      throw error;
    }
    if (response.status < 200 || response.status >= 300) return mapErrorAnswer(response);
    const name = response.json?.name;
    if (typeof name !== 'string' || !isOperationName(name))
      return {
        status: 'uncertain',
        detail: `predictLongRunning answered without an operation name: ${response.text.slice(0, 500)}`,
      };
    return { status: 'submitted', jobId: name };
  }

  private async submitImage(task: ProviderTask, image: InlineImage | undefined): Promise<SubmitOutcome> {
    let response: Awaited<ReturnType<typeof callUpstream>>;
    try {
      response = await callUpstream({
        method: 'POST',
        url: this.modelUrl(task.upstreamModel, 'generateContent'),
        headers: this.auth,
        json: imageBody(task, image),
        timeoutMs: this.options.submitTimeoutMs ?? IMAGE_TIMEOUT_MS,
      });
    } catch (error) {
      if (error instanceof UncertainError) return { status: 'uncertain', detail: error.message };
      throw error;
    }
    if (response.status < 200 || response.status >= 300) return mapErrorAnswer(response);
    const body = response.json as GenerateContentResponse | undefined;
    if (typeof body !== 'object' || body === null)
      return {
        status: 'uncertain',
        detail: `generateContent answered a body that is not JSON: ${response.text.slice(0, 500)}`,
      };
    const result = readImage(body);
    if (result.status === 'failed') return result;
    const size = result.mimeType === 'image/png' ? pngSize(result.data) : undefined;
    return {
      status: 'succeeded',
      jobId: `${IMAGE_JOB_PREFIX}${body.responseId ?? task.id}`,
      outputs: [{ source: { kind: 'bytes', data: result.data }, contentType: result.mimeType, ...size }],
      usage: { images: 1, ...(result.outputTokens !== undefined ? { tokens: result.outputTokens } : {}) },
    };
  }

  async poll(jobId: string, task: ProviderTask): Promise<PollOutcome> {
    if (!isOperationName(jobId))
      return { status: 'failed', failure: { kind: 'upstream', detail: `not a Gemini operation: ${jobId}` } };
    const response = await callUpstream({ method: 'GET', url: `${this.root}/${jobId}`, headers: this.auth });
    if (response.status === 429 || response.status >= 500)
      return { status: 'running', retryAfterMs: retryAfterMs(response) ?? POLL_RETRY_MS };
    if (response.status < 200 || response.status >= 300) {
      const mapped = mapErrorAnswer(response);
      // A poll is never busy (the job exists); a vanished operation is an upstream failure.
      if (mapped.status === 'busy')
        return { status: 'running', retryAfterMs: mapped.retryAfterMs ?? POLL_RETRY_MS };
      const kind = mapped.failure.kind === 'auth' ? 'auth' : 'upstream';
      return { status: 'failed', failure: { kind, detail: mapped.failure.detail } };
    }
    if (typeof response.json !== 'object' || response.json === null)
      return { status: 'running', retryAfterMs: POLL_RETRY_MS };
    const result = readOperation(response.json as VeoOperation);
    switch (result.status) {
      case 'running':
        return { status: 'running' };
      case 'error':
        return mapOperationError(result.error);
      case 'failed':
        return result;
      case 'video': {
        const seconds = typeof task.params.duration === 'number' ? task.params.duration : undefined;
        // The key goes only to the API's own origin: a URI elsewhere is downloaded without it.
        const headers = new URL(result.uri).origin === new URL(this.root).origin ? this.auth : {};
        return {
          status: 'succeeded',
          outputs: [
            {
              source: { kind: 'stream', open: () => openDownload(result.uri, headers) },
              contentType: 'video/mp4',
              ...(seconds !== undefined ? { durationSec: seconds } : {}),
            },
          ],
          ...(seconds !== undefined ? { usage: { seconds } } : {}),
        };
      }
    }
  }

  /** GET /v1beta/models?pageSize=1: authenticated, free, generates nothing. */
  async check(): Promise<ProviderCheck> {
    try {
      const response = await callUpstream({
        method: 'GET',
        url: `${this.root}/models?pageSize=1`,
        headers: this.auth,
        timeoutMs: 15_000,
      });
      if (response.status >= 200 && response.status < 300) return { reachable: true, authOk: true };
      return {
        reachable: true,
        authOk: false,
        detail: `HTTP ${response.status}: ${response.text.slice(0, 300)}`,
      };
    } catch (error) {
      if (error instanceof NotSentError || error instanceof UncertainError)
        return { reachable: false, authOk: false, detail: error.message };
      throw error;
    }
  }
}
