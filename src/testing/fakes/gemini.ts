// A loopback fake of the Gemini API (generativelanguage.googleapis.com/v1beta) for Veo and the image
// model, following the documented shapes: x-goog-api-key auth (a wrong key answers Google's 400
// INVALID_ARGUMENT with reason API_KEY_INVALID), predictLongRunning → {name} operations polled by
// GET /v1beta/{name}, a video URI on the fake's own origin that redirects to the file and needs the
// key, generateContent with inline base64 images, and errors as {error: {code, message, status}}.
// Tests script it per call: `submitErrors` answer the next create calls; `videoScripts` and
// `imageScripts` decide what each accepted create becomes.
import { FAKE_MP4, FAKE_PNG, type FakeReply, type FakeRequest, FakeServer } from './fake-server.js';

export interface GoogleErrorBody {
  code: number;
  message: string;
  status: string;
  details?: Array<Record<string, unknown>>;
}

export const GEMINI_ERRORS = {
  busy: {
    code: 429,
    message: 'You exceeded your current quota, please check your plan and billing details.',
    status: 'RESOURCE_EXHAUSTED',
    details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' }],
  },
  invalid: { code: 400, message: 'Invalid value for aspectRatio.', status: 'INVALID_ARGUMENT' },
  billing: {
    code: 400,
    message: 'Gemini API free tier is not available in your country. Please enable billing on your project.',
    status: 'FAILED_PRECONDITION',
  },
  billing403: {
    code: 403,
    message: 'This API method requires billing to be enabled.',
    status: 'PERMISSION_DENIED',
  },
  denied: { code: 403, message: 'Permission denied on resource project.', status: 'PERMISSION_DENIED' },
  badKey: {
    code: 400,
    message: 'API key not valid. Please pass a valid API key.',
    status: 'INVALID_ARGUMENT',
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'API_KEY_INVALID',
        domain: 'googleapis.com',
      },
    ],
  },
  unavailable: {
    code: 503,
    message: 'The model is overloaded. Please try again later.',
    status: 'UNAVAILABLE',
  },
  internal: { code: 500, message: 'An internal error has occurred.', status: 'INTERNAL' },
  notFound: { code: 404, message: 'models/veo-x is not found for API version v1beta.', status: 'NOT_FOUND' },
} satisfies Record<string, GoogleErrorBody>;

/** What one Veo operation does. */
export interface VideoScript {
  /** Polls that answer done:false before the operation is done (default 1). */
  runningPolls?: number;
  /** The end: a video (default), the safety filter, no samples, or an operation error. */
  result?: 'video' | 'filtered' | 'empty' | { error: { code: number; message: string } };
  /** Downloads of the video that answer 403 before one succeeds (each poll hands out a fresh URI). */
  expiredDownloads?: number;
  /** Never finishes (done:false forever). */
  never?: boolean;
  /** Create the operation, then drop the create call's connection (an uncertain submit). */
  dropCreate?: boolean;
}

/** What one image generation answers with status 200. */
export type ImageScript =
  | 'image'
  | 'text-and-two-images'
  | 'image-safety'
  | 'prohibited'
  | 'blocked-prompt'
  | 'text-only'
  | 'not-json';

interface Operation {
  name: string;
  script: VideoScript;
  polls: number;
  downloads: number;
  request: any;
}

const VEO_PARAMETERS = new Set([
  'aspectRatio',
  'durationSeconds',
  'negativePrompt',
  'personGeneration',
  'resolution',
]);
const VEO_DURATIONS = new Set([4, 6, 8]);
const VEO2_DURATIONS = new Set([5, 6, 7, 8]);
const IMAGE_RATIOS = new Set(['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9']);

export const FAKE_JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1]);

export class FakeGemini {
  readonly server = new FakeServer();
  readonly operations = new Map<string, Operation>();
  /** Error answers for the next create calls (Veo or image), one per call. */
  submitErrors: Array<GoogleErrorBody | 'drop'> = [];
  /** Error answers for the next polls, one per poll (e.g. a 503 that must read as running). */
  pollErrors: GoogleErrorBody[] = [];
  videoScripts: VideoScript[] = [];
  defaultVideo: VideoScript = {};
  imageScripts: ImageScript[] = [];
  downloads = 0;
  private nextId = 1;

  constructor(readonly apiKey = 'gem-test-key') {}

  get origin(): string {
    return this.server.origin;
  }

  /** The base_url to configure: the fake's origin (the adapter appends /v1beta). */
  get baseUrl(): string {
    return this.server.origin;
  }

  /** Every create call that reached the fake (accepted or not). */
  createCalls(): FakeRequest[] {
    return this.server.calls(/^\/v1beta\/models\/[^/]+:(predictLongRunning|generateContent)$/, 'POST');
  }

