// Answers that come from below the routes still use the one error shape {"error": {…}}:
// - Node's HTTP parser refuses a request (headers over maxHeaderSize: 431, or 414 when the request
//   line alone is too long; malformed syntax: 400; a request that does not arrive in time: 408). Node
//   emits `clientError` with the raw socket; we write a minimal HTTP/1.1 answer and close.
// - Fastify's router refuses a URL (a path parameter over maxParamLength: 414; bad percent-encoding:
//   400) through `frameworkErrors`.
// - A URL over MAX_URL_BYTES that the parser did accept: 414, before the guard.
// - A JSON body nested deeper than MAX_JSON_DEPTH: 400 while its bytes arrive, before any parser
//   (ours, the raw-body parser of idempotent routes, any other) or any code walks it.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { Transform, type TransformCallback } from 'node:stream';
import type {
  ConnectionError,
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifyServerOptions,
} from 'fastify';
import { AppError, errorBody } from '../../domain/errors.js';
import { JsonDepthScanner, MAX_JSON_DEPTH, TopLevelLayout } from '../../domain/json-depth.js';
import { PrototypeKeyWatch } from '../../domain/poison-spellings.js';
import { sendError } from '../errors.js';

/** The longest URL (path and query) served; nginx's default buffer is the same 8 KiB. */
export const MAX_URL_BYTES = 8192;

/** Fastify's router default (maxParamLength), kept: no id or name in our paths comes near it. */
const MAX_PARAM_LENGTH = 100;

const tooDeep = () =>
  new AppError('body_too_deep', `Request body is nested more than ${MAX_JSON_DEPTH} levels deep`);

/** The error for a request Node's parser refused. */
export function clientErrorOf(error: ConnectionError): AppError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return requestLineOverflowed(error.rawPacket)
        ? new AppError('uri_too_long', `Request URL is longer than ${MAX_URL_BYTES} bytes`)
        : new AppError('request_headers_too_large');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new AppError('payload_too_large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'HPE_HEADERS_TIMEOUT':
      return new AppError('request_timeout');
    default:
      return new AppError('malformed_request');
  }
}

/**
 * Node counts the request line in maxHeaderSize, so an overlong URL also ends as a header overflow.
 * The packet the parser failed on tells them apart when it starts with the request line: a line
 * longer than MAX_URL_BYTES is a URL problem. (A request line split over several small packets falls
 * back to 431: still a correct refusal, in the same shape.)
 */
function requestLineOverflowed(packet: unknown): boolean {
  if (!Buffer.isBuffer(packet) || !/^[A-Z]{3,10} /.test(packet.subarray(0, 11).toString('latin1')))
    return false;
  const end = packet.indexOf(0x0a);
  return (end === -1 ? packet.length : end) > MAX_URL_BYTES;
}

/** Node's `clientError`: a minimal HTTP/1.1 answer in our error shape, then the socket is closed. */
function onClientError(this: FastifyInstance, error: ConnectionError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const appError = clientErrorOf(error);
  this.log.debug({ err: error, code: appError.code }, 'client error');
  // Never write into a response already under way on this socket: the peer would read garbage.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(errorBody(appError));
  const head = [
    `HTTP/1.1 ${appError.status} ${STATUS_CODES[appError.status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ].join('\r\n');
  // Close once the answer is flushed, so the client reads it before the connection goes.
  socket.end(`${head}\r\n\r\n${body}`, () => socket.destroy());
}

/** Fastify's router errors, raised before any route or hook runs. */
function onFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  // Neither message echoes the URL: it may be huge, and it is the client's own.
  const appError =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new AppError('uri_too_long', `A path segment is longer than ${MAX_PARAM_LENGTH} characters`)
      : error.code === 'FST_ERR_BAD_URL'
        ? new AppError('malformed_request', 'The URL is not valid (bad percent-encoding)')
        : new AppError('internal_error');
  sendError(reply, appError);
}

/** Options for the Fastify factory (server.ts spreads them in). */
export const lowLevelErrorOptions = {
  clientErrorHandler: onClientError,
  frameworkErrors: onFrameworkError,
} satisfies Partial<FastifyServerOptions>;

/** The media types a JSON parser reads: application/json and any application/…+json. */
function isJsonType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';', 1)[0].trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route reads its JSON body's scan (bodyScanOf); other routes' bodies only get the depth check. */
    scanBody?: boolean;
  }
}

/**
 * What the pass over a JSON body's bytes learned on the way, for a route that asks for it
 * (`config.scanBody`): where its top-level members lie, and whether it spells anything that could
 * poison a prototype. Both are found while the bytes arrive, so the route does not walk the body
 * again.
 */
export interface BodyScan {
  /** How many bytes passed: the scan is of the whole body only when this is the body's length. */
  readonly bytes: number;
  readonly layout: TopLevelLayout;
  readonly poisonSpelling: boolean;
}

const bodyScans = new WeakMap<FastifyRequest, BodyScan>();

/** The scan of this request's body, when it was JSON and the route asked for it. */
export function bodyScanOf(request: FastifyRequest): BodyScan | undefined {
  return bodyScans.get(request);
}

/** Passes the body through unchanged, failing the read once its nesting goes past the limit. */
class DepthLimit extends Transform {
  protected readonly scanner: JsonDepthScanner;

  constructor(layout?: TopLevelLayout, keys?: PrototypeKeyWatch) {
    super();
    this.scanner = new JsonDepthScanner(MAX_JSON_DEPTH, layout, keys);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.scanner.push(chunk)) callback(null, chunk);
    else callback(tooDeep());
  }
}

/** The depth check of a route that asked for the body scan: the same pass, noting what it sees. */
class ScanningDepthLimit extends DepthLimit implements BodyScan {
  constructor(
    readonly layout = new TopLevelLayout(),
    private readonly keys = new PrototypeKeyWatch(),
  ) {
    super(layout, keys);
  }

  get bytes(): number {
    return this.scanner.bytes;
  }

  get poisonSpelling(): boolean {
    return this.keys.found;
  }
}

export function registerLowLevelErrors(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    if ((request.raw.url ?? '').length > MAX_URL_BYTES)
      throw new AppError('uri_too_long', `Request URL is longer than ${MAX_URL_BYTES} bytes`);
  });
  app.addHook('preParsing', async (request, _reply, payload) => {
    if (!isJsonType(request.headers['content-type'])) return payload;
    let limited: DepthLimit;
    if (request.routeOptions.config.scanBody) {
      const scanning = new ScanningDepthLimit();
      bodyScans.set(request, scanning);
      limited = scanning;
    } else limited = new DepthLimit();
    payload.on('error', (error) => limited.destroy(error));
    return payload.pipe(limited);
  });
}
