// BytePlus ModelArk / Volcengine Ark (one API, two base URLs ending in /api/v3): Seedance video as
// asynchronous content-generation tasks, Seedream images as one synchronous call. Ark does not sign
// its callbacks: a callback is only a hint to poll now. There is no reconcile: Ark's task list has no
// client reference and no request content, so it can never say which task is ours. An uncertain
// submit is found through Ark's callback instead (our callback URL carries our task id), or fails
// with a refund at the deadline.
import type { Clock } from '../../services/clock.js';
import type { ProviderSettings } from '../config.js';
import {
  callUpstream,
  describeAnswer,
  header,
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
  SubmitContext,
  SubmitOutcome,
  TaskProvider,
} from '../task-provider.js';
import { arkError, refusal, taskFailure } from './errors.js';
import { buildImageBody, buildVideoBody, parseSize } from './request.js';

/** Ark keeps a result video 24 hours after the task finished. */
const VIDEO_URL_LIFETIME_MS = 24 * 3_600_000;
/** Seedream answers only when the image is made: tens of seconds. */
const IMAGE_TIMEOUT_MS = 180_000;
/** Poll again this soon after a 429/5xx on a poll when Ark gives no Retry-After. */
const POLL_RETRY_MS = 5_000;
/** Image results have no job to poll: the job id we record says so. */
const IMAGE_JOB_PREFIX = 'ark-image:';

interface ArkTask {
  id?: unknown;
  status?: unknown;
  content?: { video_url?: unknown } | null;
  usage?: { completion_tokens?: unknown } | null;
  duration?: unknown;
  updated_at?: unknown;
}

export class ArkProvider implements TaskProvider {
  readonly type = 'ark';

  constructor(
    private readonly settings: ProviderSettings,
    private readonly clock: Clock,
  ) {}

  private get auth(): Record<string, string> {
    return { authorization: `Bearer ${this.settings.apiKey ?? ''}` };
  }

  private url(path: string): string {
    return `${this.settings.baseUrl}${path}`;
  }

  private taskUrl(jobId: string): string {
    return this.url(`/contents/generations/tasks/${encodeURIComponent(jobId)}`);
  }

  async submit(task: ProviderTask, context: SubmitContext = {}): Promise<SubmitOutcome> {
    return task.kind === 'image' ? this.submitImage(task) : this.submitVideo(task, context);
  }

  private async submitVideo(task: ProviderTask, context: SubmitContext): Promise<SubmitOutcome> {
    const built = buildVideoBody(task, context.callbackUrl);
    if ('failure' in built) return { status: 'failed', failure: built.failure };
    const response = await this.create(this.url('/contents/generations/tasks'), built.body);
    if ('uncertain' in response) return response.uncertain;
    if (response.status < 200 || response.status >= 300) return refusal(response);
    const id = (response.json as { id?: unknown } | undefined)?.id;
    if (typeof id !== 'string' || id === '')
      return {
        status: 'uncertain',
        detail: `create answered without a task id: ${describeAnswer(response)}`,
      };
    return { status: 'submitted', jobId: id };
  }

  private async submitImage(task: ProviderTask): Promise<SubmitOutcome> {
    const built = buildImageBody(task);
    if ('failure' in built) return { status: 'failed', failure: built.failure };
    const response = await this.create(this.url('/images/generations'), built.body, IMAGE_TIMEOUT_MS);
    if ('uncertain' in response) return response.uncertain;
    if (response.status < 200 || response.status >= 300) return refusal(response);
    const data = (response.json as { data?: unknown } | undefined)?.data;
    if (!Array.isArray(data))
      return { status: 'uncertain', detail: `image answer without data: ${describeAnswer(response)}` };
    const outputs: ProviderOutput[] = [];
    for (const item of data as Array<Record<string, unknown>>) {
      if (typeof item?.url !== 'string') continue;
      outputs.push({ source: { kind: 'url', url: item.url }, ...parseSize(item.size) });
    }
    if (outputs.length === 0) {
      // Each image of the answer may carry its own error (e.g. OutputImageSensitiveContentDetected).
      const itemError = arkError(data.find((item) => arkError(item)));
      return { status: 'failed', failure: taskFailure(itemError, describeAnswer(response)) };
    }
    const generated = (response.json as { usage?: { generated_images?: unknown } }).usage?.generated_images;
    return {
      status: 'succeeded',
      jobId: `${IMAGE_JOB_PREFIX}${header(response, 'x-request-id') ?? task.id}`,
      outputs,
      usage: { images: typeof generated === 'number' ? generated : outputs.length },
    };
  }

