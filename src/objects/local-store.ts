// Objects as files under DATA_DIR/objects, fanned out by the first two characters of the name.
// A write goes to a temporary file and is renamed into place, so a reader never sees half a file.
// Identical bytes are stored once: every object keeps its own unguessable name, but a name whose
// content this process already wrote becomes a hard link to the earlier file (deleting one name
// leaves the others intact; the data goes with the last link).
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { link, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
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
  sizeCap,
} from './object-store.js';

/** How many distinct contents are remembered for linking; past it the memory starts over. */
const REMEMBERED_CONTENTS = 1_000;

/** An object's fan-out directory: the first two characters of its name. */
function directoryOf(name: string): string {
  return name.slice(0, 2);
}

/** Every fan-out directory there can be: names start with two base64url characters (newObjectName). */
export function fanOutDirectories(): string[] {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  return [...alphabet].flatMap((first) => [...alphabet].map((second) => first + second));
}

function errorCode(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

export class LocalObjectStore implements ObjectStore {
  /** SHA-256 of buffers already hashed: a provider that reuses a Buffer is hashed once. */
  private readonly digests = new WeakMap<Buffer, string>();
  /** Content digest → the name of an object this process stored with exactly those bytes. */
  private readonly copies = new Map<string, string>();

  constructor(private readonly root: string) {}

  private pathOf(name: string): string {
    return join(this.root, directoryOf(name), name);
  }

  /**
   * Runs a write of `name`, creating its fan-out directory when the write finds it missing: once
   * the directories exist (soon, there are 4,096), a write costs no extra system call.
   */
  private async inDirectoryOf<T>(name: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
      await mkdir(join(this.root, directoryOf(name)), { recursive: true });
      return write();
    }
  }

  private digestOf(data: Buffer): string {
    let digest = this.digests.get(data);
    if (digest === undefined) {
      digest = createHash('sha256').update(data).digest('base64url');
      this.digests.set(data, digest);
    }
    return digest;
  }

  async put(
    source: Readable | Buffer,
    options: { contentType: string; maxBytes: number },
  ): Promise<StoredObject> {
    const contentType = normalizeContentType(options.contentType);
    const name = newObjectName(contentType);
    if (Buffer.isBuffer(source)) return this.putBytes(source, name, contentType, options.maxBytes);
    const path = this.pathOf(name);
    await mkdir(join(this.root, directoryOf(name)), { recursive: true });
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

  private async putBytes(
    data: Buffer,
    name: string,
    contentType: string,
    maxBytes: number,
  ): Promise<StoredObject> {
    if (data.length > maxBytes) throw new ObjectTooLargeError(maxBytes);
    const path = this.pathOf(name);
    const digest = this.digestOf(data);
    const earlier = this.copies.get(digest);
    if (earlier !== undefined) {
      try {
        await this.inDirectoryOf(name, () => link(this.pathOf(earlier), path));
        return { name, size: data.length, contentType };
      } catch (error) {
        // ENOENT: that copy was deleted; EMLINK: it has the most links the file system allows.
        // Either way this name gets a file of its own, the copy to link to from now on.
        if (errorCode(error) !== 'ENOENT' && errorCode(error) !== 'EMLINK') throw error;
        this.copies.delete(digest);
      }
    }
    const temporary = `${path}.part`;
    try {
      await this.inDirectoryOf(name, () => writeFile(temporary, data, { flag: 'wx' }));
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    if (this.copies.size >= REMEMBERED_CONTENTS) this.copies.clear();
    this.copies.set(digest, name);
    return { name, size: data.length, contentType };
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