  cancelCalls(): FakeRequest[] {
    return this.server.requests.filter((r) => r.path.includes(':cancel') || r.method === 'DELETE');
  }

  private authorized(request: FakeRequest): boolean {
    return request.headers['x-goog-api-key'] === this.apiKey;
  }

  private error(body: GoogleErrorBody): FakeReply {
    return { status: body.code, json: { error: body } };
  }

  private invalid(message: string): FakeReply {
    return this.error({ code: 400, message, status: 'INVALID_ARGUMENT' });
  }

  async start(): Promise<this> {
    const s = this.server;
    s.on('GET', /^\/v1beta\/models$/, (request) => {
      if (!this.authorized(request)) return this.error(GEMINI_ERRORS.badKey);
      return {
        status: 200,
        json: {
          models: [{ name: 'models/gemini-2.5-flash-image', displayName: 'Nano Banana' }],
          nextPageToken: 'next',
        },
      };
    });
    s.on('POST', /^\/v1beta\/models\/([^/:]+):predictLongRunning$/, (request, match) =>
      this.createVideo(request, match[1]),
    );
    s.on('POST', /^\/v1beta\/models\/([^/:]+):generateContent$/, (request) => this.generateImage(request));
    s.on('GET', /^\/v1beta\/(models\/[^/]+\/operations\/[^/]+)$/, (request, match) =>
      this.getOperation(request, match[1]),
    );
    // The file URI of a finished video needs the key and redirects to the bytes (as Google's does).
    s.on('GET', /^\/v1beta\/files\/([^/:]+):download$/, (request, match) => {
      if (!this.authorized(request)) return this.error(GEMINI_ERRORS.denied);
      const operation = [...this.operations.values()].find((op) => op.name.endsWith(`/${match[1]}`));
      if (!operation) return this.error({ code: 404, message: 'File not found.', status: 'NOT_FOUND' });
      this.downloads++;
      operation.downloads++;
      if ((operation.script.expiredDownloads ?? 0) >= operation.downloads)
        return this.error({ code: 403, message: 'The file has expired.', status: 'PERMISSION_DENIED' });
      return { status: 302, headers: { location: `/blobs/${match[1]}.mp4?token=signed` } };
    });
    s.on('GET', /^\/blobs\/[^/]+\.mp4$/, () => ({
      status: 200,
      body: FAKE_MP4,
      headers: { 'content-type': 'video/mp4' },
    }));
    // Input images a client could point at (start_image_url, image_url).
    s.on('GET', /^\/inputs\/frame\.png$/, () => ({
      status: 200,
      body: FAKE_PNG,
      headers: { 'content-type': 'image/png' },
    }));
    s.on('GET', /^\/inputs\/frame\.jpg$/, () => ({
      status: 200,
      body: FAKE_JPEG,
      headers: { 'content-type': 'image/jpeg' },
    }));
    s.on('GET', /^\/inputs\/not-an-image$/, () => ({
      status: 200,
      body: '<html></html>',
      headers: { 'content-type': 'image/png' },
    }));
    await s.start();
    return this;
  }

  private createVideo(request: FakeRequest, model: string): FakeReply {
    if (!this.authorized(request)) return this.error(GEMINI_ERRORS.badKey);
    const scripted = this.submitErrors.shift();
    if (scripted === 'drop') return 'drop';
    if (scripted) return this.error(scripted);
    const body = request.json;
    const instance = body?.instances?.[0];
    if (
      !Array.isArray(body?.instances) ||
      body.instances.length !== 1 ||
      typeof instance?.prompt !== 'string'
    )
      return this.invalid('instances[0].prompt is required.');
    if (instance.image !== undefined) {
      const image = instance.image;
      if (
        typeof image?.bytesBase64Encoded !== 'string' ||
        !/^image\/(png|jpeg|webp)$/.test(image?.mimeType ?? '')
      )
        return this.invalid('image must carry bytesBase64Encoded and an image mimeType.');
    }
    const parameters = body.parameters ?? {};
    for (const field of Object.keys(parameters))
      if (!VEO_PARAMETERS.has(field)) return this.invalid(`${field} isn't supported by this model.`);
    const durations = model.startsWith('veo-2') ? VEO2_DURATIONS : VEO_DURATIONS;
    if (parameters.durationSeconds !== undefined && !durations.has(parameters.durationSeconds))
      return this.invalid('The number value for `durationSeconds` is out of bound.');
    if (parameters.aspectRatio !== undefined && !['16:9', '9:16'].includes(parameters.aspectRatio))
      return this.invalid('Invalid value for aspectRatio.');
    const script = this.videoScripts.shift() ?? this.defaultVideo;
    const name = `models/${model}/operations/op${this.nextId++}`;
    this.operations.set(name, { name, script, polls: 0, downloads: 0, request: body });
    if (script.dropCreate) return 'drop';
    return { status: 200, json: { name } };
  }

