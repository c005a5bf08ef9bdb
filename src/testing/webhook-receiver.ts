// Test helper: a real HTTP webhook receiver on loopback (node:http) that records every request and
// answers as the test scripts it.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Date.now() when the request had fully arrived. */
  receivedAt: number;
}

/** What to answer to the n-th request (0-based): a status, optional headers/body, optional delay; or 'hang' to never answer. */
export type Answer =
  | { status: number; headers?: Record<string, string>; body?: string | Buffer; delayMs?: number }
  | 'hang';
export type Responder = (request: ReceivedRequest, index: number) => Answer;

export interface Receiver {
  /** Base URL, e.g. http://127.0.0.1:PORT */
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** TCP connections accepted, requests or not. */
  connections: number;
  respond: Responder;
  /** Resolves once `count` requests have arrived (and rejects after `timeoutMs`). */
  waitForRequests(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startReceiver(
  respond: Responder = () => ({ status: 200 }),
  host = '127.0.0.1',
): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const open = new Set<ServerResponse>();
  let waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      };
      const index = requests.push(received) - 1;
      for (const wake of waiters) wake();
      const answer = receiver.respond(received, index);
      if (answer === 'hang') {
        open.add(res);
        return;
      }
      const send = () => res.writeHead(answer.status, answer.headers).end(answer.body ?? '');
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 1_000;
  server.on('connection', () => receiver.connections++);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: Receiver = {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    requests,
    connections: 0,
    respond,
    waitForRequests(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const deadline = setTimeout(
          () => reject(new Error(`expected ${count} requests, got ${requests.length}`)),
          timeoutMs,
        );
        const check = () => {
          if (requests.length < count) return;
          clearTimeout(deadline);
          waiters = waiters.filter((w) => w !== check);
          resolve(requests.slice(0, count));
        };
        waiters.push(check);
        check();
      });
    },
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}
