// A Replicate prediction object (create, get, list and webhook bodies all share it) and what the
// runner needs from it: the outputs (a URL or a list of URLs, each one file) and the usage.

import { ownEntry } from '../../domain/own-entry.js';
import type { ProviderOutput, ProviderUsage } from '../task-provider.js';

export interface Prediction {
  id: string;
  status: string;
  output?: unknown;
  error?: unknown;
  metrics?: { predict_time?: number };
  created_at?: string;
  /** Present on create answers and webhook bodies; not a documented field of list results. */
  webhook?: string | null;
}

/** The prediction in a JSON answer, or undefined when it has no id and status (not a prediction). */
export function asPrediction(json: unknown): Prediction | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const candidate = json as Partial<Prediction>;
  if (typeof candidate.id !== 'string' || candidate.id === '' || typeof candidate.status !== 'string')
    return undefined;
  return candidate as Prediction;
}

/** Replicate deletes API inputs and outputs one hour after the prediction was created. */
const RETENTION_MS = 60 * 60 * 1000;

const CONTENT_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
};

function contentTypeOf(url: URL): string | undefined {
  const extension = /\.([a-z0-9]+)$/i.exec(url.pathname)?.[1]?.toLowerCase();
  return extension ? ownEntry(CONTENT_TYPES, extension) : undefined;
}

/** A URL string of the output, as a file: public delivery URLs, or inline data URIs. */
function toOutput(value: string, expiresAt: number | undefined): ProviderOutput | undefined {
  const data = /^data:([^;,]+)?(;base64)?,(.*)$/s.exec(value);
  if (data) {
    const bytes = data[2] ? Buffer.from(data[3], 'base64') : Buffer.from(decodeURIComponent(data[3]));
    return { source: { kind: 'bytes', data: bytes }, contentType: data[1] };
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  // replicate.delivery URLs are public: the runner downloads them without our key.
  return { source: { kind: 'url', url: value }, contentType: contentTypeOf(url), expiresAt };
}

/** Every file of a succeeded prediction (a string, a list, or an object of named files). */
export function outputsOf(prediction: Prediction): ProviderOutput[] {
  const created = prediction.created_at ? Date.parse(prediction.created_at) : Number.NaN;
  const expiresAt = Number.isFinite(created) ? created + RETENTION_MS : undefined;
  const output = prediction.output;
  const values =
    typeof output === 'string'
      ? [output]
      : Array.isArray(output)
        ? output
        : typeof output === 'object' && output !== null
          ? Object.values(output)
          : [];
  return values
    .filter((value): value is string => typeof value === 'string')
    .map((value) => toOutput(value, expiresAt))
    .filter((value): value is ProviderOutput => value !== undefined);
}

/** Replicate reports compute seconds (`metrics.predict_time`); images are counted by their files. */
export function usageOf(
  prediction: Prediction,
  kind: 'video' | 'image',
  files: number,
): ProviderUsage | undefined {
  const seconds = prediction.metrics?.predict_time;
  const usage: ProviderUsage = {};
  if (typeof seconds === 'number' && Number.isFinite(seconds)) usage.seconds = seconds;
  if (kind === 'image' && files > 0) usage.images = files;
  return Object.keys(usage).length > 0 ? usage : undefined;
}
