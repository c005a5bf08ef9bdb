// The one HTTP call of every media adapter. It tells apart the two ways a call can fail without an
// answer, because that decides whether a submit may be repeated:
// - NotSentError: the connection was never made (refused, DNS, connect timeout), so nothing reached
//   the upstream and the submit may be tried again or sent to the next route;
// - UncertainError: the request may have been delivered and the answer was lost (reset, timeout),
//   so a job may exist upstream and the submit must never be repeated.
import type { Readable } from 'node:stream';
import { type Dispatcher, type FormData, request } from 'undici';
import { DownloadError } from '../../objects/download-error.js';

export class NotSentError extends Error {
  readonly name = 'NotSentError';
}

export class UncertainError extends Error {
  readonly name = 'UncertainError';
}

export { DownloadError };

/** Error codes of a connection that was never established: the request did not leave this host. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_INVALID_ARG',
]);

export interface UpstreamRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  /** A JSON body (sent with Content-Type: application/json), raw text, or multipart FormData. */
  json?: unknown;
  body?: string | Buffer | FormData;
  timeoutMs?: number;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: any;
}

const DEFAULT_TIMEOUT_MS = 60_000;
/** An error body is kept for the logs; a result body can be large (inline base64 images). */
const MAX_TEXT_BYTES = 64 * 1024 * 1024;

function classify(error: unknown): Error {
  const code = (error as { code?: string })?.code ?? (error as { cause?: { code?: string } })?.cause?.code;
  const message = `${(error as Error)?.message ?? error}${code ? ` (${code})` : ''}`;
  return code && NOT_SENT_CODES.has(code) ? new NotSentError(message) : new UncertainError(message);
}

export async function callUpstream(call: UpstreamRequest): Promise<UpstreamResponse> {
  const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
  let body = call.body;
  if (call.json !== undefined) {
    body = JSON.stringify(call.json);
    headers['content-type'] = 'application/json';
  }
  const timeout = call.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let response: Dispatcher.ResponseData;
  try {
    response = await request(call.url, {
      method: call.method,
      headers,
      body,
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
  } catch (error) {
    throw classify(error);
  }
  let text: string;
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += chunk.length;
      if (size > MAX_TEXT_BYTES) {
        response.body.destroy();
        throw new UncertainError(`upstream answer larger than ${MAX_TEXT_BYTES} bytes`);
      }
      chunks.push(chunk);
    }
    text = Buffer.concat(chunks).toString('utf8');
  } catch (error) {
    throw error instanceof UncertainError ? error : classify(error);
  }
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, headers: response.headers, text, json };
}

/** One header's value (the first when repeated). */
export function header(response: { headers: UpstreamResponse['headers'] }, name: string): string | undefined {
  const value = response.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** Retry-After in milliseconds (seconds or an HTTP date), if the upstream sent one. */
export function retryAfterMs(response: UpstreamResponse, now = Date.now()): number | undefined {
  const value = header(response, 'retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** What goes to the logs about an upstream answer: status and a bounded excerpt of the body. */
export function describeAnswer(response: UpstreamResponse): string {
  return `HTTP ${response.status}: ${response.text.slice(0, 2000)}`;
}

/**
 * Opens a download that needs our credentials (OpenAI video content, Gemini files), following up to
 * three redirects (a signed storage URL) and sending the credentials only to the first origin.
 */
export async function openDownload(url: string, headers: Record<string, string>): Promise<Readable> {
  let target = url;
  let sendHeaders: Record<string, string> = headers;
  const origin = new URL(url).origin;
  for (let hop = 0; hop < 4; hop++) {
    let response: Dispatcher.ResponseData;
    try {
      response = await request(target, {
        method: 'GET',
        headers: sendHeaders,
        headersTimeout: 120_000,
        bodyTimeout: 120_000,
      });
    } catch (error) {
      throw classify(error);
    }
    const location = response.headers.location;
    if (response.statusCode >= 300 && response.statusCode < 400 && location) {
      response.body.resume();
      target = new URL(Array.isArray(location) ? location[0] : location, target).toString();
      if (new URL(target).origin !== origin) sendHeaders = {};
      continue;
    }
    if (response.statusCode !== 200) {
      response.body.on('error', () => {}).resume();
      throw new DownloadError(response.statusCode);
    }
    return response.body;
  }
  throw new DownloadError(310);
}