  private getOperation(request: FakeRequest, name: string): FakeReply {
    if (!this.authorized(request)) return this.error(GEMINI_ERRORS.badKey);
    const failure = this.pollErrors.shift();
    if (failure) return this.error(failure);
    const operation = this.operations.get(name);
    if (!operation) return this.error({ code: 404, message: 'Operation not found.', status: 'NOT_FOUND' });
    operation.polls++;
    const { script } = operation;
    if (script.never || operation.polls <= (script.runningPolls ?? 1))
      return { status: 200, json: { name, metadata: {}, done: false } };
    const result = script.result ?? 'video';
    if (typeof result === 'object') return { status: 200, json: { name, done: true, error: result.error } };
    const type = 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse';
    if (result === 'filtered')
      return {
        status: 200,
        json: {
          name,
          done: true,
          response: {
            '@type': type,
            generateVideoResponse: {
              raiMediaFilteredCount: 1,
              raiMediaFilteredReasons: ["We can't create videos with this content."],
            },
          },
        },
      };
    if (result === 'empty')
      return {
        status: 200,
        json: { name, done: true, response: { '@type': type, generateVideoResponse: {} } },
      };
    const file = name.split('/').pop();
    return {
      status: 200,
      json: {
        name,
        done: true,
        response: {
          '@type': type,
          generateVideoResponse: {
            generatedSamples: [
              {
                video: {
                  uri: `${this.origin}/v1beta/files/${file}:download?alt=media&poll=${operation.polls}`,
                },
              },
            ],
          },
        },
      },
    };
  }

  private generateImage(request: FakeRequest): FakeReply {
    if (!this.authorized(request)) return this.error(GEMINI_ERRORS.badKey);
    const scripted = this.submitErrors.shift();
    if (scripted === 'drop') return 'drop';
    if (scripted) return this.error(scripted);
    const body = request.json;
    const parts = body?.contents?.[0]?.parts;
    if (!Array.isArray(parts) || !parts.some((p: any) => typeof p?.text === 'string'))
      return this.invalid('contents[0].parts must hold a text part.');
    for (const part of parts)
      if (part.inlineData && (typeof part.inlineData.data !== 'string' || !part.inlineData.mimeType))
        return this.invalid('inlineData needs data and mimeType.');
    const config = body.generationConfig ?? {};
    if (!Array.isArray(config.responseModalities) || !config.responseModalities.includes('IMAGE'))
      return this.invalid('responseModalities must include IMAGE.');
    const ratio = config.imageConfig?.aspectRatio;
    if (ratio !== undefined && !IMAGE_RATIOS.has(ratio)) return this.invalid('Invalid aspect ratio.');
    const script = this.imageScripts.shift() ?? 'image';
    const usageMetadata = { promptTokenCount: 12, candidatesTokenCount: 1290, totalTokenCount: 1302 };
    const png = { inlineData: { mimeType: 'image/png', data: FAKE_PNG.toString('base64') } };
    const answer = (candidate: Record<string, unknown>, extra: Record<string, unknown> = {}): FakeReply => ({
      status: 200,
      json: {
        candidates: [candidate],
        usageMetadata,
        modelVersion: 'gemini-2.5-flash-image',
        responseId: 'resp-1',
        ...extra,
      },
    });
    switch (script) {
      case 'image':
        return answer({ content: { role: 'model', parts: [png] }, finishReason: 'STOP', index: 0 });
      case 'text-and-two-images':
        return answer({
          content: {
            role: 'model',
            parts: [
              { text: 'Here is a draft and the final picture.' },
              { inlineData: { mimeType: 'image/jpeg', data: FAKE_JPEG.toString('base64') } },
              png,
            ],
          },
          finishReason: 'STOP',
        });
      case 'image-safety':
        return answer({ finishReason: 'IMAGE_SAFETY', index: 0 });
      case 'prohibited':
        return answer({ content: { parts: [] }, finishReason: 'PROHIBITED_CONTENT' });
      case 'blocked-prompt':
        return {
          status: 200,
          json: { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata },
        };
      case 'text-only':
        return answer({
          content: { role: 'model', parts: [{ text: 'I can only describe it.' }] },
          finishReason: 'STOP',
        });
      case 'not-json':
        return { status: 200, body: '<html>proxy error</html>' };
    }
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
