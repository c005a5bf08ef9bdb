// Object storage: local files and S3 (against s3rver, a real S3-compatible server, in this process)
// behind one interface, result copying with a size cap, and the Range parser of the serving route.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRange } from '../http/range.js';
import { testConfig } from '../testing/app.js';
import { type S3rverHarness, startS3rver } from '../testing/s3rver.js';
import { copyResult, ResultDownloadError } from './copy-result.js';
import { LocalObjectStore } from './local-store.js';
import { contentTypeOfName, type ObjectStore, ObjectTooLargeError } from './object-store.js';
import { createS3ObjectStore } from './s3-store.js';

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`),
    ),
  );
}

const payload = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251));

/** `count` chunks of 1 MiB, each made fresh (never one buffer reused), with a known SHA-256. */
function largeSource(count: number, onChunk: (produced: number) => void) {
  const hash = createHash('sha256');
  let produced = 0;
  const stream = Readable.from(
    (function* () {
      for (let i = 0; i < count; i++) {
        const chunk = Buffer.alloc(MIB, (i * 37) % 256);
        chunk.writeUInt32BE(i, 0);
        hash.update(chunk);
        produced += chunk.length;
        onChunk(produced);
        yield chunk;
      }
    })(),
  );
  return { stream, digest: () => hash.digest('hex') };
}

const MIB = 1024 * 1024;

interface ContractStore {
  store: ObjectStore;
  /** How many objects the backing storage holds. */
  stored: () => number | Promise<number>;
  /** Bytes on the wire to the storage server, when there is one. */
  wire?: () => { read: number; written: number };
}

function contract(name: string, make: () => Promise<ContractStore>) {
  describe(`${name} object store`, () => {
    it('stores bytes and streams under an unguessable name with the type in it', async () => {
      const { store } = await make();
      const a = await store.put(payload, { contentType: 'video/mp4', maxBytes: 10_000 });
      const b = await store.put(Readable.from([payload.subarray(0, 100), payload.subarray(100)]), {
        contentType: 'image/png; charset=binary',
        maxBytes: 10_000,
      });
      expect(a.name).toMatch(/^[A-Za-z0-9_-]{22}\.mp4$/);
      expect(b).toMatchObject({ size: 5000, contentType: 'image/png' });
      expect(a.name).not.toBe(b.name);
      expect(await store.stat(a.name)).toEqual({ name: a.name, size: 5000, contentType: 'video/mp4' });
      expect(await readAll((await store.get(b.name))!.stream)).toEqual(payload);
      expect(await readAll((await store.get(a.name))!.stream)).toEqual(payload);
    });

    it('stores an empty result', async () => {
      const { store } = await make();
      const a = await store.put(Readable.from([]), { contentType: 'image/png', maxBytes: 10_000 });
      expect(await store.stat(a.name)).toEqual({ name: a.name, size: 0, contentType: 'image/png' });
      expect(await readAll((await store.get(a.name))!.stream)).toEqual(Buffer.alloc(0));
    });

    it('reads a byte range', async () => {
      const { store } = await make();
      const a = await store.put(payload, { contentType: 'video/mp4', maxBytes: 10_000 });
      const part = await store.get(a.name, { start: 10, end: 19 });
      expect(part?.size).toBe(5000);
      expect(await readAll(part!.stream)).toEqual(payload.subarray(10, 20));
      const tail = await store.get(a.name, { start: 4990, end: 4999 });
      expect(await readAll(tail!.stream)).toEqual(payload.subarray(4990));
      const one = await store.get(a.name, { start: 0, end: 0 });
      expect(one?.size).toBe(5000);
      expect(await readAll(one!.stream)).toEqual(payload.subarray(0, 1));
    });

    it('refuses past the size cap and keeps nothing', async () => {
      const { store, stored } = await make();
      const before = await stored();
      await expect(
        store.put(Readable.from([payload, payload]), { contentType: 'video/mp4', maxBytes: 6000 }),
      ).rejects.toBeInstanceOf(ObjectTooLargeError);
      expect(await stored()).toBe(before);
    });

    it('refuses past the size cap in the middle of a multipart upload, and keeps nothing', async () => {
      const { store, stored } = await make();
      const before = await stored();
      const source = largeSource(12, () => {});
      await expect(
        store.put(source.stream, { contentType: 'video/mp4', maxBytes: 8 * MIB }),
      ).rejects.toBeInstanceOf(ObjectTooLargeError);
      expect(await stored()).toBe(before);
    });

    it('fails an upload whose source fails, and keeps nothing', async () => {
      const { store, stored } = await make();
      const before = await stored();
      const source = new Readable({ read() {} });
      source.push(payload);
      setTimeout(() => source.destroy(new Error('upstream connection reset')), 20);
      await expect(store.put(source, { contentType: 'video/mp4', maxBytes: 10_000 })).rejects.toThrow(
        'upstream connection reset',
      );
      expect(await stored()).toBe(before);
    });

    it('a missing object is undefined, not an error', async () => {
      const { store } = await make();
      const a = await store.put(payload, { contentType: 'video/mp4', maxBytes: 10_000 });
      const missing = `${'A'.repeat(22)}.mp4`;
      expect(await store.stat(missing)).toBeUndefined();
      expect(await store.get(missing)).toBeUndefined();
      expect(await store.get(missing, { start: 0, end: 9 })).toBeUndefined();
      // A name that differs from a stored one only in its type is another object.
      expect(await store.get(a.name.replace('.mp4', '.png'))).toBeUndefined();
      await store.delete(missing);
    });

    it('does not know names it did not make', async () => {
      const { store } = await make();
      expect(await store.stat('AAAAAAAAAAAAAAAAAAAAAA.mp4')).toBeUndefined();
      expect(await store.get('../../etc/passwd')).toBeUndefined();
      expect(await store.stat('AAAAAAAAAAAAAAAAAAAAAA.sh')).toBeUndefined();
    });

    it('deletes', async () => {
      const { store, stored } = await make();
      const a = await store.put(payload, { contentType: 'video/mp4', maxBytes: 10_000 });
      const before = await stored();
      await store.delete(a.name);
      expect(await store.stat(a.name)).toBeUndefined();
      expect(await store.get(a.name)).toBeUndefined();
      expect(await stored()).toBe(before - 1);
    });

    it('streams a large result in and out without holding it whole', { timeout: 120_000 }, async () => {
      const { store, wire } = await make();
      const chunks = 64;
      // How far the source ran ahead of the bytes that reached the server: what the uploader holds.
      let ahead = 0;
      const start = wire?.().read ?? 0;
      const source = largeSource(chunks, (produced) => {
        if (wire) ahead = Math.max(ahead, produced - (wire().read - start));
      });
      const object = await store.put(source.stream, { contentType: 'video/mp4', maxBytes: 100 * MIB });
      expect(object.size).toBe(chunks * MIB);
      expect(await store.stat(object.name)).toMatchObject({ size: chunks * MIB });
      if (wire) expect(ahead).toBeLessThan(20 * MIB);

      const body = await store.get(object.name);
      expect(body?.size).toBe(chunks * MIB);
      const hash = createHash('sha256');
      let received = 0;
      let sentWhenFirstChunkArrived = -1;
      const sentBefore = wire?.().written ?? 0;
      for await (const chunk of body!.stream) {
        if (sentWhenFirstChunkArrived < 0) {
          // Give a buffering client every chance to pull the rest before looking at the wire.
          await new Promise((resolve) => setTimeout(resolve, 200));
          sentWhenFirstChunkArrived = (wire?.().written ?? 0) - sentBefore;
        }
        hash.update(chunk);
        received += chunk.length;
      }
      expect(received).toBe(chunks * MIB);
      expect(hash.digest('hex')).toBe(source.digest());
      if (wire) expect(sentWhenFirstChunkArrived).toBeLessThan(20 * MIB);
    });
  });
}

const dirs: string[] = [];
const servers: Server[] = [];
const s3rvers: S3rverHarness[] = [];
afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  for (const server of servers) server.close();
  for (const s3rver of s3rvers) await s3rver.close();
});

contract('local', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gengate-objects-'));
  dirs.push(dir);
  const count = () => readdirSync(dir, { recursive: true }).filter((f) => String(f).includes('.')).length;
  return { store: new LocalObjectStore(dir), stored: count };
});

describe('S3 against s3rver', () => {
  let s3rver: S3rverHarness;
  let lister: S3Client;
  beforeAll(async () => {
    s3rver = await startS3rver();
    s3rvers.push(s3rver);
    lister = new S3Client({
      region: 'us-east-1',
      endpoint: s3rver.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
  });
  afterAll(() => lister.destroy());

  /** Objects under the prefix, and multipart uploads left open anywhere in the bucket. */
  async function stored(): Promise<number> {
    const list = await lister.send(new ListObjectsV2Command({ Bucket: s3rver.bucket, Prefix: 'gengate/' }));
    return list.KeyCount ?? 0;
  }

  contract('S3', async () => {
    const store = await createS3ObjectStore(
      testConfig({
        s3Bucket: s3rver.bucket,
        s3Endpoint: s3rver.endpoint,
        s3ForcePathStyle: true,
        s3AccessKeyId: 'S3RVER',
        s3SecretAccessKey: 'S3RVER',
        s3Prefix: 'gengate/',
      }),
    );
    return { store, stored, wire: () => s3rver.wire() };
  });

  it('keeps objects under the prefix', async () => {
    const store = await createS3ObjectStore(
      testConfig({
        s3Bucket: s3rver.bucket,
        s3Endpoint: s3rver.endpoint,
        s3AccessKeyId: 'S3RVER',
        s3SecretAccessKey: 'S3RVER',
        s3Prefix: 'gengate/',
      }),
    );
    const a = await store.put(payload, { contentType: 'image/png', maxBytes: 10_000 });
    const head = await lister.send(
      new HeadObjectCommand({ Bucket: s3rver.bucket, Key: `gengate/${a.name}` }),
    );
    expect(head).toMatchObject({ ContentLength: 5000, ContentType: 'image/png' });
  });
});

describe('local object store: identical bytes', () => {
  const make = () => {
    const dir = mkdtempSync(join(tmpdir(), 'gengate-dedup-'));
    dirs.push(dir);
    return { dir, store: new LocalObjectStore(dir) };
  };
  const fileOf = (dir: string, name: string) => join(dir, name.slice(0, 2), name);

  it('are written once and linked under a second unguessable name', async () => {
    const { dir, store } = make();
    const a = await store.put(payload, { contentType: 'image/png', maxBytes: 10_000 });
    // Another Buffer with the same content: found by its digest, not by identity.
    const b = await store.put(Buffer.from(payload), { contentType: 'image/png', maxBytes: 10_000 });
    expect(a.name).not.toBe(b.name);
    expect(b.name).toMatch(/^[A-Za-z0-9_-]{22}\.png$/);
    expect(statSync(fileOf(dir, a.name)).ino).toBe(statSync(fileOf(dir, b.name)).ino);
    expect(statSync(fileOf(dir, b.name)).nlink).toBe(2);
    expect(await readAll((await store.get(b.name, { start: 10, end: 19 }))!.stream)).toEqual(
      payload.subarray(10, 20),
    );
  });

  it('survive the deletion of the first name, and a deleted copy is written again', async () => {
    const { dir, store } = make();
    const a = await store.put(payload, { contentType: 'image/png', maxBytes: 10_000 });
    const b = await store.put(payload, { contentType: 'image/png', maxBytes: 10_000 });
    await store.delete(a.name);
    expect(await store.stat(a.name)).toBeUndefined();
    expect(await readAll((await store.get(b.name))!.stream)).toEqual(payload);
    await store.delete(b.name);
    const c = await store.put(payload, { contentType: 'image/png', maxBytes: 10_000 });
    expect(statSync(fileOf(dir, c.name)).nlink).toBe(1);
    expect(await readAll((await store.get(c.name))!.stream)).toEqual(payload);
  });

  it('over the size cap are refused before anything is written', async () => {
    const { store } = make();
    await expect(store.put(payload, { contentType: 'image/png', maxBytes: 4_999 })).rejects.toBeInstanceOf(
      ObjectTooLargeError,
    );
  });
});

describe('copyResult', () => {
  let base: string;
  let store: LocalObjectStore;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gengate-copy-'));
    dirs.push(dir);
    store = new LocalObjectStore(dir);
    const server = createServer((req, res) => {
      if (req.url === '/video.mp4') {
        res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': payload.length });
        return res.end(payload);
      }
      if (req.url === '/chunked') {
        res.writeHead(200, { 'content-type': 'video/mp4' });
        res.write(payload);
        return res.end(payload);
      }
      res.writeHead(404);
      res.end();
    });
    servers.push(server);
    base = await listen(server);
  });

  it('downloads a URL result as a stream into the store', async () => {
    const object = await copyResult(store, { source: { kind: 'url', url: `${base}/video.mp4` } }, 10_000);
    expect(object).toMatchObject({ size: 5000, contentType: 'video/mp4' });
    expect(await readAll((await store.get(object.name))!.stream)).toEqual(payload);
  });

  it('refuses a declared length over the cap before reading, and an undeclared one while reading', async () => {
    await expect(
      copyResult(store, { source: { kind: 'url', url: `${base}/video.mp4` } }, 4999),
    ).rejects.toBeInstanceOf(ObjectTooLargeError);
    await expect(
      copyResult(store, { source: { kind: 'url', url: `${base}/chunked` } }, 7000),
    ).rejects.toBeInstanceOf(ObjectTooLargeError);
    await expect(copyResult(store, { source: { kind: 'bytes', data: payload } }, 10)).rejects.toBeInstanceOf(
      ObjectTooLargeError,
    );
  });

  it('a failed download is an error to retry, not a result', async () => {
    await expect(
      copyResult(store, { source: { kind: 'url', url: `${base}/missing` } }, 10_000),
    ).rejects.toMatchObject({ name: 'DownloadError', status: 404, expired: true });
    await expect(
      copyResult(store, { source: { kind: 'url', url: 'file:///etc/passwd' } }, 10_000),
    ).rejects.toBeInstanceOf(ResultDownloadError);
  });
});

describe('parseRange', () => {
  it.each([
    [undefined, { kind: 'none' }],
    ['bytes=0-99', { kind: 'range', range: { start: 0, end: 99 } }],
    ['bytes=100-', { kind: 'range', range: { start: 100, end: 999 } }],
    ['bytes=-10', { kind: 'range', range: { start: 990, end: 999 } }],
    ['bytes=-5000', { kind: 'range', range: { start: 0, end: 999 } }],
    ['bytes=900-5000', { kind: 'range', range: { start: 900, end: 999 } }],
    ['bytes=1000-', { kind: 'unsatisfiable' }],
    ['bytes=-0', { kind: 'unsatisfiable' }],
    ['bytes=5-1', { kind: 'none' }],
    ['bytes=0-1,5-6', { kind: 'none' }],
    ['items=0-1', { kind: 'none' }],
  ])('%s', (header, expected) => {
    expect(parseRange(header, 1000)).toEqual(expected);
  });
});

it('content types come from the name', () => {
  expect(contentTypeOfName('AAAAAAAAAAAAAAAAAAAAAA.png')).toBe('image/png');
  expect(contentTypeOfName('AAAAAAAAAAAAAAAAAAAAAA.webm')).toBe('video/webm');
  expect(contentTypeOfName('short.png')).toBeUndefined();
});
