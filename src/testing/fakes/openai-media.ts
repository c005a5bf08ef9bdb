// A loopback fake of the OpenAI Images and Videos APIs, for the openai media adapter's tests. It
// follows the documented shapes: POST /v1/images/generations (JSON, answers data[].b64_json and
// usage), POST /v1/videos (multipart: model, prompt, seconds, size), GET /v1/videos/{id} (the video
// object), GET /v1/videos/{id}/content (the MP4, with our key), DELETE /v1/videos/{id} (completed or
// failed videos only), GET /v1/models; errors as {error: {message, type, code, param}}. It checks the
// bearer key and the bodies, and plays scripts set per test (see the fields of FakeOpenAiMedia).
import { randomBytes } from 'node:crypto';
import { webhookHeaders } from '../../domain/webhooks/signing.js';
import { FAKE_MP4, FAKE_PNG, type FakeReply, type FakeRequest, FakeServer } from './fake-server.js';

/** One create call's answer: the job is made (`ok`), made and the connection dropped, or an error. */
export type OpenAiCreateScript =
  | 'ok'
  | 'drop'
  | { status: number; code?: string | null; type?: string; param?: string | null; retryAfter?: string };

/** What a status call answers: a video status, or an HTTP error for this one call. */
export type OpenAiPollScript =
  | 'queued'
  | 'in_progress'
  | 'completed'
  | 'failed'
  | 'rate_limited'
  | 'server_error';

export interface FakeVideo {
  id: string;
  fields: Record<string, string>;
  polls: number;
  status: 'queued' | 'in_progress' | 'completed' | 'failed';
  /** Set once the video is terminal and the scripted webhooks were sent. */
  announced: boolean;
  deleted: boolean;
}

const VIDEO_MODELS = new Set(['sora-2', 'sora-2-pro']);
const VIDEO_FIELDS = new Set(['model', 'prompt', 'seconds', 'size', 'input_reference']);
const VIDEO_SIZES = new Set(['720x1280', '1280x720']);
const IMAGE_FIELDS = new Set([
  'model',
  'prompt',
  'n',
  'size',
  'quality',
  'background',
  'output_format',
  'output_compression',
  'moderation',
  'user',
]);
const IMAGE_SIZES = new Set(['1024x1024', '1536x1024', '1024x1536', 'auto']);

function error(
  status: number,
  message: string,
  code: string | null,
  param: string | null = null,
  type = 'invalid_request_error',
): FakeReply {
  return { status, json: { error: { message, type, code, param } } };
}

export class FakeOpenAiMedia {
  readonly server = new FakeServer();
  readonly apiKey = `sk-fake-${randomBytes(6).toString('hex')}`;
  readonly videos = new Map<string, FakeVideo>();
  /** Consumed one per create call (images and videos); when empty, every create succeeds. */
  creates: OpenAiCreateScript[] = [];
  /** A video's answer on its nth status call (the last entry repeats). */
  polls: OpenAiPollScript[] = ['queued', 'in_progress', 'completed'];
  /** The error of a failed video. */
  videoError = { code: 'moderation_blocked', message: 'Your request was blocked by our moderation system.' };
  /** How many content downloads answer 403 before one succeeds. */
  expiredDownloads = 0;
  /** Project webhook: when a video first turns terminal, deliver the event `times` times, signed. */
  webhook: { url: string; secret: string; times: number } | undefined;
  /** Deliveries made by `webhook`: the video and the HTTP status of each. */
  readonly deliveries: Array<{ videoId: string; status: number }> = [];

  get baseUrl(): string {
    return `${this.server.origin}/v1`;
  }

