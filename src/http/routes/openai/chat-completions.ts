// POST /v1/chat/completions: OpenAI's chat-completions API over the gateway's models and billing.
// The route is a pipeline: guard (503/401/403/429) → ChatService.open (validate, model checks,
// hold) → the upstream call → the answer (JSON, or SSE relayed chunk by chunk).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { Cancellation } from '../../../providers/cancellation.js';
import { bodyObject } from '../../body.js';
import { stampingSink, stampServerTiming } from '../../server-timing.js';
import { sseSink } from '../../sse.js';

/** Vision requests carry images as data: URLs; 20 MiB fits several (OpenAI's per-image limit is 20 MB). */
export const CHAT_BODY_LIMIT_BYTES = 20 * 1024 * 1024;

export function registerChatCompletionsRoute(app: FastifyInstance, ctx: AppContext): void {
  app.post(
    '/v1/chat/completions',
    {
      config: { access: 'key' },
      bodyLimit: Math.max(ctx.config.bodyLimitBytes, CHAT_BODY_LIMIT_BYTES),
      schema: {
        tags: ['openai'],
        summary: 'Chat completion (OpenAI-compatible), streaming with stream: true',
        description:
          'Billed per token: a hold before the upstream call, the exact cost of the reported usage captured after it. ' +
          'Only known fields reach the upstream: another answers 422 unknown_field (docs/chat.md).',
      },
    },
    async (request, reply) => {
      const call = await ctx.chat.open(request.apiKey, bodyObject(request.body));
      // The client leaving before the answer is complete cancels the upstream request.
      const client = new Cancellation();
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) client.cancel();
      });
      // What the gateway's own work took beside the upstream's, as the answer's first bytes leave.
      if (!call.stream) {
        const completion = await call.complete(client);
        stampServerTiming(reply, call);
        return completion;
      }
      try {
        await call.streamTo(stampingSink(reply, sseSink(reply), call), client);
      } catch (error) {
        // Before the stream started: the reply is still ours and the error handler answers it.
        if (!reply.sent) throw error;
        request.log.error({ err: error }, 'chat stream settlement failed');
      }
      return reply;
    },
  );
}
