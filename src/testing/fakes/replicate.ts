// A loopback Replicate: the predictions API as documented (create on an official model or a
// version, get, list newest first with a `next` cursor, cancel, account), problem-details errors,
// `Prefer: wait`, signed `completed` webhooks, and result files served at its own origin. Each
// created prediction follows a script taken from a queue (or the default), so a test chooses what
// the next job does: statuses over time, a failure text, an expired file, a dropped create answer,
// duplicate webhooks. A status lasts `stepMs`; the last one stays (a job that never ends).
import { randomBytes } from 'node:crypto';
import { signWebhook } from '../../providers/replicate/webhook.js';
import { FAKE_MP4, FAKE_PNG, type FakeReply, type FakeRequest, FakeServer } from './fake-server.js';

export type ReplicateStatus =
  | 'starting'
  | 'processing'
  | 'succeeded'
  | 'failed'
  | 'canceled'
  | 'aborted'
  | string;

export interface ReplicateScript {
  /** Statuses in order, each lasting `stepMs`; default starting → processing → succeeded. */
  statuses?: ReplicateStatus[];
  stepMs?: number;
  /** The `error` of a failed prediction. */
  error?: string;
  /** The file the job produces; default mp4 when the input has a duration, else png. */
  file?: 'png' | 'mp4';
  /** `output` as one URL (default) or a list of URLs. */
  outputShape?: 'string' | 'array';
  /** 'always': every result URL answers 403; 'once': the first URL handed out does, later ones not. */
  expired?: 'always' | 'once';
  /** Create the prediction, then close the connection without an answer. */
  drop?: boolean;
  /** How many times the `completed` webhook is delivered (default 1 when a webhook was given). */
  webhookDeliveries?: number;
  predictTime?: number;
}

export interface FakeJob {
  id: string;
  model: string;
  version: string;
  input: Record<string, unknown>;
  webhook?: string;
  filter?: string[];
  script: Required<Pick<ReplicateScript, 'statuses' | 'stepMs'>> & ReplicateScript;
  createdAt: number;
  canceledAt?: number;
  /** Result URLs handed out so far (numbered, so an 'once' expiry can tell the first). */
  urlsServed: number;
  webhookSent: boolean;
}

const TERMINAL = new Set(['succeeded', 'failed', 'canceled', 'aborted']);
const CREATE_FIELDS = new Set(['input', 'webhook', 'webhook_events_filter', 'stream', 'version']);
const EVENTS = new Set(['start', 'output', 'logs', 'completed']);

function problem(
  status: number,
  title: string,
  detail: string,
  extra: Record<string, unknown> = {},
): FakeReply {
  return { status, json: { title, detail, status, ...extra } };
}

export class FakeReplicate {
  readonly server = new FakeServer();
  readonly jobs = new Map<string, FakeJob>();
  /** Scripts for the next created predictions, in order; then `defaultScript`. */
  readonly scripts: ReplicateScript[] = [];
  defaultScript: ReplicateScript = {};
  /** Answers for the next create calls, before any job is created (429 busy, 402, 500, …). */
  readonly createErrors: FakeReply[] = [];
  /** Answers for the next GET /predictions/{id} calls (429, 503, …), before the job is looked at. */
  readonly getErrors: FakeReply[] = [];
  /** List page size (Replicate's is 100). */
  pageSize = 100;
  /** Whether list results carry `webhook` (the documented list results do not). */
  listShowsWebhook = false;
  /** Signs webhooks when set (`whsec_…`). */
  webhookSecret: string | undefined;
  /** Webhook deliveries made: the URL and the status answered by the receiver. */
  readonly deliveries: Array<{ url: string; status: number }> = [];
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(readonly apiKey = 'r8_fake_key') {}

  get origin(): string {
    return this.server.origin;
  }

  /** The base_url of a PROVIDERS_FILE entry pointing here. */
  get baseUrl(): string {
    return `${this.server.origin}/v1`;
  }

