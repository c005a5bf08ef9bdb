// Object storage: local files and S3 (against a loopback S3 stand-in) behind one interface, result
// copying with a size cap, and the Range parser of the serving route.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRange } from '../http/range.js';
import { testConfig } from '../testing/app.js';
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

/** A minimal S3 stand-in on loopback: PUT, HEAD, ranged GET and DELETE of path-style objects. */
function fakeS3() {
  const objects = new Map<string, { body: Buffer; type: string }>();
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const object = objects.get(path);
    const missing = () => {
      res.writeHead(404, { 'content-type': 'application/xml' });
      res.end(
        req.method === 'HEAD'
          ? undefined
          : '<?xml version="1.0"?><Error><Code>NoSuchKey</Code><Message>missing</Message></Error>',
      );
    };
    if (req.method === 'PUT') {
      objects.set(path, { body: Buffer.concat(chunks), type: String(req.headers['content-type']) });
      res.writeHead(200, { etag: '"e"' });
      return res.end();
    }
    if (req.method === 'DELETE') {
      objects.delete(path);
      res.writeHead(204);
      return res.end();
    }
    if (!object) return missing();
    if (req.method === 'HEAD') {
      res.writeHead(200, { 'content-length': object.body.length, 'content-type': object.type });
      return res.end();
    }
    const range = /^bytes=(\d+)-(\d+)$/.exec(String(req.headers.range ?? ''));
    if (range) {
      const [start, end] = [Number(range[1]), Number(range[2])];
      res.writeHead(206, {
        'content-range': `bytes ${start}-${end}/${object.body.length}`,
        'content-length': end - start + 1,
      });
      return res.end(object.body.subarray(start, end + 1));
    }
    res.writeHead(200, { 'content-length': object.body.length, 'content-type': object.type });
    res.end(object.body);
  });
  return { server, objects };
}

const payload = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251));

function contract(name: string, make: () => Promise<{ store: ObjectStore; stored: () => number }>) {
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
    });

    it('reads a byte range', async () => {
      const { store } = await make();
      const a = await store.put(payload, { contentType: 'video/mp4', maxBytes: 10_000 });
      const part = await store.get(a.name, { start: 10, end: 19 });
      expect(part?.size).toBe(5000);
      expect(await readAll(part!.stream)).toEqual(payload.subarray(10, 20));
    });

    it('refuses past the size cap and keeps nothing', async () => {
      const { store, stored } = await make();
      const before = stored();
      await expect(
        store.put(Readable.from([payload, payload]), { contentType: 'video/mp4', maxBytes: 6000 }),
      ).rejects.toBeInstanceOf(ObjectTooLargeError);
      expect(stored()).toBe(before);
    });

    it('does not know names it did not make', async () => {
      const { store } = await make();
      expect(await store.stat('AAAAAAAAAAAAAAAAAAAAAA.mp4')).toBeUndefined();
      expect(await store.get('../../etc/passwd')).toBeUndefined();
      expect(await store.stat('AAAAAAAAAAAAAAAAAAAAAA.sh')).toBeUndefined();
    });

    it('deletes', async () => {
      const { store } = await make();
      const a = await store.put(payload, { contentType: 'video/mp4', maxBytes: 10_000 });
      await store.delete(a.name);
      expect(await store.stat(a.name)).toBeUndefined();
    });
  });
}

const dirs: string[] = [];
const servers: Server[] = [];
afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  for (const server of servers) server.close();
});

contract('local', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gengate-objects-'));
  dirs.push(dir);
  const count = () => readdirSync(dir, { recursive: true }).filter((f) => String(f).includes('.')).length;
  return { store: new LocalObjectStore(dir), stored: count };
});

contract('S3', async () => {
  const s3 = fakeS3();
  servers.push(s3.server);
  const endpoint = await listen(s3.server);
  const store = await createS3ObjectStore(
    testConfig({
      s3Bucket: 'results',
      s3Endpoint: endpoint,
      s3ForcePathStyle: true,
      s3AccessKeyId: 'test',
      s3SecretAccessKey: 'test',
      s3Prefix: 'gengate/',
    }),
  );
  return { store, stored: () => s3.objects.size };
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
