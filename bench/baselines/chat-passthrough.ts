// The chat baseline: a bare Fastify route that forwards the parsed body to the fake upstream over a
// keep-alive undici pool and returns the answer unchanged. No auth, no billing, no usage row: the
// least a gateway can do, so gengate's ratio against it is the price of everything gengate adds.
import type { FastifyInstance } from 'fastify';
import { Pool } from 'undici';

export function registerChatPassthrough(app: FastifyInstance, upstreamBaseUrl: string): void {
  const url = new URL(upstreamBaseUrl);
  const pool = new Pool(url.origin);
  const path = `${url.pathname.replace(/\/+$/, '')}/chat/completions`;
  app.addHook('onClose', async () => pool.close());

  app.post('/v1/chat/completions', async (request, reply) => {
    const upstream = await pool.request({
      path,
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: request.headers.authorization ?? '' },
      body: JSON.stringify(request.body),
    });
    reply.code(upstream.statusCode);
    reply.header('content-type', upstream.headers['content-type'] ?? 'application/json');
    // A stream is piped through as it arrives; a JSON answer is read whole, as any proxy that
    // wants the status and size before answering does.
    if ((request.body as { stream?: unknown }).stream === true) return reply.send(upstream.body);
    return reply.send(await upstream.body.text());
  });
}
