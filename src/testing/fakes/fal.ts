// A loopback fal.ai queue API, following fal's documented shapes: POST {base}/{endpoint path}
// (`Authorization: Key …`, JSON input, optional ?fal_webhook=) answers {request_id,
// gateway_request_id, status_url, response_url, cancel_url}; GET …/requests/{id}/status answers
// {status: IN_QUEUE|IN_PROGRESS|COMPLETED}, with HTTP 202 until COMPLETED and 200 then; GET …/requests/{id} answers the model's output
// ({video:{url,…}} or {images:[{url,width,height,content_type}]}) or its error
// ({detail:[{loc,msg,type}]} + X-Fal-Retryable); PUT …/requests/{id}/cancel. Result files are served
// by the fake itself under /files/. Each submit plays the next scripted scenario.
import { randomUUID } from 'node:crypto';
import { FAKE_MP4, FAKE_PNG, type FakeReply, type FakeRequest, FakeServer } from './fake-server.js';

export interface FalJobScript {
  /** Status of successive status GETs; the last repeats. Default IN_QUEUE, IN_PROGRESS, COMPLETED. */
  statuses?: string[];
  /** The result of a COMPLETED request: its output (by default from the endpoint path) or an error. */
  result?: 'video' | 'image' | { status: number; detail: unknown; retryable?: boolean };
  /** The result file answers 403 (an expired URL) this many times, or always. */
  fileExpired?: number | 'always';
  /** Create the request, then close the connection without an answer (an uncertain submit). */
  drop?: boolean;
  /** Answer status/response/cancel URLs under /alt/… instead of fal's usual layout. */
  altUrls?: boolean;
}

/** A submit refused without creating a request (auth, balance, validation, overload…). */
export interface FalReject {
  reject: { status: number; json: unknown; headers?: Record<string, string> };
}

export type FalScript = FalJobScript | FalReject;

export interface FalFakeJob {
  id: string;
  app: string;
  path: string;
  input: Record<string, any>;
  webhook?: string;
  script: FalJobScript;
  statusPolls: number;
  fileGets: number;
  canceled: boolean;
}

export const FAL_TEST_KEY = 'fal-test-key-1234';

const ERROR_SHAPE = (loc: string[], msg: string, type: string) => ({ detail: [{ loc, msg, type }] });

export class FalFake {
  readonly server = new FakeServer();
  readonly jobs = new Map<string, FalFakeJob>();
  readonly cancels: string[] = [];
  /** Scripts for the next submits, in order; after them every submit plays `defaultScript`. */
  private readonly scripts: FalScript[] = [];
  defaultScript: FalScript = {};

  constructor(public apiKey: string = FAL_TEST_KEY) {
    const queue = '(?:/alt)?/([^/]+)/([^/]+)/requests/([^/]+)';
    this.server
      .on('GET', /\/files\/([\w-]+)\.(mp4|png)/, (_req, m) => this.file(m[1], m[2]))
      .on('GET', new RegExp(`${queue}/status`), (req, m) => this.authed(req, () => this.status(m[3])))
      .on('PUT', new RegExp(`${queue}/cancel`), (req, m) => this.authed(req, () => this.cancel(m[3])))
      .on('GET', new RegExp(queue), (req, m) => this.authed(req, () => this.result(m[3])))
      .on('POST', /\/[^/]+\/[^/]+(\/[^/]+)*/, (req) => this.authed(req, () => this.submit(req)));
  }

  get origin(): string {
    return this.server.origin;
  }

