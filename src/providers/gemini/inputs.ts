// Input images (Veo's first frame, the image model's picture to edit): the Gemini API takes no URL
// for them (no fetching on its side, and gcsUri is Vertex AI only), so we download the client's URL
// and send the bytes inline. The client's URL is untrusted: the download goes through the same
// egress guard as client webhooks (public addresses only, checked at connect), no redirects, a size
// cap and an image type check. Any problem is the client's parameter problem, told as such.
import { type Dispatcher, request } from 'undici';
import { createEgressAgent } from '../../services/webhooks/egress.js';

export interface InlineImage {
  data: Buffer;
  mimeType: string;
}

/** The Gemini API's inline request limit is 20 MB in all; base64 grows the bytes by a third. */
export const MAX_INPUT_IMAGE_BYTES = 14 * 1024 * 1024;
const TIMEOUT_MS = 30_000;
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp']);

export class InputImageError extends Error {}

/** The image's type from its first bytes: what the server says is not trusted. */
export function sniffImageType(data: Buffer): string | undefined {
  if (data.length >= 8 && data.readUInt32BE(0) === 0x89504e47) return 'image/png';
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'image/jpeg';
  if (
    data.length >= 12 &&
    data.toString('latin1', 0, 4) === 'RIFF' &&
    data.toString('latin1', 8, 12) === 'WEBP'
  )
    return 'image/webp';
  return undefined;
}

export class InputImageFetcher {
  private readonly agent: Dispatcher;

  constructor(allowPrivate: boolean) {
    this.agent = createEgressAgent({ allowPrivate, connectTimeoutMs: 10_000 });
  }

  /** Downloads `url`; throws InputImageError with a client-safe message (the parameter name is added by the caller). */
  async fetch(url: string): Promise<InlineImage> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new InputImageError('is not a valid URL');
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
      throw new InputImageError('must be an http(s) URL');
    if (parsed.username || parsed.password) throw new InputImageError('must not carry credentials');
    let response: Dispatcher.ResponseData;
    try {
      response = await request(parsed, {
        method: 'GET',
        dispatcher: this.agent,
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
      });
    } catch {
      throw new InputImageError('could not be downloaded');
    }
    if (response.statusCode !== 200) {
      response.body.on('error', () => {}).resume();
      throw new InputImageError(`could not be downloaded (HTTP ${response.statusCode})`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of response.body) {
        size += chunk.length;
        if (size > MAX_INPUT_IMAGE_BYTES) {
          response.body.destroy();
          throw new InputImageError(`is larger than ${MAX_INPUT_IMAGE_BYTES / 1024 / 1024} MB`);
        }
        chunks.push(chunk);
      }
    } catch (error) {
      throw error instanceof InputImageError ? error : new InputImageError('could not be downloaded');
    }
    const data = Buffer.concat(chunks);
    const mimeType = sniffImageType(data);
    if (!mimeType || !IMAGE_TYPES.has(mimeType))
      throw new InputImageError('must be a PNG, JPEG or WebP image');
    return { data, mimeType };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
