// The Replicate predictions API as a TaskProvider. Images are created with `Prefer: wait=N`, so a
// short image job comes back finished in the create answer; everything else is polled by id
// (GET /predictions/{id}) and, when callbacks are on, nudged by Replicate's `completed` webhook.
import type { Clock } from '../../services/clock.js';
import type { ProviderSettings } from '../config.js';
import {
  callUpstream,
  describeAnswer,
  NotSentError,
  retryAfterMs,
  UncertainError,
  type UpstreamResponse,
} from '../http/upstream-http.js';
import type {
  HookOutcome,
  IncomingHook,
  PollOutcome,
  ProviderCheck,
  ProviderTask,
  ReconcileOutcome,
  SubmitContext,
  SubmitOutcome,
  TaskProvider,
} from '../task-provider.js';
import { failedPrediction, refusedCreate } from './errors.js';
import { asPrediction, outputsOf, type Prediction, usageOf } from './prediction.js';
import { buildInput, createCall, parseUpstreamModel } from './request.js';
import { verifyWebhook } from './webhook.js';

export interface ReplicateOptions {
  /** `Prefer: wait=N` for image tasks, 1–60 s (0 turns it off). */
  waitSeconds: number;
  /** The account's webhook signing secret (`whsec_…`); without it a webhook is only a hint. */
  webhookSecret?: string;
  /** How far back reconcile looks for a prediction of an uncertain submit. */
  reconcileWindowMs: number;
  /** At most this many list pages are read per reconcile. */
  reconcilePages: number;
}

export const DEFAULT_WAIT_SECONDS = 30;
const POLL_BUSY_MS = 5_000;

export class ReplicateProvider implements TaskProvider {
  readonly type = 'replicate';

  constructor(
    private readonly settings: ProviderSettings,
    private readonly clock: Clock,
    private readonly options: ReplicateOptions,
  ) {}

  private get auth(): Record<string, string> {
    return { authorization: `Bearer ${this.settings.apiKey ?? ''}` };
  }

  private url(path: string): string {
    return `${this.settings.baseUrl}${path}`;
  }

  async submit(task: ProviderTask, context?: SubmitContext): Promise<SubmitOutcome> {
    const target = parseUpstreamModel(task.upstreamModel);
    if (!target)
      return {
        status: 'failed',
        failure: { kind: 'upstream', detail: `not a Replicate model or version: "${task.upstreamModel}"` },
      };
    const built = buildInput(task);
    if ('failure' in built) return { status: 'failed', failure: built.failure };
    const call = createCall(target, built.input, context);
    const wait = task.kind === 'image' ? this.options.waitSeconds : 0;
    let response: UpstreamResponse;
    try {
      response = await callUpstream({
        method: 'POST',
        url: this.url(call.path),
        headers: { ...this.auth, ...(wait > 0 ? { prefer: `wait=${wait}` } : {}) },
        json: call.body,
        // The held request may last the whole wait: give the answer room beyond it.
        timeoutMs: (wait + 30) * 1000,
      });
    } catch (error) {
      if (error instanceof UncertainError) return { status: 'uncertain', detail: error.message };
      throw error;
    }
    if (response.status < 200 || response.status >= 300)
      return refusedCreate(response, task, this.clock.now());
    const prediction = asPrediction(response.json);
    if (!prediction)
      return { status: 'uncertain', detail: `unreadable create answer: ${describeAnswer(response)}` };
    if (prediction.status === 'succeeded') {
      const outputs = outputsOf(prediction);
      // A finished prediction with no file is left to the poll, which reports it as a failure.
      if (outputs.length > 0)
        return {
          status: 'succeeded',
          jobId: prediction.id,
          outputs,
          usage: usageOf(prediction, task.kind, outputs.length),
        };
    }
    return { status: 'submitted', jobId: prediction.id };
  }

  async poll(jobId: string, task: ProviderTask): Promise<PollOutcome> {
    const response = await callUpstream({
      method: 'GET',
      url: this.url(`/predictions/${encodeURIComponent(jobId)}`),
      headers: this.auth,
      timeoutMs: 30_000,
    });
    if (response.status === 429 || response.status >= 500)
      return { status: 'running', retryAfterMs: retryAfterMs(response, this.clock.now()) ?? POLL_BUSY_MS };
    if (response.status === 401 || response.status === 403)
      return { status: 'failed', failure: { kind: 'auth', detail: describeAnswer(response) } };
    if (response.status < 200 || response.status >= 300)
      return { status: 'failed', failure: { kind: 'upstream', detail: describeAnswer(response) } };
    const prediction = asPrediction(response.json);
    if (!prediction) return { status: 'running' };
    return this.outcomeOf(prediction, task);
  }

