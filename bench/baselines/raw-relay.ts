// The floor of a Messages pass-through in Node.js: node:http reads the request's bytes, undici sends
// them on unchanged and unparsed, and the answer is piped back. No Fastify, no JSON, no model
// rewrite (the bench sends it the upstream's model id). What any gateway that reads the body before
// forwarding it pays at least, on the machine at hand (scenario 7's time to the first event).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Pool } from 'undici';

export const RAW_RELAY_PATH = '/raw/v1/messages';

export function rawRelay(upstreamBaseUrl: string) {
  const url = new URL(upstreamBaseUrl);
  const pool = new Pool(url.origin);
  const path = `${url.pathname.replace(/\/+$/, '')}/messages`;
  return (request: IncomingMessage, response: ServerResponse): void => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      try {
        const upstream = await pool.request({
          path,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-api-key': String(request.headers['x-api-key'] ?? ''),
            'anthropic-version': String(request.headers['anthropic-version'] ?? '2023-06-01'),
          },
          body: Buffer.concat(chunks),
        });
        response.writeHead(upstream.statusCode, {
          'content-type': String(upstream.headers['content-type'] ?? 'application/json'),
        });
        for await (const chunk of upstream.body) response.write(chunk);
        response.end();
      } catch {
        if (!response.headersSent) response.writeHead(502);
        response.end();
      }
    });
  };
}
