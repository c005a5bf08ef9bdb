// The Kling official API (api-singapore.klingai.com / api-beijing.klingai.com): text-to-video and
// image-to-video jobs, polled by id. Every call carries a freshly signed JWT. A job id names the
// endpoint that created it (`text2video:<task_id>`), because each endpoint has its own poll path.
import type { Clock } from '../../services/clock.js';
import {
  callUpstream,
  describeAnswer,
  retryAfterMs,
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
  ReconcileOutcome,
  SubmitContext,
  SubmitOutcome,
  TaskProvider,
} from '../task-provider.js';
import { failedJobKind, isKlingSuccess, klingCode, klingProblem } from './errors.js';
import { klingJwt } from './jwt.js';
import {
  buildCreateRequest,
  endpointFor,
  KLING_ENDPOINTS,
  type KlingEndpoint,
  type KlingMode,
} from './request.js';

export interface KlingSettings {
  baseUrl: string;
  accessKey: string;
  secretKey: string;
  /** Kling's generation mode: `std` (the default) or `pro` (higher quality, billed higher). */
  mode: KlingMode;
}

/** Kling deletes generated files after 30 days. */
const RESULT_RETENTION_MS = 30 * 24 * 3600 * 1000;
/** How many of the latest tasks the reconcile fallback scans for our external_task_id. */
const RECONCILE_PAGE_SIZE = 500;

/** The task object of a create, query and callback answer (`data`). */
interface KlingTaskData {
  task_id?: unknown;
  task_status?: unknown;
  task_status_msg?: unknown;
  task_info?: { external_task_id?: unknown };
  updated_at?: unknown;
  task_result?: { videos?: Array<{ id?: unknown; url?: unknown; duration?: unknown }> };
}

export function klingJobId(endpoint: KlingEndpoint, taskId: string): string {
  return `${endpoint}:${taskId}`;
}

/** A job id → endpoint and Kling task id; an id without a known prefix is a text2video task. */
export function parseKlingJobId(jobId: string): { endpoint: KlingEndpoint; taskId: string } {
  const colon = jobId.indexOf(':');
  const prefix = colon > 0 ? jobId.slice(0, colon) : '';
  if (KLING_ENDPOINTS.includes(prefix as KlingEndpoint))
    return { endpoint: prefix as KlingEndpoint, taskId: jobId.slice(colon + 1) };
  return { endpoint: 'text2video', taskId: jobId };
}

function taskData(response: UpstreamResponse): KlingTaskData | undefined {
  const data = response.json?.data;
  return data && typeof data === 'object' && !Array.isArray(data) ? (data as KlingTaskData) : undefined;
}

export class KlingProvider implements TaskProvider {
  readonly type = 'kling';

  constructor(
    private readonly settings: KlingSettings,
    private readonly clock: Clock,
  ) {}

  private headers(): Record<string, string> {
    const token = klingJwt(this.settings.accessKey, this.settings.secretKey, this.clock.now());
    return { authorization: `Bearer ${token}` };
  }

  private get(path: string): Promise<UpstreamResponse> {
    return callUpstream({ method: 'GET', url: `${this.settings.baseUrl}${path}`, headers: this.headers() });
  }

  async submit(task: ProviderTask, context: SubmitContext = {}): Promise<SubmitOutcome> {
    const mapped = buildCreateRequest(task.params, {
      taskId: task.id,
      upstreamModel: task.upstreamModel,
      mode: this.settings.mode,
      callbackUrl: context.callbackUrl,
    });
    if (!mapped.ok) return { status: 'failed', failure: { kind: 'params', message: mapped.message } };
    const { endpoint, body } = mapped.request;
    let response: UpstreamResponse;
    try {
      response = await callUpstream({
        method: 'POST',
        url: `${this.settings.baseUrl}/v1/videos/${endpoint}`,
        headers: this.headers(),
        json: body,
      });
    } catch (error) {
      // NotSentError propagates: nothing reached Kling, the runner may retry or move on.
      if (error instanceof UncertainError) return { status: 'uncertain', detail: error.message };
      throw error;
    }
    if (!isKlingSuccess(response)) {
      // A 2xx with a code we cannot read is not a refusal we understand: a job may exist.
      if (response.status >= 200 && response.status < 300 && klingCode(response) === undefined)
        return { status: 'uncertain', detail: describeAnswer(response) };
      return klingProblem(response, this.clock.now());
    }
    const taskId = taskData(response)?.task_id;
    if (typeof taskId !== 'string' || !taskId)
      return { status: 'uncertain', detail: describeAnswer(response) };
    return { status: 'submitted', jobId: klingJobId(endpoint, taskId) };
  }

