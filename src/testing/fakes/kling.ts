// A loopback Kling: the documented create/query/list endpoints of text2video and image2video, the
// JWT check (signature, iss, exp, nbf) answering Kling's auth codes, strict create bodies answering
// Kling's 400/1200-1201 shapes, jobs in memory played from a script, result files served here, and
// callbacks delivered on demand. Kling has no cancel endpoint, so there is none here.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { FAKE_MP4, type FakeReply, type FakeRequest, FakeServer } from './fake-server.js';

export type KlingStatus = 'submitted' | 'processing' | 'succeed' | 'failed';
type Endpoint = 'text2video' | 'image2video';

export interface KlingJobScript {
  /** One status per query of the job; the last one repeats. Default submitted → processing → succeed. */
  statuses?: KlingStatus[];
  /** task_status_msg of a failed job. */
  failMsg?: string;
  /** The first N result URLs handed out answer 403 (expired); each succeed answer gives a fresh URL. */
  expiredUrls?: number;
  /** The video's duration as Kling writes it (a string). */
  duration?: string;
}

/** What the next create call gets: a Kling error, or the job created and the connection dropped. */
export type KlingSubmitScript =
  | { error: { status: number; code: number; message?: string; retryAfter?: string } }
  | 'drop'
  /** The connection dropped before any job was created (the request never got through). */
  | 'drop-before'
  /** Answers this verbatim (no job created): e.g. a 2xx body we cannot parse. */
  | { reply: FakeReply };

export interface KlingFakeJob {
  taskId: string;
  endpoint: Endpoint;
  externalTaskId?: string;
  callbackUrl?: string;
  body: Record<string, any>;
  script: Required<Omit<KlingJobScript, 'failMsg'>> & { failMsg: string };
  queries: number;
  urlsGiven: number;
  createdAt: number;
  updatedAt: number;
}

const ERRORS = {
  1000: 'Authentication failed',
  1001: 'Authorization is empty',
  1002: 'Authorization is invalid',
  1003: 'Authorization is not yet valid',
  1004: 'Authorization has expired',
} as const;

const T2V_FIELDS = new Set([
  'model_name',
  'prompt',
  'negative_prompt',
  'cfg_scale',
  'mode',
  'camera_control',
  'aspect_ratio',
  'duration',
  'callback_url',
  'external_task_id',
]);
const I2V_FIELDS = new Set([
  'model_name',
  'image',
  'image_tail',
  'prompt',
  'negative_prompt',
  'cfg_scale',
  'mode',
  'static_mask',
  'dynamic_masks',
  'camera_control',
  'duration',
  'callback_url',
  'external_task_id',
]);

let requestCounter = 0;
function requestId(): string {
  requestCounter += 1;
  return `req-${Date.now().toString(36)}-${requestCounter}`;
}

function kling(status: number, code: number, message: string, data?: unknown): FakeReply {
  return {
    status,
    json: { code, message, request_id: requestId(), ...(data !== undefined ? { data } : {}) },
  };
}

export class KlingFake {
  readonly server = new FakeServer();
  readonly jobs = new Map<string, KlingFakeJob>();
  /** Consumed one per create call, in order; an empty queue creates the job normally. */
  readonly submitScripts: KlingSubmitScript[] = [];
  /** Consumed one per single-task query before the lookup: e.g. a 429 or a 500 on a poll. */
  readonly queryScripts: FakeReply[] = [];
  /** The script of every job created from now on. */
  jobScript: KlingJobScript = {};
  /** When false, the single-task query does not accept an external_task_id (only the list finds it). */
  lookupByExternalId = true;
  /** The fake's clock (epoch ms) for the JWT's exp/nbf. */
  now: () => number = () => Date.now();
  private nextTask = 800_000_000_000_000_000n;

  constructor(
    readonly accessKey = 'fake-kling-ak',
    readonly secretKey = 'fake-kling-sk',
  ) {
    for (const endpoint of ['text2video', 'image2video'] as const) {
      this.server.on('POST', new RegExp(`/v1/videos/${endpoint}`), (req) =>
        this.authed(req, () => this.create(endpoint, req)),
      );
      this.server.on('GET', new RegExp(`/v1/videos/${endpoint}/([^/]+)`), (req, match) =>
        this.authed(req, () => this.query(endpoint, decodeURIComponent(match[1]))),
      );
      this.server.on('GET', new RegExp(`/v1/videos/${endpoint}`), (req) =>
        this.authed(req, () => this.list(endpoint, req)),
      );
    }
    this.server.on('GET', /\/files\/([^/]+)\/(\d+)\.mp4/, (_req, match) => {
      const job = this.jobs.get(match[1]);
      if (!job) return { status: 404, body: 'no such file' };
      if (Number(match[2]) < job.script.expiredUrls) return { status: 403, body: 'AccessDenied: expired' };
      return { status: 200, body: FAKE_MP4, headers: { 'content-type': 'video/mp4' } };
    });
  }