  creates(): FakeRequest[] {
    return this.server.calls(/^\/v1\/(models\/[^/]+\/[^/]+\/)?predictions$/, 'POST');
  }

  cancels(): FakeRequest[] {
    return this.server.calls(/^\/v1\/predictions\/[^/]+\/cancel$/, 'POST');
  }

  /** Queues scripts for the next created predictions. */
  next(...scripts: ReplicateScript[]): this {
    this.scripts.push(...scripts);
    return this;
  }

  async start(): Promise<this> {
    const api =
      (handle: (request: FakeRequest, match: RegExpExecArray) => FakeReply | Promise<FakeReply>) =>
      (request: FakeRequest, match: RegExpExecArray) =>
        request.headers.authorization === `Bearer ${this.apiKey}`
          ? handle(request, match)
          : problem(401, 'Unauthenticated', 'You did not pass a valid authentication token');
    this.server
      .on(
        'POST',
        /\/v1\/models\/([^/]+)\/([^/]+)\/predictions/,
        api((r, m) => this.create(r, `${m[1]}/${m[2]}`)),
      )
      .on(
        'POST',
        /\/v1\/predictions/,
        api((r) => this.create(r, undefined)),
      )
      .on(
        'GET',
        /\/v1\/predictions/,
        api((r) => this.list(r)),
      )
      .on(
        'GET',
        /\/v1\/predictions\/([^/]+)/,
        api((_r, m) => this.get(m[1])),
      )
      .on(
        'POST',
        /\/v1\/predictions\/([^/]+)\/cancel/,
        api((_r, m) => this.cancel(m[1])),
      )
      .on(
        'GET',
        /\/v1\/account/,
        api(() => ({
          status: 200,
          json: { type: 'user', username: 'gengate-test', name: 'Gengate Test', github_url: null },
        })),
      )
      .on('GET', /\/files\/([^/]+)\/(\d+)\/out\.(png|mp4)/, (_r, m) => this.file(m[1], Number(m[2]), m[3]));
    await this.server.start();
    return this;
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    await this.server.close();
  }