  async poll(jobId: string, _task?: ProviderTask): Promise<PollOutcome> {
    const { endpoint, taskId } = parseKlingJobId(jobId);
    const response = await this.get(`/v1/videos/${endpoint}/${encodeURIComponent(taskId)}`);
    // Rate limits, Kling's own trouble and even a billing 429 say nothing about the job: ask again.
    if (response.status === 429 || response.status >= 500)
      return { status: 'running', retryAfterMs: retryAfterMs(response, this.clock.now()) };
    if (!isKlingSuccess(response)) {
      const problem = klingProblem(response, this.clock.now());
      if (problem.status === 'busy') return { status: 'running', retryAfterMs: problem.retryAfterMs };
      // A params/rejected code on a GET is about the lookup (an unknown id), not the client's request.
      if (problem.failure.kind === 'params' || problem.failure.kind === 'rejected')
        return { status: 'failed', failure: { kind: 'upstream', detail: problem.failure.detail } };
      if (problem.failure.kind === 'overload') return { status: 'running' };
      return problem;
    }
    const data = taskData(response);
    switch (data?.task_status) {
      case 'succeed':
        return this.succeeded(data, response);
      case 'failed': {
        const message = typeof data.task_status_msg === 'string' ? data.task_status_msg : undefined;
        return {
          status: 'failed',
          failure: { kind: failedJobKind(message), detail: describeAnswer(response) },
        };
      }
      default:
        // submitted, processing, and any status Kling may add later: never terminal.
        return { status: 'running' };
    }
  }

  private succeeded(data: KlingTaskData, response: UpstreamResponse): PollOutcome {
    const videos = Array.isArray(data.task_result?.videos) ? data.task_result.videos : [];
    const outputs: ProviderOutput[] = [];
    const updatedAt = typeof data.updated_at === 'number' ? data.updated_at : this.clock.now();
    let seconds = 0;
    for (const video of videos) {
      if (typeof video?.url !== 'string' || !video.url) continue;
      const durationSec = Number(video.duration);
      const known = Number.isFinite(durationSec) && durationSec > 0;
      if (known) seconds += durationSec;
      outputs.push({
        // Kling's result URL is a public CDN link: the runner downloads it without our token.
        source: { kind: 'url', url: video.url },
        contentType: 'video/mp4',
        ...(known ? { durationSec } : {}),
        expiresAt: updatedAt + RESULT_RETENTION_MS,
      });
    }
    if (outputs.length === 0)
      return {
        status: 'failed',
        failure: { kind: 'upstream', detail: `succeed without a video: ${describeAnswer(response)}` },
      };
    return { status: 'succeeded', outputs, ...(seconds > 0 ? { usage: { seconds } } : {}) };
  }

  /**
   * Kling documents querying one task by the external_task_id we gave at create, in place of the
   * task id in the query path. Should that lookup not answer with the task, the latest tasks of the
   * list endpoint (which carry task_info.external_task_id) are scanned as a second way to find it.
   */
  async reconcile(task: ProviderTask): Promise<ReconcileOutcome> {
    try {
      return await this.lookup(task);
    } catch {
      // Kling unreachable or the answer lost: the runner asks again later.
      return { status: 'unknown' };
    }
  }

  private async lookup(task: ProviderTask): Promise<ReconcileOutcome> {
    const endpoint = endpointFor(task.params);
    const direct = await this.get(`/v1/videos/${endpoint}/${encodeURIComponent(task.id)}`);
    if (isKlingSuccess(direct)) {
      const taskId = taskData(direct)?.task_id;
      if (typeof taskId === 'string' && taskId)
        return { status: 'found', jobId: klingJobId(endpoint, taskId) };
    }
    if (direct.status === 401 || direct.status === 429 || direct.status >= 500) return { status: 'unknown' };
    const list = await this.get(`/v1/videos/${endpoint}?pageNum=1&pageSize=${RECONCILE_PAGE_SIZE}`);
    if (!isKlingSuccess(list) || !Array.isArray(list.json?.data)) return { status: 'unknown' };
    for (const item of list.json.data as KlingTaskData[]) {
      if (item?.task_info?.external_task_id === task.id && typeof item.task_id === 'string')
        return { status: 'found', jobId: klingJobId(endpoint, item.task_id) };
    }
    return { status: 'not_found' };
  }

  /**
   * Kling POSTs the task object to callback_url when the task's status changes. It is not signed:
   * a hint only (the runner polls the job, never trusts the body). The endpoint is not in the body,
   * so it comes from the `kling_endpoint` we appended to our callback URL at submit.
   */
  async receiveHook(hook: IncomingHook): Promise<HookOutcome> {
    let body: { data?: KlingTaskData } | undefined;
    try {
      body = JSON.parse(hook.rawBody.toString('utf8'));
    } catch {
      body = undefined;
    }
    const taskId = hook.query.task;
    const data = body?.data;
    const external = data?.task_info?.external_task_id;
    // A body about another of our tasks names no job; the runner only polls what it has.
    if (typeof external === 'string' && taskId && external !== taskId) return { status: 'accepted', taskId };
    const endpoint = hook.query.kling_endpoint as KlingEndpoint | undefined;
    if (typeof data?.task_id === 'string' && data.task_id && endpoint && KLING_ENDPOINTS.includes(endpoint))
      return { status: 'accepted', jobId: klingJobId(endpoint, data.task_id), ...(taskId ? { taskId } : {}) };
    return { status: 'accepted', ...(taskId ? { taskId } : {}) };
  }

  /** The text2video task list, one item: authenticated, and it never generates anything. */
  async check(): Promise<ProviderCheck> {
    let response: UpstreamResponse;
    try {
      response = await this.get('/v1/videos/text2video?pageNum=1&pageSize=1');
    } catch (error) {
      return { reachable: false, authOk: false, detail: (error as Error).message };
    }
    if (isKlingSuccess(response)) return { reachable: true, authOk: true };
    const problem = klingProblem(response, this.clock.now());
    const authOk = !(problem.status === 'failed' && problem.failure.kind === 'auth');
    return { reachable: true, authOk, detail: describeAnswer(response) };
  }
}
