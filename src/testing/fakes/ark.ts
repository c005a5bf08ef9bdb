// A loopback fake of BytePlus ModelArk / Volcengine Ark under /api/v3, following its documented shapes:
// Seedance tasks (POST/GET/DELETE /contents/generations/tasks[/{id}], the task list with page_num,
// page_size and filter.*), Seedream images (POST /images/generations, synchronous), `{error: {code,
// message}}` errors and a Bearer key. It checks the key and the request bodies and answers Ark's own
// 401/400 when they are wrong. Jobs live in memory; tests script them (statuses per poll, a failure
// code, submit refusals, a dropped create, expired result URLs) and make it call the callback URL.
import { FAKE_MP4, FAKE_PNG, type FakeReply, type FakeRequest, FakeServer } from './fake-server.js';

export interface ArkJobScript {
  /** The status each poll sees, in order; the last one repeats. Default: queued, running, succeeded. */
  statuses?: string[];
  /** The task's error when a status is `failed`. */
  error?: { code: string; message?: string };
  /** usage.completion_tokens of a succeeded task. */
  tokens?: number;
  /** The first N downloads of the result file answer 403 (an expired signed URL). */
  expiredDownloads?: number;
}

/** What the next create call (video or image) answers instead of working. */
export type ArkSubmitScript =
  | { status: number; code: string; message?: string; headers?: Record<string, string> }
  /** Creates the job, then closes the connection without an answer. */
  | 'drop';

export interface ArkFakeJob {
  id: string;
  model: string;
  body: Record<string, any>;
  script: Required<Pick<ArkJobScript, 'statuses'>> & ArkJobScript;
  polls: number;
  /** Set by cancel or finish(): wins over the script. */
  forced?: string;
  createdAt: number;
  downloads: number;
}

const ERROR_MESSAGES: Record<string, string> = {
  AuthenticationError: 'The API key or AK/SK in the request is missing or invalid.',
  InvalidParameter: 'One or more parameters specified in the request are not valid.',
  MissingParameter: 'The request failed because it is missing one or multiple required parameters.',
};

const RATIOS = new Set(['16:9', '4:3', '1:1', '3:4', '9:16', '21:9', '9:21', 'adaptive']);
const RESOLUTIONS = new Set(['480p', '720p', '1080p']);
const ROLES: Record<string, string[]> = {
  image_url: ['first_frame', 'last_frame', 'reference_image'],
  video_url: ['reference_video'],
  audio_url: ['reference_audio'],
};
const VIDEO_FIELDS = new Set([
  'model',
  'content',
  'callback_url',
  'return_last_frame',
  'resolution',
  'ratio',
  'duration',
  'seed',
  'camera_fixed',
  'watermark',
  'generate_audio',
  'service_tier',
  'execution_expires_after',
]);
const IMAGE_FIELDS = new Set(['model', 'prompt', 'size', 'response_format', 'watermark', 'seed', 'image']);

function arkError(
  status: number,
  code: string,
  message?: string,
  headers?: Record<string, string>,
): FakeReply {
  const text = message ?? ERROR_MESSAGES[code] ?? code;
  return {
    status,
    json: { error: { code, message: `${text} Request ID: fake`, param: '', type: 'BadRequest' } },
    headers,
  };
}

const isInt = (value: unknown) => typeof value === 'number' && Number.isInteger(value);

