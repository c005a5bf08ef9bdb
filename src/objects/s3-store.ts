// Objects in an S3-compatible bucket (AWS S3, MinIO, R2, …) behind the same interface as local
// files. Uploads stream through the SDK's multipart Upload with the same size cap; reads use a
// Range GET. The SDK is imported only when S3 is configured, so the embedded mode never loads it.
// Tested against s3rver, a real S3-compatible server (objects.test.ts).
import { Readable } from 'node:stream';
import type { Config } from '../config.js';
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

type S3Module = typeof import('@aws-sdk/client-s3');
type UploadModule = typeof import('@aws-sdk/lib-storage');

export async function createS3ObjectStore(config: Config): Promise<ObjectStore> {
  const [s3, storage] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]);
  const client = new s3.S3Client({
    region: config.s3Region,
    endpoint: config.s3Endpoint,
    forcePathStyle: config.s3ForcePathStyle,
    credentials:
      config.s3AccessKeyId && config.s3SecretAccessKey
        ? { accessKeyId: config.s3AccessKeyId, secretAccessKey: config.s3SecretAccessKey }
        : undefined,
    // Plain checksums only when S3 requires them: S3-compatible servers differ in what they accept.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return new S3ObjectStore(s3, storage, client, config.s3Bucket as string, config.s3Prefix);
}

/**
 * Parts of an upload held in memory at once (the SDK's default is 4). Each is 5 MiB, the S3
 * minimum, and the reader fills one more while these are in flight: about 15 MiB per upload
 * instead of 25, which matters with WORKER_CONCURRENCY (32) results uploading at once.
 */
const UPLOAD_QUEUE_SIZE = 2;
const PART_SIZE = 5 * 1024 * 1024;

/** `bytes START-END/TOTAL` of a ranged answer. */
function parseContentRange(
  header: string | undefined,
): { start: number; end: number; total: number } | undefined {
  const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(header ?? '');
  return match ? { start: Number(match[1]), end: Number(match[2]), total: Number(match[3]) } : undefined;
}

/**
 * Exactly the bytes of `range` from a body whose first byte is at `offset`. A server may ignore a
 * Range header (HTTP allows it) or answer more than was asked (s3rver reads `bytes=0-0` as the
 * whole object); the HTTP route has already promised the client `range`'s length.
 */
function sliceBody(body: Readable, offset: number, range: ByteRange): Readable {
  async function* slice() {
    let position = offset;
    try {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        const from = Math.max(0, range.start - position);
        const to = Math.min(chunk.length, range.end + 1 - position);
        position += chunk.length;
        if (to > from) yield chunk.subarray(from, to);
        if (position > range.end) return;
      }
    } finally {
      body.destroy();
    }
  }
  return Readable.from(slice(), { objectMode: false });
}

function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}

export class S3ObjectStore implements ObjectStore {
  constructor(
    private readonly s3: S3Module,
    private readonly storage: UploadModule,
    private readonly client: InstanceType<S3Module['S3Client']>,
    private readonly bucket: string,
    private readonly prefix: string,
  ) {}

  private keyOf(name: string): string {
    return `${this.prefix}${name}`;
  }

  async put(
    source: Readable | Buffer,
    options: { contentType: string; maxBytes: number },
  ): Promise<StoredObject> {
    const contentType = normalizeContentType(options.contentType);
    const name = newObjectName(contentType);
    const counter = sizeCap(options.maxBytes);
    const body = (Buffer.isBuffer(source) ? Readable.from([source]) : source).pipe(counter);
    // pipe() does not forward errors: make a failing source fail the upload too.
    if (!Buffer.isBuffer(source)) source.once('error', (error) => counter.destroy(error));
    const upload = new this.storage.Upload({
      client: this.client,
      queueSize: UPLOAD_QUEUE_SIZE,
      partSize: PART_SIZE,
      params: { Bucket: this.bucket, Key: this.keyOf(name), Body: body, ContentType: contentType },
    });
    try {
      await upload.done();
    } catch (error) {
      await upload.abort().catch(() => undefined);
      if (counter.bytes > options.maxBytes) throw new ObjectTooLargeError(options.maxBytes);
      throw error;
    }
    if (counter.bytes > options.maxBytes) {
      await this.delete(name);
      throw new ObjectTooLargeError(options.maxBytes);
    }
    return { name, size: counter.bytes, contentType };
  }

  async stat(name: string): Promise<StoredObject | undefined> {
    const contentType = contentTypeOfName(name);
    if (!contentType) return undefined;
    try {
      const head = await this.client.send(
        new this.s3.HeadObjectCommand({ Bucket: this.bucket, Key: this.keyOf(name) }),
      );
      return { name, size: Number(head.ContentLength ?? 0), contentType };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async get(name: string, range?: ByteRange): Promise<ObjectBody | undefined> {
    const contentType = contentTypeOfName(name);
    if (!contentType) return undefined;
    try {
      const answer = await this.client.send(
        new this.s3.GetObjectCommand({
          Bucket: this.bucket,
          Key: this.keyOf(name),
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      const body = answer.Body as Readable;
      const answered = parseContentRange(answer.ContentRange);
      const size = answered ? answered.total : Number(answer.ContentLength ?? 0);
      if (!range) return { name, size, contentType, stream: body };
      const offset = answered?.start ?? 0;
      if (offset > range.start) {
        body.destroy();
        throw new Error(`S3 answered bytes from ${offset} to a Range request from ${range.start}`);
      }
      const exact = answered !== undefined && offset === range.start && answered.end === range.end;
      return { name, size, contentType, stream: exact ? body : sliceBody(body, offset, range) };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async delete(name: string): Promise<void> {
    if (!contentTypeOfName(name)) return;
    await this.client.send(new this.s3.DeleteObjectCommand({ Bucket: this.bucket, Key: this.keyOf(name) }));
  }
}