  async start(): Promise<this> {
    await this.server.start();
    return this;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  get baseUrl(): string {
    return this.server.origin;
  }

  /** Create calls received (whatever they were answered). */
  creates(): FakeRequest[] {
    return this.server.calls(/^\/v1\/videos\/(text2video|image2video)$/, 'POST');
  }

  /** Queries of one job by its path id (task id or external id). */
  queries(): FakeRequest[] {
    return this.server.calls(/^\/v1\/videos\/(text2video|image2video)\/[^/]+$/, 'GET');
  }

  jobByExternalId(externalTaskId: string): KlingFakeJob | undefined {
    return [...this.jobs.values()].find((job) => job.externalTaskId === externalTaskId);
  }

  /** The task object as Kling's query, list and callback answers carry it. */
  taskObject(job: KlingFakeJob, status: KlingStatus): Record<string, unknown> {
    const object: Record<string, unknown> = {
      task_id: job.taskId,
      task_status: status,
      task_status_msg: status === 'failed' ? job.script.failMsg : '',
      task_info: job.externalTaskId ? { external_task_id: job.externalTaskId } : {},
      created_at: job.createdAt,
      updated_at: job.updatedAt,
    };
    if (status === 'succeed') {
      // Each query answer of a succeeded job hands out a fresh URL (an index); others repeat the last.
      const n = Math.max(job.urlsGiven - 1, 0);
      object.final_unit_deduction = job.body.duration === '10' ? '2' : '1';
      object.task_result = {
        videos: [
          {
            id: `${job.taskId}-v`,
            url: `${this.baseUrl}/files/${job.taskId}/${n}.mp4`,
            duration: job.script.duration,
          },
        ],
      };
    }
    return object;
  }

  private currentStatus(job: KlingFakeJob): KlingStatus {
    const { statuses } = job.script;
    return statuses[Math.min(Math.max(job.queries - 1, 0), statuses.length - 1)];
  }

  /** POSTs the job's current task object to its callback_url, as Kling does on a status change. */
  async deliverCallback(taskId: string): Promise<Response> {
    const job = this.jobs.get(taskId);
    if (!job?.callbackUrl) throw new Error(`job ${taskId} has no callback_url`);
    return fetch(job.callbackUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        code: 0,
        message: 'SUCCEED',
        request_id: requestId(),
        data: this.taskObject(job, this.currentStatus(job)),
      }),
    });
  }

  /** Kling's JWT check: HS256 with our secret, iss = our access key, nbf ≤ now < exp. */
  private authed(req: FakeRequest, handle: () => FakeReply): FakeReply {
    const header = req.headers.authorization;
    if (!header) return kling(401, 1001, ERRORS[1001]);
    const match = /^Bearer ([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(header);
    if (!match) return kling(401, 1002, ERRORS[1002]);
    let head: { alg?: unknown; typ?: unknown };
    let claims: { iss?: unknown; exp?: unknown; nbf?: unknown };
    try {
      head = JSON.parse(Buffer.from(match[1], 'base64url').toString('utf8'));
      claims = JSON.parse(Buffer.from(match[2], 'base64url').toString('utf8'));
    } catch {
      return kling(401, 1002, ERRORS[1002]);
    }
    if (head.alg !== 'HS256' || head.typ !== 'JWT') return kling(401, 1002, ERRORS[1002]);
    const expected = createHmac('sha256', this.secretKey).update(`${match[1]}.${match[2]}`).digest();
    const given = Buffer.from(match[3], 'base64url');
    if (
      given.length !== expected.length ||
      !timingSafeEqual(given, expected) ||
      claims.iss !== this.accessKey
    )
      return kling(401, 1000, ERRORS[1000]);
    const now = Math.floor(this.now() / 1000);
    if (typeof claims.nbf !== 'number' || typeof claims.exp !== 'number')
      return kling(401, 1002, ERRORS[1002]);
    if (claims.nbf > now) return kling(401, 1003, ERRORS[1003]);
    if (claims.exp <= now) return kling(401, 1004, ERRORS[1004]);
    return handle();
  }

  private invalid(message: string): FakeReply {
    return kling(400, 1201, message);
  }

  private create(endpoint: Endpoint, req: FakeRequest): FakeReply {
    const body = req.json as Record<string, any> | undefined;
    if (!body || typeof body !== 'object' || Array.isArray(body))
      return kling(400, 1200, 'request body must be a JSON object');
    const fields = endpoint === 'text2video' ? T2V_FIELDS : I2V_FIELDS;
    for (const name of Object.keys(body))
      if (!fields.has(name)) return kling(400, 1200, `unknown parameter: ${name}`);
    if (typeof body.model_name !== 'string' || !/^kling-v/.test(body.model_name))
      return kling(404, 1203, `model_name is not supported: ${String(body.model_name)}`);
    if (endpoint === 'text2video' && (typeof body.prompt !== 'string' || !body.prompt))
      return this.invalid('prompt is required');
    if (body.prompt !== undefined && (typeof body.prompt !== 'string' || body.prompt.length > 2500))
      return this.invalid('prompt must be a string of at most 2500 characters');
    if (
      body.negative_prompt !== undefined &&
      (typeof body.negative_prompt !== 'string' || body.negative_prompt.length > 2500)
    )
      return this.invalid('negative_prompt must be a string of at most 2500 characters');
    if (endpoint === 'image2video' && (typeof body.image !== 'string' || !body.image))
      return this.invalid('image is required');
    if (body.duration !== undefined && body.duration !== '5' && body.duration !== '10')
      return this.invalid('duration must be "5" or "10"');
    if (body.mode !== undefined && body.mode !== 'std' && body.mode !== 'pro')
      return this.invalid('mode must be std or pro');
    if (body.aspect_ratio !== undefined && !['16:9', '9:16', '1:1'].includes(body.aspect_ratio))
      return this.invalid('aspect_ratio is invalid');
    if (
      body.cfg_scale !== undefined &&
      (typeof body.cfg_scale !== 'number' || body.cfg_scale < 0 || body.cfg_scale > 1)
    )
      return this.invalid('cfg_scale must be in [0, 1]');
    if (
      body.callback_url !== undefined &&
      (typeof body.callback_url !== 'string' || !/^https?:\/\//.test(body.callback_url))
    )
      return this.invalid('callback_url is invalid');
    if (body.external_task_id !== undefined) {
      if (typeof body.external_task_id !== 'string') return this.invalid('external_task_id must be a string');
      if (this.jobByExternalId(body.external_task_id)) return this.invalid('external_task_id already exists');
    }
    const script = this.submitScripts.shift();
    if (script && typeof script === 'object' && 'reply' in script) return script.reply;
    if (script === 'drop-before') return 'drop';
    if (script && script !== 'drop') {
      const { status, code, message, retryAfter } = script.error;
      const reply = kling(status, code, message ?? `scripted error ${code}`) as Exclude<FakeReply, string>;
      return retryAfter ? { ...reply, headers: { 'retry-after': retryAfter } } : reply;
    }
    this.nextTask += 1n;
    const now = Date.now();
    const job: KlingFakeJob = {
      taskId: this.nextTask.toString(),
      endpoint,
      externalTaskId: body.external_task_id,
      callbackUrl: body.callback_url,
      body,
      script: {
        statuses: this.jobScript.statuses ?? ['submitted', 'processing', 'succeed'],
        failMsg: this.jobScript.failMsg ?? 'Task failed',
        expiredUrls: this.jobScript.expiredUrls ?? 0,
        duration: this.jobScript.duration ?? body.duration ?? '5',
      },
      queries: 0,
      urlsGiven: 0,
      createdAt: now,
      updatedAt: now,
    };
    this.jobs.set(job.taskId, job);
    if (script === 'drop') return 'drop';
    return kling(200, 0, 'SUCCEED', {
      task_id: job.taskId,
      task_status: 'submitted',
      task_info: job.externalTaskId ? { external_task_id: job.externalTaskId } : {},
      created_at: job.createdAt,
      updated_at: job.updatedAt,
    });
  }

  private query(endpoint: Endpoint, id: string): FakeReply {
    const scripted = this.queryScripts.shift();
    if (scripted) return scripted;
    let job = this.jobs.get(id);
    if (!job && this.lookupByExternalId) job = this.jobByExternalId(id);
    if (!job || job.endpoint !== endpoint) return kling(404, 1203, 'task not found');
    job.queries += 1;
    job.updatedAt = Date.now();
    const status = this.currentStatus(job);
    if (status === 'succeed') job.urlsGiven += 1;
    return kling(200, 0, 'SUCCEED', this.taskObject(job, status));
  }

  private list(endpoint: Endpoint, req: FakeRequest): FakeReply {
    const pageNum = Number(req.query.get('pageNum') ?? 1);
    const pageSize = Number(req.query.get('pageSize') ?? 30);
    if (!Number.isInteger(pageNum) || pageNum < 1 || pageNum > 1000)
      return this.invalid('pageNum is invalid');
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 500)
      return this.invalid('pageSize is invalid');
    const jobs = [...this.jobs.values()].filter((job) => job.endpoint === endpoint).reverse();
    const page = jobs.slice((pageNum - 1) * pageSize, pageNum * pageSize);
    return kling(
      200,
      0,
      'SUCCEED',
      page.map((job) => this.taskObject(job, this.currentStatus(job))),
    );
  }
}

export async function startKlingFake(accessKey?: string, secretKey?: string): Promise<KlingFake> {
  return new KlingFake(accessKey, secretKey).start();
}
