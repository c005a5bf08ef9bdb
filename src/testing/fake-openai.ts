// A fake OpenAI upstream on loopback for adapter tests: a node:http server that records every request
// and answers with whatever the test scripts, including SSE streams the test can pause mid-way.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  /** Resolves when the gateway closes the connection before the answer was complete. */
  aborted: Promise<void>;
}

export type FakeHandler = (request: RecordedRequest, res: ServerResponse) => Promise<void> | void;

export interface FakeOpenAi {
  /** The base URL to route to, /v1 included. */
  baseUrl: string;
  origin: string;
  requests: RecordedRequest[];
  /** TCP connections accepted so far (keep-alive reuse keeps this low). */
  connections: number;
  handle: FakeHandler;
  close(): Promise<void>;
}

export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const fake: FakeOpenAi = {
    baseUrl: '',
    origin: '',
    requests: [],
    connections: 0,
    handle: (_request, res) => json(res, 500, { error: { message: 'no handler scripted' } }),
    close: async () => {},
  };
  const server: Server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const text = Buffer.concat(parts).toString('utf8');
    const aborted = new Promise<void>((resolve) => {
      res.on('close', () => {
        if (!res.writableFinished) resolve();
      });
    });
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: text ? JSON.parse(text) : {},
      aborted,
    };
    fake.requests.push(recorded);
    try {
      await fake.handle(recorded, res);
    } catch {
      res.destroy();
    }
  });
  server.on('connection', () => fake.connections++);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  fake.origin = `http://127.0.0.1:${port}`;
  fake.baseUrl = `${fake.origin}/v1`;
  fake.close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return fake;
}

export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Starts an SSE response; write events with `event(...)`, finish with `done(...)`. */
export function sseHead(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
}

export function event(res: ServerResponse, data: unknown): void {
  res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

export function done(res: ServerResponse): void {
  res.end('data: [DONE]\n\n');
}

/** An OpenAI chat.completion.chunk with one choice. */
export function chunk(
  model: string,
  delta: Record<string, unknown>,
  finish: string | null = null,
  extra: Record<string, unknown> = {},
) {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    system_fingerprint: 'fp_fake',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...extra,
  };
}

export function usageChunk(model: string, prompt: number, completion: number) {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: [],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}
