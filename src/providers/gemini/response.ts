// Gemini API success bodies → outcomes: a Veo operation (GET /v1beta/{name}) and a generateContent
// answer of the image model. A 200 can still carry no result (safety filters): that is a failure.
import type { ProviderFailure } from '../task-provider.js';
import type { GoogleError } from './errors.js';

export interface VeoOperation {
  name?: string;
  done?: boolean;
  error?: GoogleError;
  response?: {
    generateVideoResponse?: {
      generatedSamples?: Array<{ video?: { uri?: string } }>;
      /** The SDK's name for the same list; accepted in case a proxy answers with it. */
      generatedVideos?: Array<{ video?: { uri?: string } }>;
      raiMediaFilteredCount?: number;
      raiMediaFilteredReasons?: string[];
    };
  };
}

export type VeoResult =
  | { status: 'running' }
  | { status: 'error'; error: GoogleError }
  | { status: 'video'; uri: string }
  | { status: 'failed'; failure: ProviderFailure };

export function readOperation(operation: VeoOperation): VeoResult {
  if (operation.error && (operation.error.code !== undefined || operation.error.message))
    return { status: 'error', error: operation.error };
  if (operation.done !== true) return { status: 'running' };
  const result = operation.response?.generateVideoResponse;
  const samples = result?.generatedSamples ?? result?.generatedVideos ?? [];
  const uri = samples.find((sample) => typeof sample.video?.uri === 'string')?.video?.uri;
  const filtered =
    (result?.raiMediaFilteredCount ?? 0) > 0 || (result?.raiMediaFilteredReasons?.length ?? 0) > 0;
  const detail = `done without a video: ${JSON.stringify(operation.response ?? {}).slice(0, 2000)}`;
  // The safety filter removed the video (the count, the reasons, or simply no sample): rejected.
  if (filtered || !uri) return { status: 'failed', failure: { kind: 'rejected', detail } };
  return { status: 'video', uri };
}

interface Part {
  text?: string;
  inlineData?: { mimeType?: string; data?: string };
  inline_data?: { mime_type?: string; data?: string };
}

export interface GenerateContentResponse {
  candidates?: Array<{ content?: { parts?: Part[] }; finishReason?: string }>;
  promptFeedback?: { blockReason?: string };
  usageMetadata?: { promptTokenCount?: number; candidatesTokenCount?: number; totalTokenCount?: number };
  responseId?: string;
}

/** Finish reasons that mean a filter stopped the image. */
const REFUSALS = new Set([
  'SAFETY',
  'IMAGE_SAFETY',
  'PROHIBITED_CONTENT',
  'IMAGE_PROHIBITED_CONTENT',
  'BLOCKLIST',
  'SPII',
  'RECITATION',
  'IMAGE_RECITATION',
]);

export type ImageResult =
  | { status: 'image'; data: Buffer; mimeType: string; outputTokens?: number }
  | { status: 'failed'; failure: ProviderFailure };

export function readImage(body: GenerateContentResponse): ImageResult {
  const candidate = body.candidates?.[0];
  const parts = candidate?.content?.parts ?? [];
  // Text parts and earlier drafts may come first: the last image is the answer.
  let image: { mimeType: string; data: string } | undefined;
  for (const part of parts) {
    const inline =
      part.inlineData ??
      (part.inline_data && { mimeType: part.inline_data.mime_type, data: part.inline_data.data });
    if (inline?.data && (inline.mimeType ?? '').startsWith('image/'))
      image = { mimeType: inline.mimeType as string, data: inline.data };
  }
  if (image)
    return {
      status: 'image',
      data: Buffer.from(image.data, 'base64'),
      mimeType: image.mimeType,
      outputTokens: body.usageMetadata?.candidatesTokenCount,
    };
  const reason = body.promptFeedback?.blockReason ?? candidate?.finishReason;
  const detail = `200 without an image: ${JSON.stringify({
    finishReason: candidate?.finishReason,
    promptFeedback: body.promptFeedback,
    text: parts
      .map((p) => p.text)
      .filter(Boolean)
      .join(' ')
      .slice(0, 500),
  })}`;
  if (body.promptFeedback?.blockReason || (reason && REFUSALS.has(reason)))
    return { status: 'failed', failure: { kind: 'rejected', detail } };
  return { status: 'failed', failure: { kind: 'upstream', detail } };
}

/** Width and height of a PNG from its IHDR chunk; undefined for other formats. */
export function pngSize(data: Buffer): { width: number; height: number } | undefined {
  if (data.length < 24 || data.readUInt32BE(0) !== 0x89504e47 || data.toString('latin1', 12, 16) !== 'IHDR')
    return undefined;
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}
