// Objects as files under DATA_DIR/objects, fanned out by the first two characters of the name.
// A write goes to a temporary file and is renamed into place, so a reader never sees half a file.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  type ByteRange,
  contentTypeOfName,
  newObjectName,
  normalizeContentType,
  type ObjectBody,
  type ObjectStore,
  ObjectTooLargeError,
  type StoredObject,
} from './object-store.js';

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

export class LocalObjectStore implements ObjectStore {
  constructor(private readonly root: string) {}

  private pathOf(name: string): string {
    return join(this.root, name.slice(0, 2), name);
  }

  async put(
    source: Readable | Buffer,
    options: { contentType: string; maxBytes: number },
  ): Promise<StoredObject> {
    const contentType = normalizeContentType(options.contentType);
    const name = newObjectName(contentType);
    const path = this.pathOf(name);
    await mkdir(join(this.root, name.slice(0, 2)), { recursive: true });
    const temporary = `${path}.part`;
    const counter = sizeCap(options.maxBytes);
    try {
      await pipeline(
        Buffer.isBuffer(source) ? Readable.from([source]) : source,
        counter,
        createWriteStream(temporary, { flags: 'wx' }),
      );
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    return { name, size: counter.bytes, contentType };
  }

  async stat(name: string): Promise<StoredObject | undefined> {
    const contentType = contentTypeOfName(name);
    if (!contentType) return undefined;
    try {
      const info = await stat(this.pathOf(name));
      return info.isFile() ? { name, size: info.size, contentType } : undefined;
    } catch {
      return undefined;
    }
  }

  async get(name: string, range?: ByteRange): Promise<ObjectBody | undefined> {
    const info = await this.stat(name);
    if (!info) return undefined;
    const stream = createReadStream(this.pathOf(name), range ? { start: range.start, end: range.end } : {});
    return { ...info, stream };
  }

  async delete(name: string): Promise<void> {
    if (contentTypeOfName(name)) await rm(this.pathOf(name), { force: true });
  }
}
