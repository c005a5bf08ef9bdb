// Requests refused below the routes (Node's parser, Fastify's router, the body reader) answer in the
// one error shape with the right status, over a real socket; a body nested too deeply is a 400, not
// a stack overflow, and nothing is charged.
import type { ConnectionError } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogModel } from '../domain/catalog/model.js';
import { jsonTextTooDeep, MAX_JSON_DEPTH, valueTooDeep } from '../domain/json-depth.js';
import { ParamsValidator } from '../domain/tasks/params.js';
import { readCatalogFile } from '../services/catalog.js';
import { ADMIN_TOKEN, createTestApp, listenOnLoopback, type TestApp, type TestKey } from '../testing/app.js';
import { type RawAnswer, rawRequest } from '../testing/raw-http.js';
import { toAppError } from './errors.js';
import { clientErrorOf, MAX_URL_BYTES } from './plugins/low-level-errors.js';

let app: TestApp;
let key: TestKey;
let port: number;

beforeAll(async () => {
  app = await createTestApp();
  key = await app.newKey({ balanceRub: 1000 });
  port = Number(new URL(await listenOnLoopback(app)).port);
});
afterAll(() => app.dispose());

function expectShape(answer: RawAnswer, status: number, code: string) {
  expect(answer.status, answer.raw.slice(0, 300)).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  const body = answer.headers['transfer-encoding'] === 'chunked' ? dechunk(answer.body) : answer.body;
  expect(JSON.parse(body)).toEqual({
    error: { message: expect.any(String), type: 'invalid_request_error', code, param: null },
  });
  return JSON.parse(body) as { error: { message: string } };
}

function dechunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const at = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.slice(0, at), 16);
    if (!size) return out;
    out += rest.slice(at + 2, at + 2 + size);
    rest = rest.slice(at + 2 + size + 2);
  }
}

