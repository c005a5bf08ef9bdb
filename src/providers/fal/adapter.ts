// fal.ai's queue API: submit to {base}/{endpoint path} → request_id; poll the request's status
// (IN_QUEUE → IN_PROGRESS → COMPLETED); a COMPLETED request's result is read from its response URL,
// which answers the model's own error (e.g. 422 content_policy_violation) when the model failed.
// fal has no client reference and no lookup by one, so there is no reconcile: a submit whose answer
// was lost is found when fal calls our webhook, whose body names the request_id.
import type { ProviderSettings } from '../config.js';
import {
  callUpstream,
  describeAnswer,
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
  ProviderUsage,
  SubmitContext,
  SubmitOutcome,
  TaskProvider,
} from '../task-provider.js';
import { errorItems, mapFalError } from './errors.js';
import { jobIdFor, parseJobId, REQUEST_ID } from './job-id.js';
import { buildFalRequest } from './request.js';

/** A request id fal never issued: its status answers 404 to a valid key and 401 to a wrong one. */
const CHECK_REQUEST_ID = '00000000-0000-4000-8000-000000000000';
const DEFAULT_CHECK_APP = 'fal-ai/flux';

interface FalFile {
  url?: unknown;
  content_type?: unknown;
  width?: unknown;
  height?: unknown;
  duration?: unknown;
}

const num = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;