/** Why Ark would refuse a Seedance create body, or undefined. */
function videoBodyProblem(body: any): string | undefined {
  if (!body || typeof body !== 'object') return 'body must be a JSON object';
  for (const field of Object.keys(body)) if (!VIDEO_FIELDS.has(field)) return `unknown field ${field}`;
  if (typeof body.model !== 'string' || body.model === '') return 'model';
  if (!Array.isArray(body.content) || body.content.length === 0) return 'content';
  for (const item of body.content) {
    if (item?.type === 'text') {
      if (typeof item.text !== 'string') return 'content.text';
      continue;
    }
    const roles = ROLES[item?.type];
    if (!roles) return `content.type ${item?.type}`;
    if (typeof item[item.type]?.url !== 'string') return `content.${item.type}.url`;
    if (item.role !== undefined && !roles.includes(item.role)) return `content.role ${item.role}`;
    if (item.type !== 'image_url' && /seedance-1-/.test(body.model))
      return `${item.type} not supported by ${body.model}`;
  }
  if (body.ratio !== undefined && !RATIOS.has(body.ratio)) return 'ratio';
  if (body.resolution !== undefined && !RESOLUTIONS.has(body.resolution)) return 'resolution';
  if (body.duration !== undefined && (!isInt(body.duration) || body.duration < 2 || body.duration > 15))
    return 'duration';
  if (body.seed !== undefined && (!isInt(body.seed) || body.seed < -1 || body.seed > 4294967295))
    return 'seed';
  for (const flag of ['watermark', 'camera_fixed', 'generate_audio', 'return_last_frame'])
    if (body[flag] !== undefined && typeof body[flag] !== 'boolean') return flag;
  if (body.callback_url !== undefined && typeof body.callback_url !== 'string') return 'callback_url';
  return undefined;
}

function imageBodyProblem(body: any): string | undefined {
  if (!body || typeof body !== 'object') return 'body must be a JSON object';
  for (const field of Object.keys(body)) if (!IMAGE_FIELDS.has(field)) return `unknown field ${field}`;
  if (typeof body.model !== 'string' || body.model === '') return 'model';
  if (typeof body.prompt !== 'string' || body.prompt === '') return 'prompt';
  if (body.size !== undefined && !/^(\d+x\d+|1K|2K|4K)$/.test(body.size)) return 'size';
  if (body.response_format !== undefined && !['url', 'b64_json'].includes(body.response_format))
    return 'response_format';
  if (body.watermark !== undefined && typeof body.watermark !== 'boolean') return 'watermark';
  if (body.seed !== undefined && !isInt(body.seed)) return 'seed';
  if (body.image !== undefined && typeof body.image !== 'string') return 'image';
  return undefined;
}

export class FakeArk {
  readonly server = new FakeServer();
  readonly jobs = new Map<string, ArkFakeJob>();
  /** Answers for the next create calls, consumed one per call. */
  readonly submitScripts: ArkSubmitScript[] = [];
  /** The script of every job created from now on. */
  jobScript: ArkJobScript = {};
  /** Seedream: an error attached to the image instead of a URL (e.g. OutputImageSensitiveContentDetected). */
  imageItemError: string | undefined;
  /** Answer every list call with this status and error code (for check() and reconcile). */
  listFailure: { status: number; code: string } | undefined;
  private counter = 0;

  constructor(readonly apiKey = 'ark-test-key') {
    const api = '/api/v3';
    this.server
      .on('POST', new RegExp(`^${api}/contents/generations/tasks$`), (req) => this.createVideo(req))
      .on('GET', new RegExp(`^${api}/contents/generations/tasks$`), (req) => this.list(req))
      .on('GET', new RegExp(`^${api}/contents/generations/tasks/([^/]+)$`), (req, m) => this.get(req, m[1]))
      .on('DELETE', new RegExp(`^${api}/contents/generations/tasks/([^/]+)$`), (req, m) =>
        this.remove(req, m[1]),
      )
      .on('POST', new RegExp(`^${api}/images/generations$`), (req) => this.createImage(req))
      .on('GET', /^\/files\/([\w.-]+)$/, (_req, m) => this.download(m[1]));
  }

  get origin(): string {
    return this.server.origin;
  }

  /** The base_url to configure: the fake's origin + /api/v3. */
  get baseUrl(): string {
    return `${this.server.origin}/api/v3`;
  }