  /** One create call, never repeated: a lost answer is reported as uncertain. */
  private async create(
    url: string,
    body: unknown,
    timeoutMs?: number,
  ): Promise<UpstreamResponse | { uncertain: SubmitOutcome }> {
    try {
      return await callUpstream({ method: 'POST', url, headers: this.auth, json: body, timeoutMs });
    } catch (error) {
      if (error instanceof UncertainError)
        return { uncertain: { status: 'uncertain', detail: error.message } };
      throw error;
    }
  }

  async poll(jobId: string, _task?: ProviderTask): Promise<PollOutcome> {
    if (jobId.startsWith(IMAGE_JOB_PREFIX))
      return {
        status: 'failed',
        failure: { kind: 'upstream', detail: `image job ${jobId} has no task to poll` },
      };
    const response = await callUpstream({ method: 'GET', url: this.taskUrl(jobId), headers: this.auth });
    if (response.status === 429 || response.status >= 500)
      return { status: 'running', retryAfterMs: retryAfterMs(response) ?? POLL_RETRY_MS };
    if (response.status < 200 || response.status >= 300) {
      const refused = refusal(response);
      // A rate limit under another status is still only a reason to wait.
      if (refused.status === 'busy')
        return { status: 'running', retryAfterMs: refused.retryAfterMs ?? POLL_RETRY_MS };
      return refused;
    }
    const body = response.json as ArkTask | undefined;
    if (!body || typeof body !== 'object') return { status: 'running', retryAfterMs: POLL_RETRY_MS };
    switch (body.status) {
      case 'succeeded':
        return this.succeeded(body, response);
      case 'failed':
        return { status: 'failed', failure: taskFailure(arkError(body), describeAnswer(response)) };
      case 'cancelled':
      case 'expired':
        return { status: 'failed', failure: { kind: 'upstream', detail: describeAnswer(response) } };
      default:
        // queued, running, and any status Ark adds later: never terminal.
        return { status: 'running' };
    }
  }

  private succeeded(body: ArkTask, response: UpstreamResponse): PollOutcome {
    const url = body.content?.video_url;
    if (typeof url !== 'string' || url === '')
      return {
        status: 'failed',
        failure: { kind: 'upstream', detail: `succeeded without a video: ${describeAnswer(response)}` },
      };
    const finishedAt = typeof body.updated_at === 'number' ? body.updated_at * 1000 : this.clock.now();
    const tokens = body.usage?.completion_tokens;
    return {
      status: 'succeeded',
      outputs: [
        {
          source: { kind: 'url', url },
          contentType: 'video/mp4',
          durationSec: typeof body.duration === 'number' ? body.duration : undefined,
          expiresAt: finishedAt + VIDEO_URL_LIFETIME_MS,
        },
      ],
      usage: typeof tokens === 'number' ? { tokens } : undefined,
    };
  }

  /** DELETE cancels a queued task (Ark refuses it for a running one). A task already gone is fine. */
  async cancel(jobId: string, _task?: ProviderTask): Promise<void> {
    if (jobId.startsWith(IMAGE_JOB_PREFIX)) return;
    const response = await callUpstream({ method: 'DELETE', url: this.taskUrl(jobId), headers: this.auth });
    if ((response.status >= 200 && response.status < 300) || response.status === 404) return;
    throw new Error(`Ark refused to cancel ${jobId}: ${describeAnswer(response)}`);
  }

  /** Ark's callback body is the task as GET returns it; unsigned, so it only names the job to poll. */
  async receiveHook(hook: IncomingHook): Promise<HookOutcome> {
    let id: unknown;
    try {
      id = (JSON.parse(hook.rawBody.toString('utf8')) as { id?: unknown } | null)?.id;
    } catch {
      id = undefined;
    }
    const jobId = typeof id === 'string' && /^[\w.-]{1,200}$/.test(id) ? id : undefined;
    return { status: 'accepted', jobId, taskId: hook.query.task };
  }

  /** GET the task list, one item: authenticated, generates nothing. */
  async check(): Promise<ProviderCheck> {
    let response: UpstreamResponse;
    try {
      response = await callUpstream({
        method: 'GET',
        url: `${this.url('/contents/generations/tasks')}?page_num=1&page_size=1`,
        headers: this.auth,
        timeoutMs: 15_000,
      });
    } catch (error) {
      return { reachable: false, authOk: false, detail: (error as Error).message };
    }
    if (response.status >= 200 && response.status < 300) return { reachable: true, authOk: true };
    return { reachable: true, authOk: false, detail: describeAnswer(response) };
  }
}
