// POST /v1/responses: OpenAI's Responses API over the chat machinery. The body is translated into
// the chat-completions request (domain/openai/responses/request.ts) and runs through ChatService
// exactly as POST /v1/chat/completions does — same checks, hold, upstream call and settlement —
// then the chat answer is presented as a Response object, or its chunks as Responses events.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { AppError } from '../../../domain/errors.js';
import { parseResponsesRequest } from '../../../domain/openai/responses/request.js';
import { completionToResponse, responseIdOf } from '../../../domain/openai/responses/response.js';
import { ResponsesStreamTranslator, type StreamFailure } from '../../../domain/openai/responses/stream.js';
import { Cancellation } from '../../../providers/cancellation.js';
import type { AuthenticatedKey } from '../../../services/auth.js';
import type { ChatStreamSink } from '../../../services/chat/chat-call.js';
import { bodyObject } from '../../body.js';
import { stampingSink, stampServerTiming } from '../../server-timing.js';
import { sseSink } from '../../sse.js';
import { CHAT_BODY_LIMIT_BYTES } from './chat-completions.js';

export function registerResponsesRoute(app: FastifyInstance, ctx: AppContext): void {
  app.post(
    '/v1/responses',
    {
      config: { access: 'key' },
      bodyLimit: Math.max(ctx.config.bodyLimitBytes, CHAT_BODY_LIMIT_BYTES),
      schema: {
        tags: ['openai'],
        summary: 'Create a model response (OpenAI Responses API), streaming with stream: true',
        description:
          'Runs as a chat completion with the same checks and billing. Nothing is stored (store: false): ' +
          'previous_response_id, item_reference and built-in tools are refused.',
      },
    },
    async (request, reply) => {
      const parsed = parseResponsesRequest(bodyObject(request.body));
      const call = await openChat(ctx, request.apiKey, parsed.chatBody);
      const identity = {
        id: responseIdOf(call.id),
        createdAt: unixSeconds(ctx),
        model: call.init.publicModel,
      };
      // The client leaving before the answer is complete cancels the upstream request.
      const client = new Cancellation();
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) client.cancel();
      });
      if (!parsed.stream) {
        const completion = await call.complete(client);
        stampServerTiming(reply, call);
        const billed = (await call.settlement)?.usage ?? null;
        return completionToResponse(completion, identity, parsed.echo, billed, unixSeconds(ctx));
      }
      const translator = new ResponsesStreamTranslator(identity, parsed.echo);
      try {
        await call.streamTo(
          eventSink(
            stampingSink(reply, sseSink(reply), call),
            translator,
            () => unixSeconds(ctx),
            request.log,
          ),
          client,
        );
      } catch (error) {
        // Before the stream started: the reply is still ours and the error handler answers it.
        if (!reply.sent) throw error;
        request.log.error({ err: error }, 'responses stream settlement failed');
      }
      return reply;
    },
  );
}

/** ChatService.open, with the chat field a refusal names translated back to the Responses one. */
async function openChat(ctx: AppContext, key: AuthenticatedKey, body: Record<string, unknown>) {
  try {
    return await ctx.chat.open(key, body);
  } catch (error) {
    if (error instanceof AppError && error.param === 'messages')
      throw new AppError(error.code, error.message, 'input', error.extra);
    throw error;
  }
}

const unixSeconds = (ctx: AppContext) => Math.floor(ctx.clock.now() / 1000);

/**
 * The chat call writes chat chunks (JSON), then `[DONE]`, or an error body; this sink writes the
 * Responses events they become. Each event goes out as `data: {…}` followed by its `event:` line:
 * one SSE event either way (field order inside an event does not matter), through the same
 * flushing, back-pressured writer as chat. A failure is logged with gengate's own code
 * (response.failed carries OpenAI's enum value instead).
 */
function eventSink(
  sse: ChatStreamSink,
  translator: ResponsesStreamTranslator,
  now: () => number,
  log: FastifyBaseLogger,
): ChatStreamSink {
  let opening = translator.start();
  return {
    start: () => sse.start(),
    async send(data) {
      const events = opening;
      opening = [];
      if (data === '[DONE]') events.push(...translator.complete(now()));
      else {
        const payload = JSON.parse(data) as Record<string, unknown>;
        if ('choices' in payload) events.push(...translator.chunk(payload as never));
        else {
          const failure = (payload.error ?? { message: 'The upstream stream failed' }) as StreamFailure;
          log.warn(
            { code: failure.code, type: failure.type },
            'responses stream failed: %s',
            failure.message,
          );
          events.push(...translator.fail(failure));
        }
      }
      for (const event of events) {
        if (!(await sse.send(`${JSON.stringify(event)}\nevent: ${event.type}`))) return false;
      }
      return true;
    },
    end: () => sse.end(),
  };
}