  async start(): Promise<this> {
    this.server
      .on('GET', /\/v1\/models/, (req) => this.authorized(req) ?? this.models())
      .on('POST', /\/v1\/images\/generations/, (req) => this.authorized(req) ?? this.createImage(req))
      .on('POST', /\/v1\/videos/, async (req) => this.authorized(req) ?? (await this.createVideo(req)))
      .on('GET', /\/v1\/videos\/([^/]+)\/content/, (req, m) => this.authorized(req) ?? this.content(m[1]))
      .on(
        'GET',
        /\/v1\/videos\/([^/]+)/,
        async (req, m) => this.authorized(req) ?? (await this.retrieve(m[1])),
      )
      .on('DELETE', /\/v1\/videos\/([^/]+)/, (req, m) => this.authorized(req) ?? this.remove(m[1]));
    await this.server.start();
    return this;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  /** Create calls received (answered, failed or dropped). */
  createCalls(kind: 'video' | 'image'): FakeRequest[] {
    return kind === 'video'
      ? this.server.calls(/^\/v1\/videos$/, 'POST')
      : this.server.calls(/^\/v1\/images\/generations$/, 'POST');
  }

  /** A video's documented object, as GET /videos/{id} answers it. */
  videoObject(video: FakeVideo): Record<string, unknown> {
    const terminal = video.status === 'completed' || video.status === 'failed';
    return {
      id: video.id,
      object: 'video',
      model: video.fields.model,
      status: video.status,
      progress: terminal ? 100 : video.status === 'in_progress' ? 50 : 0,
      created_at: 1_790_000_000,
      completed_at: terminal ? 1_790_000_100 : null,
      expires_at: video.status === 'completed' ? 1_790_003_700 : null,
      seconds: video.fields.seconds,
      size: video.fields.size,
      remixed_from_video_id: null,
      error: video.status === 'failed' ? { ...this.videoError } : null,
    };
  }

  /** POSTs a signed project webhook about a video, as OpenAI does (Standard Webhooks). */
  async sendWebhook(url: string, secret: string, videoId: string, type = 'video.completed'): Promise<number> {
    const body = JSON.stringify({
      id: `evt_${randomBytes(8).toString('hex')}`,
      object: 'event',
      type,
      created_at: Math.floor(Date.now() / 1000),
      data: { id: videoId },
    });
    const headers = webhookHeaders(`msg_${randomBytes(8).toString('hex')}`, body, [secret], Date.now());
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    await res.arrayBuffer();
    return res.status;
  }

  private authorized(req: FakeRequest): FakeReply | undefined {
    if (req.headers.authorization === `Bearer ${this.apiKey}`) return undefined;
    return error(
      401,
      'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.',
      'invalid_api_key',
    );
  }

  private scripted(): OpenAiCreateScript {
    return this.creates.shift() ?? 'ok';
  }

  private scriptedError(script: Exclude<OpenAiCreateScript, 'ok' | 'drop'>): FakeReply {
    const messages: Record<string, string> = {
      rate_limit_exceeded: 'Rate limit reached for requests',
      insufficient_quota: 'You exceeded your current quota, please check your plan and billing details.',
      moderation_blocked: 'Your request was rejected by the safety system.',
    };
    const reply = error(
      script.status,
      messages[script.code ?? ''] ?? `scripted error ${script.status}`,
      script.code ?? null,
      script.param ?? null,
      script.type ?? (script.status >= 500 ? 'server_error' : 'invalid_request_error'),
    ) as Extract<FakeReply, { status: number }>;
    return script.retryAfter ? { ...reply, headers: { 'retry-after': script.retryAfter } } : reply;
  }

  private models(): FakeReply {
    return {
      status: 200,
      json: {
        object: 'list',
        data: ['gpt-image-1', 'sora-2'].map((id) => ({
          id,
          object: 'model',
          created: 1,
          owned_by: 'system',
        })),
      },
    };
  }

  private createImage(req: FakeRequest): FakeReply {
    if (!String(req.headers['content-type']).startsWith('application/json') || typeof req.json !== 'object')
      return error(400, 'We could not parse the JSON body of your request.', null);
    const body = req.json as Record<string, unknown>;
    for (const field of Object.keys(body))
      if (!IMAGE_FIELDS.has(field))
        return error(400, `Unknown parameter: '${field}'.`, 'unknown_parameter', field);
    if (body.model !== 'gpt-image-1')
      return error(400, `Invalid value for 'model'.`, 'invalid_value', 'model');
    if (typeof body.prompt !== 'string' || !body.prompt)
      return error(400, 'Missing prompt.', 'missing_required_parameter', 'prompt');
    if (body.n !== undefined && body.n !== 1)
      return error(400, `Invalid value for 'n'.`, 'invalid_value', 'n');
    if (body.size !== undefined && !IMAGE_SIZES.has(String(body.size)))
      return error(
        400,
        `Invalid value: '${body.size}'. Supported values are: '1024x1024', '1024x1536', '1536x1024', and 'auto'.`,
        'invalid_value',
        'size',
      );
    if (body.quality !== undefined && !['low', 'medium', 'high', 'auto'].includes(String(body.quality)))
      return error(400, `Invalid value for 'quality'.`, 'invalid_value', 'quality');
    const script = this.scripted();
    if (script === 'drop') return 'drop';
    if (script !== 'ok') return this.scriptedError(script);
    return {
      status: 200,
      json: {
        created: 1_790_000_000,
        background: 'opaque',
        data: [{ b64_json: FAKE_PNG.toString('base64') }],
        output_format: 'png',
        quality: body.quality ?? 'medium',
        size: body.size ?? '1024x1024',
        usage: {
          input_tokens: 12,
          input_tokens_details: { text_tokens: 12, image_tokens: 0 },
          output_tokens: 1056,
          total_tokens: 1068,
        },
      },
    };
  }

  private async createVideo(req: FakeRequest): Promise<FakeReply> {
    const type = String(req.headers['content-type'] ?? '');
    if (!type.startsWith('multipart/form-data'))
      return error(400, 'The request must be multipart/form-data.', null);
    let form: Awaited<ReturnType<Response['formData']>>;
    try {
      form = await new Response(req.raw, { headers: { 'content-type': type } }).formData();
    } catch {
      return error(400, 'We could not parse the multipart body of your request.', null);
    }
    const fields: Record<string, string> = {};
    for (const [name, value] of form.entries()) {
      if (!VIDEO_FIELDS.has(name))
        return error(400, `Unknown parameter: '${name}'.`, 'unknown_parameter', name);
      fields[name] = typeof value === 'string' ? value : `<file ${value.name}>`;
    }
    if (!VIDEO_MODELS.has(fields.model ?? 'sora-2'))
      return error(400, `Invalid value for 'model'.`, 'invalid_value', 'model');
    if (!fields.prompt)
      return error(400, 'Missing required parameter: prompt.', 'missing_required_parameter', 'prompt');
    if (fields.seconds !== undefined && !['4', '8', '12'].includes(fields.seconds))
      return error(
        400,
        `Invalid value: '${fields.seconds}'. Supported values are: '4', '8', and '12'.`,
        'invalid_value',
        'seconds',
      );
    if (fields.size !== undefined && !VIDEO_SIZES.has(fields.size))
      return error(
        400,
        `Invalid value: '${fields.size}'. Supported values are: '720x1280' and '1280x720'.`,
        'invalid_value',
        'size',
      );
    const script = this.scripted();
    if (script !== 'ok' && script !== 'drop') return this.scriptedError(script);
    const video: FakeVideo = {
      id: `video_${randomBytes(12).toString('hex')}`,
      fields: { model: 'sora-2', seconds: '4', size: '720x1280', ...fields },
      polls: 0,
      status: 'queued',
      announced: false,
      deleted: false,
    };
    this.videos.set(video.id, video);
    // 'drop': the job exists, and the answer is lost.
    return script === 'drop' ? 'drop' : { status: 200, json: this.videoObject(video) };
  }

  private notFound(id: string): FakeReply {
    return error(404, `Video with id '${id}' not found.`, null, null);
  }

  private async retrieve(id: string): Promise<FakeReply> {
    const video = this.videos.get(id);
    if (!video || video.deleted) return this.notFound(id);
    video.polls += 1;
    const step = this.polls[Math.min(video.polls, this.polls.length) - 1] ?? 'queued';
    if (step === 'rate_limited')
      return this.scriptedError({ status: 429, code: 'rate_limit_exceeded', retryAfter: '1' });
    if (step === 'server_error') return this.scriptedError({ status: 500, code: null });
    video.status = step;
    if ((step === 'completed' || step === 'failed') && !video.announced) {
      video.announced = true;
      const hook = this.webhook;
      if (hook) {
        const type = step === 'completed' ? 'video.completed' : 'video.failed';
        for (let i = 0; i < hook.times; i++)
          this.deliveries.push({
            videoId: id,
            status: await this.sendWebhook(hook.url, hook.secret, id, type).catch(() => 0),
          });
      }
    }
    return { status: 200, json: this.videoObject(video) };
  }

  private content(id: string): FakeReply {
    const video = this.videos.get(id);
    if (!video || video.deleted) return this.notFound(id);
    if (video.status !== 'completed') return error(400, 'Video is not ready yet.', null);
    if (this.expiredDownloads > 0) {
      this.expiredDownloads -= 1;
      return error(403, 'The content of this video has expired.', null);
    }
    return { status: 200, body: FAKE_MP4, headers: { 'content-type': 'video/mp4' } };
  }

  private remove(id: string): FakeReply {
    const video = this.videos.get(id);
    if (!video || video.deleted) return this.notFound(id);
    if (video.status !== 'completed' && video.status !== 'failed')
      return error(400, 'Only completed or failed videos can be deleted.', null);
    video.deleted = true;
    return { status: 200, json: { id, object: 'video.deleted', deleted: true } };
  }
}

export async function startFakeOpenAiMedia(): Promise<FakeOpenAiMedia> {
  return new FakeOpenAiMedia().start();
}
