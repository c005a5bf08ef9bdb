// A loopback HTTP proxy that forwards every request to the server and, for the requests a test
// picks, lets the server answer in full and then cuts the client's connection instead of relaying
// the answer: the request took effect, the client never heard of it.
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The server's status and headers, even when the client never got them. */
  upstreamStatus: number;
  upstreamHeaders: IncomingHttpHeaders;
  dropped: boolean;
}

export interface DroppingProxy {
  url: string;
  requests: ProxiedRequest[];
  close(): Promise<void>;
}

export async function startDroppingProxy(
  target: string,
  drop: (request: { method: string; path: string }, index: number) => boolean,
): Promise<DroppingProxy> {
  const requests: ProxiedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const method = req.method ?? 'GET';
      const path = req.url ?? '/';
      const cut = drop({ method, path }, requests.length);
      const headers = { ...req.headers, host: new URL(target).host };
      const upstream = httpRequest(new URL(path, target), { method, headers }, (answer) => {
        const answerChunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => answerChunks.push(chunk));
        answer.on('end', () => {
          requests.push({
            method,
            path,
            headers: req.headers,
            body: body.toString('utf8'),
            upstreamStatus: answer.statusCode ?? 0,
            upstreamHeaders: answer.headers,
            dropped: cut,
          });
          if (cut) {
            req.socket.destroy();
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(answerChunks));
        });
      });
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
