// Copies a provider's output into our object storage: bytes as they are, URLs downloaded as a
// stream with a size cap (checked against Content-Length first, then while the bytes flow).
import { request } from 'undici';
import type { ProviderOutput } from '../providers/task-provider.js';
import { DownloadError } from './download-error.js';
import { type ObjectStore, ObjectTooLargeError, type StoredObject } from './object-store.js';

/** The URL itself is unusable (not http/https). */
export class ResultDownloadError extends Error {}

const DOWNLOAD_TIMEOUT_MS = 120_000;

export async function copyResult(
  store: ObjectStore,
  output: ProviderOutput,
  maxBytes: number,
): Promise<StoredObject> {
  const source = output.source;
  if (source.kind === 'bytes') {
    if (source.data.length > maxBytes) throw new ObjectTooLargeError(maxBytes);
    return store.put(source.data, {
      contentType: output.contentType ?? 'application/octet-stream',
      maxBytes,
    });
  }
  if (source.kind === 'stream') {
    return store.put(await source.open(), {
      contentType: output.contentType ?? 'application/octet-stream',
      maxBytes,
    });
  }
  const url = new URL(source.url);
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new ResultDownloadError(`unsupported result URL scheme ${url.protocol}`);
  // Redirects are not followed: a result URL must serve the file itself.
  const response = await request(url, {
    method: 'GET',
    headersTimeout: DOWNLOAD_TIMEOUT_MS,
    bodyTimeout: DOWNLOAD_TIMEOUT_MS,
  });
  if (response.statusCode !== 200) {
    response.body.on('error', () => {}).resume();
    throw new DownloadError(response.statusCode);
  }
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.body.on('error', () => {}).destroy();
    throw new ObjectTooLargeError(maxBytes);
  }
  const headerType = response.headers['content-type'];
  const contentType =
    output.contentType ??
    (Array.isArray(headerType) ? headerType[0] : headerType) ??
    'application/octet-stream';
  return store.put(response.body, { contentType, maxBytes });
}
