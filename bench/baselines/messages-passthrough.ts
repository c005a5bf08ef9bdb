// The Messages baseline: a bare Fastify route that forwards the parsed body to the fake upstream's
// POST /v1/messages over a keep-alive undici pool and pipes the answer back unchanged. No auth, no
// billing, no model rewrite: the least a gateway can do, so gengate's ratio against it is the price
// of everything gengate adds to a Claude Code request.
import type { FastifyInstance } from 'fastify';
import { Pool } from 'undici';

/** Anthropic's own limit; a Claude Code body is about 90 KB, so Fastify's 1 MB default would do too. */
const BODY_LIMIT = 32 * 1024 * 1024;

export function registerMessagesPassthrough(app: FastifyInstance, upstreamBaseUrl: string): void {
  const url = new URL(upstreamBaseUrl);
  const pool = new Pool(url.origin);
  const path = `${url.pathname.replace(/\/+$/, '')}/messages`;
  app.addHook('onClose', async () => pool.close());

  app.post('/v1/messages', { bodyLimit: BODY_LIMIT }, async (request, reply) => {
    const upstream = await pool.request({
      path,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': String(request.headers['x-api-key'] ?? ''),
        'anthropic-version': String(request.headers['anthropic-version'] ?? '2023-06-01'),
      },
      body: JSON.stringify(request.body),
    });
    reply.code(upstream.statusCode);
    reply.header('content-type', upstream.headers['content-type'] ?? 'application/json');
    if ((request.body as { stream?: unknown }).stream === true) return reply.send(upstream.body);
    return reply.send(await upstream.body.text());
  });
}
