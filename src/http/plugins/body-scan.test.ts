// The body scan a JSON body gets while it arrives (low-level-errors.ts): the Messages route reads its
// layout and its poison verdict instead of walking the body again, so it must be of the whole body,
// over a real socket, in as many chunks as the client sends.
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messagesBody } from '../../../bench/messages-body.js';
import { bodyScanOf, registerLowLevelErrors } from './low-level-errors.js';

let app: FastifyInstance;
let port: number;

beforeAll(async () => {
  app = Fastify({ bodyLimit: 1024 * 1024 });
  registerLowLevelErrors(app);
  app.post('/plain', async (request) => ({ scanned: bodyScanOf(request) !== undefined }));
  app.post('/scan', { config: { scanBody: true } }, async (request) => {
    const scan = bodyScanOf(request);
    const raw = Buffer.from(JSON.stringify(request.body));
    return {
      bytes: scan?.bytes,
      rawLength: raw.length,
      keys: scan?.layout.members.map(
        (m) => JSON.stringify(request.body).length >= 0 && m.keyEnd - m.keyStart,
      ),
      poisonSpelling: scan?.poisonSpelling,
    };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as AddressInfo).port;
});

afterAll(() => app.close());

/** POSTs `body` in chunks of `size` bytes, each written on its own. */
function post(body: Buffer, size: number, path = '/scan'): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        port,
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', 'content-length': body.length },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve(JSON.parse(text)));
      },
    );
    req.on('error', reject);
    for (let at = 0; at < body.length; at += size) req.write(body.subarray(at, at + size));
    req.end();
  });
}

describe('the body scan', () => {
  it('covers every byte of the body and notes its top-level members, whatever the chunks', async () => {
    const body = Buffer.from(messagesBody('claude-sonnet-4-5'));
    const topLevel = Object.keys(JSON.parse(body.toString()));
    for (const size of [body.length, 16_384, 1_000, 7]) {
      const seen = await post(body, size);
      expect(seen.bytes).toBe(body.length);
      expect(seen.keys).toEqual(topLevel.map((key) => JSON.stringify(key).length));
      expect(seen.poisonSpelling).toBe(false);
    }
  });

  it('is made only for a route that asks for it: the others get the depth check alone', async () => {
    expect(await post(Buffer.from('{"model":"m"}'), 100, '/plain')).toEqual({ scanned: false });
    expect((await post(Buffer.from('{"model":"m"}'), 100)).bytes).toBe(13);
  });

  it('sees a prototype key split across chunks', async () => {
    // Harmless here (a key of its own), but spelled: such a body takes the app's checking parser.
    const body = Buffer.from('{"model":"m","note":{"prototype":1}}');
    for (const size of [body.indexOf('prototype') + 4, 3])
      expect((await post(body, size)).poisonSpelling).toBe(true);
    expect((await post(Buffer.from('{"model":"m","note":{"protocols":1}}'), 20)).poisonSpelling).toBe(false);
  });
});
