// The base of every provider fake: a loopback node:http server that records each request (method,
// path, query, headers, raw and parsed body) and hands it to the route the fake registered. A route
// may answer, hang, or destroy the socket after reading the request (a submit whose answer is lost).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRequest {
  method: string;
  /** The path without the query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  raw: Buffer;
  /** The body parsed as JSON, or undefined. */
  json: any;
}

export type FakeReply =
  | { status: number; json?: unknown; body?: string | Buffer; headers?: Record<string, string> }
  /** Reads the request, then closes the connection without an answer. */
  | 'drop'
  /** Never answers (until the server closes). */
  | 'hang';

export type FakeRoute = (request: FakeRequest, match: RegExpExecArray) => FakeReply | Promise<FakeReply>;

export class FakeServer {
  readonly requests: FakeRequest[] = [];
  private readonly routes: Array<{ method: string; pattern: RegExp; handle: FakeRoute }> = [];
  private server: Server | undefined;
  origin = '';

  /**
   * Answers a 200 of matching requests with another 2xx (e.g. 201 Created, 202 Accepted): what an
   * upstream or a compatible proxy in front of it may send, and what an adapter must read as success.
   */
  readonly successStatus: Array<{ method: string; pattern: RegExp; status: number }> = [];

  /** Registers a route; the pattern is matched against the whole path (no query). */
  on(method: string, pattern: RegExp, handle: FakeRoute): this {
    this.routes.push({ method, pattern, handle });
    return this;
  }

  /** Requests to paths matching `pattern` (and `method`, when given). */
  calls(pattern: RegExp, method?: string): FakeRequest[] {
    return this.requests.filter((r) => pattern.test(r.path) && (!method || r.method === method));
  }

  async start(): Promise<this> {
    const open = new Set<ServerResponse>();
    this.server = createServer(async (req, res) => {
      open.add(res);
      res.on('close', () => open.delete(res));
      const parts: Buffer[] = [];
      for await (const part of req) parts.push(part as Buffer);
      const raw = Buffer.concat(parts);
      const url = new URL(req.url ?? '/', 'http://fake');
      let json: unknown;
      try {
        json = raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
      } catch {
        json = undefined;
      }
      const request: FakeRequest = {
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        raw,
        json,
      };
      this.requests.push(request);
      let reply: FakeReply = {
        status: 404,
        json: { error: `no fake route for ${req.method} ${url.pathname}` },
      };
      for (const route of this.routes) {
        const match = route.method === req.method ? route.pattern.exec(url.pathname) : null;
        if (match && match[0] === url.pathname) {
          try {
            reply = await route.handle(request, match);
          } catch (error) {
            reply = { status: 500, json: { error: String(error) } };
          }
          break;
        }
      }
      if (reply === 'hang') return;
      if (reply === 'drop') {
        req.socket.destroy();
        return;
      }
      const body = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.body ?? '');
      const rewrite = this.successStatus.find(
        (r) => r.method === request.method && r.pattern.test(request.path),
      );
      res.writeHead(reply.status === 200 && rewrite ? rewrite.status : reply.status, {
        ...(reply.json !== undefined ? { 'content-type': 'application/json' } : {}),
        ...reply.headers,
      });
      res.end(body);
    });
    this.server.keepAliveTimeout = 1_000;
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    this.closeOpen = () => {
      for (const res of open) res.destroy();
    };
    return this;
  }

  private closeOpen: () => void = () => {};

  async close(): Promise<void> {
    this.closeOpen();
    this.server?.closeAllConnections?.();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** A small valid PNG (1×1) and a few bytes standing for an MP4, for fakes that serve result files. */
export const FAKE_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
export const FAKE_MP4 = Buffer.concat([
  Buffer.from([0, 0, 0, 0x18]),
  Buffer.from('ftypmp42', 'latin1'),
  Buffer.alloc(12),
]);