  private outcomeOf(prediction: Prediction, task: ProviderTask): PollOutcome {
    switch (prediction.status) {
      case 'succeeded': {
        const outputs = outputsOf(prediction);
        if (outputs.length === 0)
          return {
            status: 'failed',
            failure: {
              kind: 'upstream',
              detail: `prediction succeeded without a file: ${JSON.stringify(prediction.output)}`,
            },
          };
        return { status: 'succeeded', outputs, usage: usageOf(prediction, task.kind, outputs.length) };
      }
      case 'failed':
        return { status: 'failed', failure: failedPrediction(prediction.error, prediction.status) };
      case 'canceled':
      case 'aborted':
        return {
          status: 'failed',
          failure: {
            kind: 'upstream',
            detail: `prediction ${prediction.status}: ${String(prediction.error ?? '')}`,
          },
        };
      default:
        // starting, processing, and any status this adapter does not know yet.
        return { status: 'running' };
    }
  }

  async cancel(jobId: string): Promise<void> {
    const response = await callUpstream({
      method: 'POST',
      url: this.url(`/predictions/${encodeURIComponent(jobId)}/cancel`),
      headers: this.auth,
      timeoutMs: 30_000,
    });
    if (response.status < 200 || response.status >= 300)
      throw new Error(`replicate cancel of ${jobId}: ${describeAnswer(response)}`);
  }

  /**
   * Replicate has no client reference: our task id travels only inside the webhook URL. The list of
   * predictions (newest first) is read back over the window; a prediction whose `webhook` names this
   * task is the job. The documented list results do not include `webhook`, so when no match is seen
   * the answer is `unknown`, never `not_found`: absence cannot be proven.
   */
  async reconcile(task: ProviderTask): Promise<ReconcileOutcome> {
    const since = this.clock.now() - this.options.reconcileWindowMs;
    const origin = new URL(this.settings.baseUrl).origin;
    let next: string | undefined = this.url(
      `/predictions?created_after=${encodeURIComponent(new Date(since).toISOString())}`,
    );
    try {
      for (let page = 0; next && page < this.options.reconcilePages; page++) {
        const response = await callUpstream({
          method: 'GET',
          url: next,
          headers: this.auth,
          timeoutMs: 30_000,
        });
        if (response.status < 200 || response.status >= 300) return { status: 'unknown' };
        const results: unknown[] = Array.isArray(response.json?.results) ? response.json.results : [];
        let older = false;
        for (const item of results) {
          const prediction = asPrediction(item);
          if (!prediction) continue;
          if (webhookTask(prediction.webhook) === task.id) return { status: 'found', jobId: prediction.id };
          const created = prediction.created_at ? Date.parse(prediction.created_at) : Number.NaN;
          if (created < since) older = true;
        }
        const link: unknown = response.json?.next;
        // Our key goes only to our own base URL's origin, whatever a `next` link says.
        next =
          !older && typeof link === 'string' && link && new URL(link, next).origin === origin
            ? new URL(link, next).toString()
            : undefined;
      }
    } catch (error) {
      if (error instanceof NotSentError || error instanceof UncertainError) return { status: 'unknown' };
      throw error;
    }
    return { status: 'unknown' };
  }

  async receiveHook(hook: IncomingHook): Promise<HookOutcome> {
    const secret = this.options.webhookSecret;
    if (secret && !verifyWebhook(secret, hook.headers, hook.rawBody, this.clock.now()))
      return { status: 'forged' };
    let body: unknown;
    try {
      body = JSON.parse(hook.rawBody.toString('utf8'));
    } catch {
      body = undefined;
    }
    return { status: 'accepted', jobId: asPrediction(body)?.id, taskId: hook.query.task };
  }

  /** GET /account: authenticated, generates nothing, costs nothing. */
  async check(): Promise<ProviderCheck> {
    let response: UpstreamResponse;
    try {
      response = await callUpstream({
        method: 'GET',
        url: this.url('/account'),
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

/** Our task id in a webhook URL we gave (`…/hooks/{provider}?task=<id>&token=…`). */
function webhookTask(webhook: string | null | undefined): string | undefined {
  if (typeof webhook !== 'string' || webhook === '') return undefined;
  try {
    return new URL(webhook).searchParams.get('task') ?? undefined;
  } catch {
    return undefined;
  }
}
