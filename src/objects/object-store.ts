// Where results live: an interface with local files (default) and S3 behind it. Object names are
// random 128-bit ids plus an extension, so a URL cannot be guessed and the type is in the name.
import { randomBytes } from 'node:crypto';
import { type Readable, Transform } from 'node:stream';
import { ownEntry } from '../domain/own-entry.js';

export interface StoredObject {
  name: string;
  size: number;
  contentType: string;
}

export interface ObjectBody extends StoredObject {
  stream: Readable;
}

/** Inclusive byte range. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface ObjectStore {
  /** Stores `source`, failing with ObjectTooLargeError (and keeping nothing) past `maxBytes`. */
  put(source: Readable | Buffer, options: { contentType: string; maxBytes: number }): Promise<StoredObject>;
  stat(name: string): Promise<StoredObject | undefined>;
  /** The whole object, or one inclusive byte range of it (the caller checks the range against stat). */
  get(name: string, range?: ByteRange): Promise<ObjectBody | undefined>;
  delete(name: string): Promise<void>;
}

export class ObjectTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The result is larger than the limit of ${maxBytes} bytes`);
  }
}

const EXTENSIONS: Record<string, string> = {
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'video/quicktime': 'mov',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'audio/mpeg': 'mp3',
  'application/octet-stream': 'bin',
};
const TYPES = Object.fromEntries(Object.entries(EXTENSIONS).map(([type, ext]) => [ext, type]));

/** 22 base64url characters (128 random bits), a dot and a known extension; nothing else is served. */
const NAME = /^[A-Za-z0-9_-]{22}\.([a-z0-9]{2,5})$/;

export function normalizeContentType(contentType: string | undefined): string {
  const base = (contentType ?? '').split(';')[0].trim().toLowerCase();
  return ownEntry(EXTENSIONS, base) ? base : 'application/octet-stream';
}

export function newObjectName(contentType: string): string {
  return `${randomBytes(16).toString('base64url')}.${ownEntry(EXTENSIONS, normalizeContentType(contentType))}`;
}

/** The content type of a valid object name, or undefined for anything that is not one of ours. */
export function contentTypeOfName(name: string): string | undefined {
  const match = NAME.exec(name);
  return match ? ownEntry(TYPES, match[1]) : undefined;
}

/** Counts bytes through a stream and fails it once they exceed the cap. */
export function sizeCap(maxBytes: number): Transform & { bytes: number } {
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      counter.bytes += chunk.length;
      if (counter.bytes > maxBytes) callback(new ObjectTooLargeError(maxBytes));
      else callback(null, chunk);
    },
  }) as Transform & { bytes: number };
  counter.bytes = 0;
  return counter;
}