  private async create(request: FakeRequest, model: string | undefined): Promise<FakeReply> {
    const queued = this.createErrors.shift();
    if (queued) return queued;
    const body = request.json;
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return problem(400, 'Bad request', 'The request body is not a JSON object');
    const invalid: Array<{ type: string; field: string; description: string }> = [];
    for (const key of Object.keys(body))
      if (!CREATE_FIELDS.has(key) || (model && key === 'version'))
        invalid.push({
          type: 'additional_property_not_allowed',
          field: '',
          description: `Additional property ${key} is not allowed`,
        });
    if (!model && typeof body.version !== 'string')
      invalid.push({ type: 'required', field: '', description: 'version is required' });
    if (typeof body.input !== 'object' || body.input === null || Array.isArray(body.input))
      invalid.push({ type: 'required', field: '', description: 'input is required' });
    if (
      body.webhook !== undefined &&
      (typeof body.webhook !== 'string' || !/^https?:\/\//.test(body.webhook))
    )
      invalid.push({ type: 'format', field: 'webhook', description: 'webhook must be a URL' });
    if (
      body.webhook_events_filter !== undefined &&
      (!Array.isArray(body.webhook_events_filter) ||
        body.webhook_events_filter.some((e: unknown) => !EVENTS.has(String(e))))
    )
      invalid.push({ type: 'enum', field: 'webhook_events_filter', description: 'invalid webhook event' });
    if (invalid.length > 0)
      return problem(422, 'Input validation failed', invalid.map((i) => `- ${i.description}\n`).join(''), {
        invalid_fields: invalid,
      });
    if (!model && !/^[0-9a-f]{64}$/.test(body.version))
      return problem(
        422,
        'Invalid version or not permitted',
        "The specified version does not exist (or perhaps you don't have permission to use it?)",
      );
    const prefer = request.headers.prefer;
    const wait = typeof prefer === 'string' ? /^wait(?:=(\d+))?$/.exec(prefer.trim()) : null;
    if (
      prefer !== undefined &&
      (!wait || (wait[1] !== undefined && (Number(wait[1]) < 1 || Number(wait[1]) > 60)))
    )
      return problem(400, 'Invalid Prefer header', 'Prefer must be "wait" or "wait=N" with N from 1 to 60');
    const script = this.scripts.shift() ?? this.defaultScript;
    const job: FakeJob = {
      id: randomBytes(13).toString('hex').slice(0, 26),
      model: model ?? 'owner/versioned-model',
      version: model ? 'hidden' : body.version,
      input: body.input,
      webhook: body.webhook,
      filter: body.webhook_events_filter,
      script: {
        ...script,
        statuses: script.statuses ?? ['starting', 'processing', 'succeeded'],
        stepMs: script.stepMs ?? 30,
      },
      createdAt: Date.now(),
      urlsServed: 0,
      webhookSent: false,
    };
    this.jobs.set(job.id, job);
    this.scheduleWebhook(job);
    if (script.drop) return 'drop';
    // Prefer: wait holds the answer until the job ends (if it ends within the wait).
    if (wait) {
      const endsIn = this.endsInMs(job);
      const limit = (wait[1] ? Number(wait[1]) : 60) * 1000;
      if (endsIn !== undefined && endsIn <= limit) {
        await new Promise((resolve) => setTimeout(resolve, endsIn));
        // Timers may fire a millisecond early against Date.now(): wait until the script has ended.
        while (!TERMINAL.has(this.statusOf(job))) await new Promise((resolve) => setTimeout(resolve, 2));
      }
    }
    return { status: 201, json: this.view(job, true) };
  }

  /** When the script reaches a terminal status, in ms from now; undefined if it never does. */
  private endsInMs(job: FakeJob): number | undefined {
    const index = job.script.statuses.findIndex((s) => TERMINAL.has(s));
    if (index < 0) return undefined;
    return Math.max(0, job.createdAt + index * job.script.stepMs - Date.now());
  }

  statusOf(job: FakeJob): ReplicateStatus {
    if (job.canceledAt !== undefined) return 'canceled';
    const { statuses, stepMs } = job.script;
    const step = stepMs > 0 ? Math.floor((Date.now() - job.createdAt) / stepMs) : statuses.length;
    return statuses[Math.min(step, statuses.length - 1)];
  }

  /** Serial 0 is the webhook body's URL: it never counts as the first one handed out. */
  private fileUrl(job: FakeJob, index: number, count = true): string {
    if (count) job.urlsServed += 1;
    const extension = job.script.file ?? ('duration' in job.input || 'seconds' in job.input ? 'mp4' : 'png');
    return `${this.origin}/files/${job.id}/${count ? job.urlsServed * 10 + index : index}/out.${extension}`;
  }

  /** The prediction object as Replicate returns it (create answers and webhooks carry `webhook`). */
  view(job: FakeJob, withWebhook: boolean, forHook = false): Record<string, unknown> {
    const status = this.statusOf(job);
    const done = TERMINAL.has(status);
    let output: unknown = null;
    if (status === 'succeeded')
      output =
        job.script.outputShape === 'array'
          ? [this.fileUrl(job, 0, !forHook)]
          : this.fileUrl(job, 0, !forHook);
    const base = `${this.origin}/v1/predictions/${job.id}`;
    return {
      id: job.id,
      model: job.model,
      version: job.version,
      input: job.input,
      logs: '',
      output,
      data_removed: false,
      error: status === 'failed' ? (job.script.error ?? 'Prediction failed') : null,
      status,
      source: 'api',
      created_at: new Date(job.createdAt).toISOString(),
      started_at: status === 'starting' ? null : new Date(job.createdAt).toISOString(),
      completed_at: done ? new Date().toISOString() : null,
      metrics: done ? { predict_time: job.script.predictTime ?? 1.25 } : {},
      urls: { get: base, cancel: `${base}/cancel`, stream: `${base}/stream` },
      ...(withWebhook ? { webhook: job.webhook ?? null, webhook_events_filter: job.filter ?? null } : {}),
    };
  }

  private get(id: string): FakeReply {
    const queued = this.getErrors.shift();
    if (queued) return queued;
    const job = this.jobs.get(id);
    if (!job) return problem(404, 'Not found', 'The requested resource could not be found.');
    return { status: 200, json: this.view(job, true) };
  }

  private list(request: FakeRequest): FakeReply {
    const after = request.query.get('created_after');
    const since = after ? Date.parse(after) : Number.NEGATIVE_INFINITY;
    const all = [...this.jobs.values()]
      .filter((j) => j.createdAt >= since)
      .sort((a, b) => b.createdAt - a.createdAt);
    const offset = Number(request.query.get('cursor') ?? 0);
    const page = all.slice(offset, offset + this.pageSize);
    const more = offset + this.pageSize < all.length;
    const query = new URLSearchParams(request.query);
    query.set('cursor', String(offset + this.pageSize));
    return {
      status: 200,
      json: {
        next: more ? `${this.origin}/v1/predictions?${query}` : null,
        previous: null,
        results: page.map((job) => this.view(job, this.listShowsWebhook)),
      },
    };
  }

  private cancel(id: string): FakeReply {
    const job = this.jobs.get(id);
    if (!job) return problem(404, 'Not found', 'The requested resource could not be found.');
    if (!TERMINAL.has(this.statusOf(job))) {
      job.canceledAt = Date.now();
      // A canceled prediction is completed too: its webhook goes out now.
      if (!job.filter || job.filter.includes('completed')) void this.deliver(job);
    }
    return { status: 200, json: this.view(job, true) };
  }

  private file(id: string, serial: number, extension: string): FakeReply {
    const job = this.jobs.get(id);
    if (!job) return { status: 404, body: 'not found' };
    const first = Math.floor(serial / 10) === 1;
    if (job.script.expired === 'always' || (job.script.expired === 'once' && first))
      return {
        status: 403,
        body: '<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>',
      };
    return extension === 'mp4'
      ? { status: 200, body: FAKE_MP4, headers: { 'content-type': 'video/mp4' } }
      : { status: 200, body: FAKE_PNG, headers: { 'content-type': 'image/png' } };
  }

  /** The bytes a job's file has, for comparing with what our storage kept. */
  bytesOf(job: FakeJob): Buffer {
    const extension = job.script.file ?? ('duration' in job.input || 'seconds' in job.input ? 'mp4' : 'png');
    return extension === 'mp4' ? FAKE_MP4 : FAKE_PNG;
  }

  private scheduleWebhook(job: FakeJob): void {
    if (!job.webhook || (job.filter && !job.filter.includes('completed'))) return;
    const endsIn = this.endsInMs(job);
    if (endsIn === undefined) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!job.webhookSent && job.canceledAt === undefined) void this.deliver(job);
    }, endsIn + 5);
    this.timers.add(timer);
  }

  /**
   * Posts the `completed` webhook now (the given number of times), signed when the fake has a
   * secret, as Replicate would; a test calls it again to deliver a duplicate.
   */
  async deliver(job: FakeJob, times = job.script.webhookDeliveries ?? 1): Promise<void> {
    if (!job.webhook) return;
    job.webhookSent = true;
    const body = JSON.stringify(this.view(job, true, true));
    for (let i = 0; i < times; i++) {
      const id = `msg_${randomBytes(8).toString('hex')}`;
      const timestamp = Math.floor(Date.now() / 1000);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (this.webhookSecret) {
        headers['webhook-id'] = id;
        headers['webhook-timestamp'] = String(timestamp);
        headers['webhook-signature'] = signWebhook(this.webhookSecret, id, timestamp, body);
      }
      try {
        const res = await fetch(job.webhook, { method: 'POST', headers, body });
        await res.arrayBuffer();
        this.deliveries.push({ url: job.webhook, status: res.status });
      } catch {
        this.deliveries.push({ url: job.webhook, status: 0 });
      }
    }
  }
}