  async start(): Promise<this> {
    await this.server.start();
    return this;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  /** Create calls received (video and image), including refused and dropped ones. */
  creates(): FakeRequest[] {
    return [
      ...this.server.calls(/\/contents\/generations\/tasks$/, 'POST'),
      ...this.server.calls(/\/images\/generations$/, 'POST'),
    ];
  }

  cancels(): FakeRequest[] {
    return this.server.calls(/\/contents\/generations\/tasks\/[^/]+$/, 'DELETE');
  }

  private authorized(req: FakeRequest): boolean {
    return req.headers.authorization === `Bearer ${this.apiKey}`;
  }

  private scripted(): ArkSubmitScript | undefined {
    return this.submitScripts.shift();
  }

  private createVideo(req: FakeRequest): FakeReply {
    if (!this.authorized(req)) return arkError(401, 'AuthenticationError');
    const problem = videoBodyProblem(req.json);
    if (problem)
      return arkError(
        400,
        'InvalidParameter',
        `The parameter ${problem} specified in the request is not valid.`,
      );
    const script = this.scripted();
    if (script && script !== 'drop')
      return arkError(script.status, script.code, script.message, script.headers);
    const id = `cgt-${Date.now()}-${++this.counter}`;
    this.jobs.set(id, {
      id,
      model: req.json.model,
      body: req.json,
      script: { statuses: ['queued', 'running', 'succeeded'], ...this.jobScript },
      polls: 0,
      createdAt: Math.floor(Date.now() / 1000),
      downloads: 0,
    });
    return script === 'drop' ? 'drop' : { status: 200, json: { id } };
  }

  /** The status a job shows now (without advancing it). */
  statusOf(job: ArkFakeJob): string {
    return job.forced ?? job.script.statuses[Math.min(job.polls, job.script.statuses.length - 1)];
  }

  /** The task as GET /contents/generations/tasks/{id} returns it. */
  view(job: ArkFakeJob, version = job.polls): Record<string, unknown> {
    const status = this.statusOf(job);
    const body = job.body;
    const task: Record<string, unknown> = {
      id: job.id,
      model: job.model,
      status,
      created_at: job.createdAt,
      updated_at: Math.floor(Date.now() / 1000),
      seed: body.seed ?? 12345,
      resolution: body.resolution ?? '720p',
      ratio: body.ratio ?? '16:9',
      duration: body.duration ?? 5,
      framespersecond: 24,
    };
    if (status === 'succeeded') {
      // A fresh signed URL on every read, as Ark signs each answer.
      task.content = { video_url: `${this.origin}/files/${job.id}.mp4?X-Tos-Signature=v${version}` };
      const tokens = job.script.tokens ?? 108_900;
      task.usage = { completion_tokens: tokens, total_tokens: tokens };
    }
    if (status === 'failed') {
      const code = job.script.error?.code ?? 'InternalServiceError';
      task.error = { code, message: job.script.error?.message ?? `${code} (fake)` };
    }
    return task;
  }

  private get(req: FakeRequest, id: string): FakeReply {
    if (!this.authorized(req)) return arkError(401, 'AuthenticationError');
    const job = this.jobs.get(id);
    if (!job) return arkError(404, 'ResourceNotFound', `The specified task ${id} is not found.`);
    const task = this.view(job);
    job.polls++;
    return { status: 200, json: task };
  }

  private list(req: FakeRequest): FakeReply {
    if (!this.authorized(req)) return arkError(401, 'AuthenticationError');
    if (this.listFailure) return arkError(this.listFailure.status, this.listFailure.code);
    const pageNum = Number(req.query.get('page_num') ?? 1);
    const pageSize = Number(req.query.get('page_size') ?? 10);
    if (!isInt(pageNum) || pageNum < 1 || pageNum > 500 || !isInt(pageSize) || pageSize < 1 || pageSize > 500)
      return arkError(
        400,
        'InvalidParameter',
        'The parameter page_num/page_size specified in the request is not valid.',
      );
    const status = req.query.get('filter.status');
    const ids = req.query.getAll('filter.task_ids');
    const model = req.query.get('filter.model');
    const matching = [...this.jobs.values()]
      .filter((job) => !status || this.statusOf(job) === status)
      .filter((job) => ids.length === 0 || ids.includes(job.id))
      .filter((job) => !model || job.model === model)
      .reverse();
    const items = matching.slice((pageNum - 1) * pageSize, pageNum * pageSize).map((job) => this.view(job));
    return { status: 200, json: { total: matching.length, items } };
  }

  /** Cancels a queued task, deletes a finished one; Ark refuses it for a running task. */
  private remove(req: FakeRequest, id: string): FakeReply {
    if (!this.authorized(req)) return arkError(401, 'AuthenticationError');
    const job = this.jobs.get(id);
    if (!job) return arkError(404, 'ResourceNotFound', `The specified task ${id} is not found.`);
    const status = this.statusOf(job);
    if (status === 'queued') job.forced = 'cancelled';
    else if (status === 'running')
      return arkError(400, 'InvalidParameter', 'A running task cannot be cancelled.');
    else this.jobs.delete(id);
    return { status: 200, json: {} };
  }

  private createImage(req: FakeRequest): FakeReply {
    if (!this.authorized(req)) return arkError(401, 'AuthenticationError');
    const problem = imageBodyProblem(req.json);
    if (problem)
      return arkError(
        400,
        'InvalidParameter',
        `The parameter ${problem} specified in the request is not valid.`,
      );
    const script = this.scripted();
    if (script === 'drop') return 'drop';
    if (script) return arkError(script.status, script.code, script.message, script.headers);
    const size = /^\d+x\d+$/.test(req.json.size ?? '') ? req.json.size : '2048x2048';
    const item = this.imageItemError
      ? { error: { code: this.imageItemError, message: `${this.imageItemError} (fake)` } }
      : { url: `${this.origin}/files/img-${++this.counter}.png`, size };
    return {
      status: 200,
      json: {
        model: req.json.model,
        created: Math.floor(Date.now() / 1000),
        data: [item],
        usage: { generated_images: this.imageItemError ? 0 : 1, output_tokens: 16384, total_tokens: 16384 },
      },
      headers: { 'x-request-id': `req-${this.counter}` },
    };
  }

  private download(name: string): FakeReply {
    if (name.endsWith('.png'))
      return { status: 200, body: FAKE_PNG, headers: { 'content-type': 'image/png' } };
    const job = this.jobs.get(name.replace(/\.mp4$/, ''));
    if (!job) return { status: 404, body: 'NoSuchKey' };
    job.downloads++;
    if (job.downloads <= (job.script.expiredDownloads ?? 0))
      return {
        status: 403,
        body: '<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>',
      };
    return { status: 200, body: FAKE_MP4, headers: { 'content-type': 'video/mp4' } };
  }

  /** The job a create call made, by its position among the jobs (0: the first). */
  job(index = 0): ArkFakeJob {
    const job = [...this.jobs.values()][index];
    if (!job) throw new Error(`the fake has no job #${index}`);
    return job;
  }

  /** Moves a job to succeeded now (as if Ark finished it), whatever its script said. */
  finish(id: string): void {
    const job = this.jobs.get(id);
    if (!job) throw new Error(`no fake job ${id}`);
    job.forced = 'succeeded';
  }

  /** POSTs the task, as GET shows it, to the callback_url of its create request (as Ark does). */
  async sendCallback(id: string): Promise<number> {
    const job = this.jobs.get(id);
    if (!job) throw new Error(`no fake job ${id}`);
    if (typeof job.body.callback_url !== 'string') throw new Error(`fake job ${id} has no callback_url`);
    const res = await fetch(job.body.callback_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(this.view(job)),
    });
    await res.arrayBuffer();
    return res.status;
  }
}