  async start(): Promise<this> {
    await this.server.start();
    return this;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  /** Queues scenarios for the next submits. */
  next(...scripts: FalScript[]): this {
    this.scripts.push(...scripts);
    return this;
  }

  /** Submit calls received (including refused and dropped ones). */
  get submitCalls(): FakeRequest[] {
    return this.server.requests.filter((r) => r.method === 'POST');
  }

  /** The only request created so far (fails when there is not exactly one). */
  onlyJob(): FalFakeJob {
    if (this.jobs.size !== 1) throw new Error(`expected one fal request, have ${this.jobs.size}`);
    return [...this.jobs.values()][0];
  }

  /** POSTs fal's webhook body for a request to the URL its submit named, `times` times. */
  async deliverWebhook(id: string, times = 1): Promise<number[]> {
    const job = this.jobs.get(id);
    if (!job?.webhook) throw new Error(`request ${id} has no webhook`);
    const failedResult = typeof job.script.result === 'object';
    const body = {
      request_id: id,
      gateway_request_id: id,
      status: failedResult ? 'ERROR' : 'OK',
      payload: failedResult
        ? { detail: (job.script.result as { detail: unknown }).detail }
        : this.output(job),
      error: failedResult ? 'Invalid status code: 422' : null,
    };
    const statuses: number[] = [];
    for (let i = 0; i < times; i++) {
      const res = await fetch(job.webhook, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    return statuses;
  }

  private authed(req: FakeRequest, handle: () => FakeReply): FakeReply {
    if (req.headers.authorization !== `Key ${this.apiKey}`)
      return { status: 401, json: { detail: 'Authentication is required to access this application.' } };
    return handle();
  }

  private submit(req: FakeRequest): FakeReply {
    if (req.path.includes('/requests/')) return { status: 405, json: { detail: 'Method Not Allowed' } };
    const script = this.scripts.shift() ?? this.defaultScript;
    if ('reject' in script) return { ...script.reject, json: script.reject.json };
    const input = req.json;
    if (typeof input !== 'object' || input === null || Array.isArray(input))
      return { status: 422, json: ERROR_SHAPE(['body'], 'Input should be a valid dictionary', 'dict_type') };
    if (typeof input.prompt !== 'string' || input.prompt === '')
      return { status: 422, json: ERROR_SHAPE(['body', 'prompt'], 'Field required', 'missing') };
    if (
      req.path.includes('/kling-video/') &&
      input.duration !== undefined &&
      !['5', '10'].includes(input.duration)
    )
      return {
        status: 422,
        json: ERROR_SHAPE(['body', 'duration'], "Input should be '5' or '10'", 'enum'),
      };
    const path = req.path.slice(1);
    const [owner, name] = path.split('/');
    const id = randomUUID();
    const job: FalFakeJob = {
      id,
      app: `${owner}/${name}`,
      path,
      input,
      webhook: req.query.get('fal_webhook') ?? undefined,
      script,
      statusPolls: 0,
      fileGets: 0,
      canceled: false,
    };
    this.jobs.set(id, job);
    if (script.drop) return 'drop';
    const root = `${this.origin}${script.altUrls ? '/alt' : ''}/${job.app}/requests/${id}`;
    return {
      status: 200,
      json: {
        request_id: id,
        gateway_request_id: id,
        response_url: root,
        status_url: `${root}/status`,
        cancel_url: `${root}/cancel`,
        queue_position: 0,
      },
    };
  }

  private currentStatus(job: FalFakeJob): string {
    if (job.canceled) return 'COMPLETED';
    const statuses = job.script.statuses ?? ['IN_QUEUE', 'IN_PROGRESS', 'COMPLETED'];
    return statuses[Math.min(job.statusPolls, statuses.length - 1)];
  }

  private status(id: string): FakeReply {
    const job = this.jobs.get(id);
    if (!job) return { status: 404, json: { detail: 'Request not found' } };
    const status = this.currentStatus(job);
    job.statusPolls++;
    const root = `${this.origin}/${job.app}/requests/${id}`;
    return {
      // fal's reference: 202 while the request is queued or in progress, 200 once it is COMPLETED.
      status: status === 'COMPLETED' ? 200 : 202,
      json: {
        status,
        request_id: id,
        response_url: root,
        ...(status === 'IN_QUEUE' ? { queue_position: 0 } : {}),
        ...(status === 'COMPLETED' ? { logs: null, metrics: { inference_time: 1.5 } } : {}),
      },
    };
  }

  private isVideo(job: FalFakeJob): boolean {
    if (job.script.result === 'video') return true;
    if (job.script.result === 'image') return false;
    return /video|veo|sora|seedance/.test(job.path);
  }

  private output(job: FalFakeJob): Record<string, unknown> {
    if (this.isVideo(job))
      return {
        video: {
          url: `${this.origin}/files/${job.id}.mp4`,
          content_type: 'video/mp4',
          file_name: 'output.mp4',
          file_size: FAKE_MP4.length,
        },
        seed: 42,
      };
    return {
      images: [{ url: `${this.origin}/files/${job.id}.png`, width: 1, height: 1, content_type: 'image/png' }],
      seed: 42,
      has_nsfw_concepts: [false],
    };
  }

  private result(id: string): FakeReply {
    const job = this.jobs.get(id);
    if (!job) return { status: 404, json: { detail: 'Request not found' } };
    if (job.canceled) return { status: 400, json: { detail: 'Request was cancelled' } };
    if (this.currentStatus(job) !== 'COMPLETED')
      return { status: 400, json: { detail: 'Request is still in progress' } };
    const result = job.script.result;
    if (typeof result === 'object')
      return {
        status: result.status,
        json: { detail: result.detail },
        headers: { 'x-fal-retryable': String(result.retryable ?? false) },
      };
    return { status: 200, json: this.output(job) };
  }

  private cancel(id: string): FakeReply {
    this.cancels.push(id);
    const job = this.jobs.get(id);
    if (!job) return { status: 404, json: { status: 'NOT_FOUND' } };
    if (this.currentStatus(job) === 'COMPLETED')
      return { status: 400, json: { status: 'ALREADY_COMPLETED' } };
    job.canceled = true;
    return { status: 202, json: { status: 'CANCELLATION_REQUESTED' } };
  }

  private file(id: string, extension: string): FakeReply {
    const job = this.jobs.get(id);
    if (!job) return { status: 404, body: 'not found' };
    job.fileGets++;
    const expired = job.script.fileExpired;
    if (expired === 'always' || (typeof expired === 'number' && job.fileGets <= expired))
      return {
        status: 403,
        body: '<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>',
      };
    return extension === 'mp4'
      ? { status: 200, body: FAKE_MP4, headers: { 'content-type': 'video/mp4' } }
      : { status: 200, body: FAKE_PNG, headers: { 'content-type': 'image/png' } };
  }
}

/** A started fal fake. */
export async function startFalFake(apiKey?: string): Promise<FalFake> {
  return new FalFake(apiKey).start();
}