function post(path: string, body: string, headers: Record<string, string> = {}): string {
  const lines = [
    `POST ${path} HTTP/1.1`,
    'Host: localhost',
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

function balance() {
  return app.ctx.storage.keys.balanceOf(key.keyId);
}

describe('answers below the routes', () => {
  it('431 for a 70 KB header', async () => {
    const answer = await rawRequest(
      port,
      `GET /public/models HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`,
    );
    expectShape(answer, 431, 'request_headers_too_large');
    expect(answer.headers.connection).toBe('close');
  });

  it('414 for a URL longer than Node accepts (100 KB)', async () => {
    const answer = await rawRequest(
      port,
      `GET /public/models?q=${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    expectShape(answer, 414, 'uri_too_long');
  });

  it('414 for a URL over MAX_URL_BYTES that Node accepts', async () => {
    const answer = await rawRequest(
      port,
      `GET /public/models?q=${'a'.repeat(MAX_URL_BYTES)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expectShape(answer, 414, 'uri_too_long');
  });

  it('414 for a path segment over the router limit, without echoing it', async () => {
    const id = 'a'.repeat(5000);
    const answer = await rawRequest(
      port,
      `GET /tasks/${id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key.secret}\r\nConnection: close\r\n\r\n`,
    );
    const body = expectShape(answer, 414, 'uri_too_long');
    expect(body.error.message).not.toContain('aaaaaaaa');
  });

  it('400 for a URL with bad percent-encoding', async () => {
    const answer = await rawRequest(
      port,
      'GET /tasks/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    expectShape(answer, 400, 'malformed_request');
  });

  it.each([
    ['garbage', 'HELLO\r\n\r\n'],
    ['a bad HTTP version', 'GET / HTTP/9.9\r\nHost: x\r\n\r\n'],
    ['a non-numeric Content-Length', 'POST /generate HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'],
    [
      'both Content-Length and chunked',
      'POST /generate HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
    ['a bad chunk size', 'POST /generate HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'],
    ['a header without a colon', 'GET / HTTP/1.1\r\nHost: x\r\nnocolon\r\n\r\n'],
    ['binary bytes', Buffer.from([0x00, 0xff, 0x13, 0x37, 0x0d, 0x0a, 0x0d, 0x0a])],
  ])('400 for %s, then the connection closes', async (_name, data) => {
    const answer = await rawRequest(port, data);
    expectShape(answer, 400, 'malformed_request');
    expect(answer.headers.connection).toBe('close');
  });

  it('413 for a body over the limit', async () => {
    const body = JSON.stringify({ params: { prompt: 'x'.repeat(app.config.bodyLimitBytes) } });
    const answer = await rawRequest(port, post('/generate', body, key.auth));
    expectShape(answer, 413, 'payload_too_large');
  });
});

describe('nesting depth', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it('scans text and values without recursion', () => {
    expect(jsonTextTooDeep(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonTextTooDeep(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    // Brackets inside strings (escaped quotes included) do not count.
    expect(jsonTextTooDeep(`["\\"${'['.repeat(500)}"]`)).toBe(false);
    let value: unknown = 1;
    for (let i = 0; i < 100_000; i++) value = [value];
    expect(valueTooDeep(value)).toBe(true);
    expect(valueTooDeep({ a: [{ b: 1 }] }, 3)).toBe(false);
    expect(valueTooDeep({ a: [{ b: 1 }] }, 2)).toBe(true);
  });

  it.each([
    ['/generate', (deep: string) => `{"params":{"model_name":"flux-1-1-pro","prompt":"x","x":${deep}}}`],
    ['/v1/chat/completions', (deep: string) => `{"model":"gpt-4o-mini","messages":${deep}}`],
    ['/v1/responses', (deep: string) => `{"model":"gpt-4o-mini","input":${deep}}`],
    ['/v1/images/generations', (deep: string) => `{"model":"flux-1-1-pro","prompt":${deep}}`],
    ['/v1/videos', (deep: string) => `{"model":"seedance-2","prompt":${deep}}`],
    ['/admin/accounts', (deep: string) => `{"messaging_id":${deep}}`],
  ])('POST %s nested 5,000 deep: 400 body_too_deep, nothing charged', async (path, wrap) => {
    const before = await balance();
    const answer = await rawRequest(
      port,
      post(path, wrap(nested(5000)), {
        authorization: path.startsWith('/admin') ? `Bearer ${ADMIN_TOKEN}` : key.auth.authorization,
      }),
    );
    const body = expectShape(answer, 400, 'body_too_deep');
    expect(body.error.message).toContain(String(MAX_JSON_DEPTH));
    expect(await balance()).toEqual(before);
  });

  it('accepts a body at the limit (the parser or the route decides)', async () => {
    const res = await app.http.inject({
      method: 'POST',
      url: '/generate',
      headers: { ...key.auth, 'content-type': 'application/json' },
      payload: `{"params":{"model_name":"flux-1-1-pro","prompt":"x","x":${nested(MAX_JSON_DEPTH - 2)}}}`,
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('invalid_parameter');
  });

  it('the params validator refuses a deep value itself (no stack overflow)', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { x: deep };
    const [model] = readCatalogFile(new URL('../domain/catalog/default-models.json', import.meta.url), 1);
    expect(() => new ParamsValidator().validate(model as CatalogModel, { x: deep })).toThrowError(
      /nested more than/,
    );
  });
});

describe('mapping of low-level errors', () => {
  const connectionError = (code: string, rawPacket?: Buffer) =>
    // Fastify types rawPacket as its JSON form; Node hands the Buffer itself.
    Object.assign(new Error(code), { code, bytesParsed: 0, rawPacket }) as unknown as ConnectionError;

  it('maps each Node parser error to a catalog code', () => {
    expect(clientErrorOf(connectionError('ERR_HTTP_REQUEST_TIMEOUT')).code).toBe('request_timeout');
    expect(clientErrorOf(connectionError('HPE_CHUNK_EXTENSIONS_OVERFLOW')).code).toBe('payload_too_large');
    expect(clientErrorOf(connectionError('HPE_INVALID_METHOD')).code).toBe('malformed_request');
    expect(clientErrorOf(connectionError('HPE_HEADER_OVERFLOW')).code).toBe('request_headers_too_large');
    const longLine = Buffer.from(`GET /${'a'.repeat(MAX_URL_BYTES)} HTTP/1.1\r\n`);
    expect(clientErrorOf(connectionError('HPE_HEADER_OVERFLOW', longLine)).code).toBe('uri_too_long');
    const longHeader = Buffer.from(`GET / HTTP/1.1\r\nX: ${'a'.repeat(MAX_URL_BYTES * 2)}`);
    expect(clientErrorOf(connectionError('HPE_HEADER_OVERFLOW', longHeader)).code).toBe(
      'request_headers_too_large',
    );
  });

  it('maps framework errors by code or status, never to a 5xx', () => {
    const withStatus = (statusCode: number) => Object.assign(new Error('x'), { statusCode });
    expect(toAppError(withStatus(408)).code).toBe('request_timeout');
    expect(toAppError(withStatus(414)).code).toBe('uri_too_long');
    expect(toAppError(withStatus(431)).code).toBe('request_headers_too_large');
    expect(toAppError(Object.assign(new Error('x'), { code: 'FST_ERR_BAD_URL' })).code).toBe(
      'malformed_request',
    );
  });
});