/** A fal file → our output: a public CDN URL, or a data: URI (endpoints run with sync_mode). */
function outputOf(file: FalFile): ProviderOutput | undefined {
  if (typeof file?.url !== 'string' || file.url === '') return undefined;
  const contentType = typeof file.content_type === 'string' ? file.content_type : undefined;
  const data = /^data:([^;,]+)?(;base64)?,(.*)$/s.exec(file.url);
  const source: ProviderOutput['source'] = data
    ? {
        kind: 'bytes',
        data: data[2] ? Buffer.from(data[3], 'base64') : Buffer.from(decodeURIComponent(data[3])),
      }
    : { kind: 'url', url: file.url };
  if (!data && !/^https?:\/\//.test(file.url)) return undefined;
  return {
    source,
    contentType: contentType ?? data?.[1],
    width: num(file.width),
    height: num(file.height),
    durationSec: num(file.duration),
  };
}

/** Video endpoints answer {video: File}; image endpoints {images: [File]} (a few {image: File}). */
function resultOf(json: any): { outputs: ProviderOutput[]; usage?: ProviderUsage } | undefined {
  if (json?.video) {
    const output = outputOf(json.video);
    return output ? { outputs: [output] } : undefined;
  }
  const files: FalFile[] = Array.isArray(json?.images) ? json.images : json?.image ? [json.image] : [];
  const outputs = files.map(outputOf).filter((o): o is ProviderOutput => o !== undefined);
  return outputs.length > 0 ? { outputs, usage: { images: outputs.length } } : undefined;
}

export class FalProvider implements TaskProvider {
  readonly type = 'fal';

  constructor(private readonly settings: ProviderSettings) {}

  private get headers(): Record<string, string> {
    return { authorization: `Key ${this.settings.apiKey ?? ''}` };
  }

  async submit(task: ProviderTask, context?: SubmitContext): Promise<SubmitOutcome> {
    const request = buildFalRequest(task);
    if ('error' in request) return { status: 'failed', failure: { kind: 'params', message: request.error } };
    if ('config' in request)
      return { status: 'failed', failure: { kind: 'upstream', detail: request.config } };
    // Our callback URL keeps its own query (task, token); fal calls it as given.
    const query = context?.callbackUrl ? `?fal_webhook=${encodeURIComponent(context.callbackUrl)}` : '';
    let response: UpstreamResponse;
    try {
      response = await callUpstream({
        method: 'POST',
        url: `${this.settings.baseUrl}/${request.path}${query}`,
        headers: this.headers,
        json: request.input,
      });
    } catch (error) {
      // NotSentError propagates (nothing reached fal); a lost answer may hide a queued request.
      if (error instanceof UncertainError) return { status: 'uncertain', detail: error.message };
      throw error;
    }
    if (response.status >= 200 && response.status < 300) {
      const requestId = response.json?.request_id;
      if (typeof requestId !== 'string' || !REQUEST_ID.test(requestId))
        return {
          status: 'uncertain',
          detail: `submit answered without a request_id: ${describeAnswer(response)}`,
        };
      return { status: 'submitted', jobId: jobIdFor(response.json, this.settings.baseUrl, request.path) };
    }
    return mapFalError(response);
  }

  /** The endpoint path the task was submitted to (the status URLs live under its app). */
  private job(jobId: string, task: ProviderTask) {
    const request = buildFalRequest(task);
    return parseJobId(jobId, this.settings.baseUrl, 'path' in request ? request.path : task.upstreamModel);
  }

  async poll(jobId: string, task: ProviderTask): Promise<PollOutcome> {
    const job = this.job(jobId, task);
    if (!job)
      return { status: 'failed', failure: { kind: 'upstream', detail: `not a fal job id: ${jobId}` } };
    const status = await callUpstream({ method: 'GET', url: job.statusUrl, headers: this.headers });
    if (status.status === 429 || status.status >= 500) return { status: 'running', retryAfterMs: 1_000 };
    // fal answers 202 while the request is queued or running and 200 once it is COMPLETED: every
    // 2xx is a status to read, the body's `status` decides.
    if (status.status < 200 || status.status >= 300) {
      // A refused key or a locked account, as at submit; a request fal does not know (404) cannot
      // finish: nothing to wait for.
      const meaning = mapFalError(status);
      if (
        meaning.status === 'failed' &&
        (meaning.failure.kind === 'auth' || meaning.failure.kind === 'billing')
      )
        return meaning;
      return { status: 'failed', failure: { kind: 'upstream', detail: describeAnswer(status) } };
    }
    // IN_QUEUE, IN_PROGRESS, and anything fal may add later: still running.
    if (status.json?.status !== 'COMPLETED') return { status: 'running' };
    return this.result(job.responseUrl, status);
  }

  private async result(responseUrl: string, status: UpstreamResponse): Promise<PollOutcome> {
    const result = await callUpstream({ method: 'GET', url: responseUrl, headers: this.headers });
    // A 202 here is the queue saying the result is not stored yet: read it again on the next poll.
    if (result.status === 202) return { status: 'running', retryAfterMs: 1_000 };
    if (result.status >= 200 && result.status < 300) {
      const parsed = resultOf(result.json);
      if (parsed) return { status: 'succeeded', ...parsed };
      return {
        status: 'failed',
        failure: {
          kind: 'upstream',
          detail: `COMPLETED without a video or image: ${describeAnswer(result)}`,
        },
      };
    }
    // The request is COMPLETED, so an answer with fal's error detail is the model's final failure;
    // a 429 or a 5xx without one (a gateway hiccup) is read again on the next poll.
    if (result.status === 429 || (result.status >= 500 && errorItems(result.json).length === 0))
      return { status: 'running', retryAfterMs: 1_000 };
    const meaning = mapFalError(result);
    if (meaning.status === 'busy') return { status: 'running', retryAfterMs: meaning.retryAfterMs };
    return {
      status: 'failed',
      failure: {
        ...meaning.failure,
        detail: `${meaning.failure.detail} (status: ${status.text.slice(0, 500)})`,
      },
    };
  }

  /** PUT cancel: a queued request is removed, a running one only signalled (fal's own words). */
  async cancel(jobId: string, task: ProviderTask): Promise<void> {
    const job = this.job(jobId, task);
    if (!job) throw new Error(`not a fal job id: ${jobId}`);
    const response = await callUpstream({ method: 'PUT', url: job.cancelUrl, headers: this.headers });
    // ALREADY_COMPLETED (400) and NOT_FOUND (404) are answers too: there is nothing left to stop.
    if (response.status >= 200 && response.status < 300) return;
    if ((response.status === 400 || response.status === 404) && typeof response.json?.status === 'string')
      return;
    throw new Error(`fal cancel failed: ${describeAnswer(response)}`);
  }

  /**
   * fal POSTs {request_id, gateway_request_id, status: "OK"|"ERROR", payload, error}. Its ED25519
   * signature needs fal's JWKS (fetched from fal at runtime), so the body is only a hint: the runner
   * polls the request and never reads the result from here. The request_id is returned as the job
   * id, which also tells a task whose submit answer was lost which request it owns.
   */
  async receiveHook(hook: IncomingHook): Promise<HookOutcome> {
    let requestId: unknown;
    try {
      requestId = JSON.parse(hook.rawBody.toString('utf8'))?.request_id;
    } catch {
      requestId = undefined;
    }
    const taskId = hook.query.task || undefined;
    const jobId = typeof requestId === 'string' && REQUEST_ID.test(requestId) ? requestId : undefined;
    return { status: 'accepted', ...(jobId ? { jobId } : {}), ...(taskId ? { taskId } : {}) };
  }

  /** GET the status of a request id fal never issued: 404 means the key was accepted. */
  async check(): Promise<ProviderCheck> {
    const app =
      typeof this.settings.options.check_app === 'string'
        ? this.settings.options.check_app
        : DEFAULT_CHECK_APP;
    let response: UpstreamResponse;
    try {
      response = await callUpstream({
        method: 'GET',
        url: `${this.settings.baseUrl}/${app}/requests/${CHECK_REQUEST_ID}/status`,
        headers: this.headers,
        timeoutMs: 15_000,
      });
    } catch (error) {
      return { reachable: false, authOk: false, detail: (error as Error).message };
    }
    if (response.status === 401 || response.status === 403)
      return { reachable: true, authOk: false, detail: describeAnswer(response) };
    if (response.status >= 500) return { reachable: true, authOk: false, detail: describeAnswer(response) };
    return { reachable: true, authOk: true };
  }
}
