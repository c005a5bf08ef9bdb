// POST /v1/messages and POST /v1/messages/count_tokens: Anthropic's Messages API over the gateway's
// text models and billing (services/messages/). A query string (Claude Code's ?beta=true) is
// accepted and ignored; anthropic-version and anthropic-beta are passed on to Anthropic routes.
// Every error on these routes, the guard's included (401/403/429/503), is in Anthropic's shape.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../context.js';
import { cannotPoison } from '../../../domain/poison-spellings.js';
import { Cancellation } from '../../../providers/cancellation.js';
import { type AnthropicHeaders, MessagesService } from '../../../services/messages/messages-service.js';
import { bodyObject } from '../../body.js';
import { bodyScanOf } from '../../plugins/low-level-errors.js';
import { stampingSink, stampServerTiming } from '../../server-timing.js';
import { rawSseSink } from '../../sse.js';
import { anthropicErrorHandler } from './errors.js';

/**
 * Anthropic accepts Messages bodies up to 32 MB (images and PDFs travel as base64); Claude Code's
 * ordinary requests are about 90 KB.
 */
export const MESSAGES_BODY_LIMIT_BYTES = 32 * 1024 * 1024;

function anthropicHeaders(request: FastifyRequest): AnthropicHeaders {
  const header = (name: string) => {
    const value = request.headers[name];
    return typeof value === 'string' && value.length > 0 ? value : undefined;
  };
  return { version: header('anthropic-version'), beta: header('anthropic-beta') };
}

/** The bytes each request's body was parsed from: the pass-through sends them on (raw-body.ts). */
const rawBodies = new WeakMap<FastifyRequest, Buffer>();

/** The body as received, or (no body) the empty buffer. */
function rawBodyOf(request: FastifyRequest): Buffer {
  return rawBodies.get(request) ?? Buffer.alloc(0);
}

/** The scan of exactly these bytes, made while they arrived; undefined when it saw other bytes. */
function scanOfBody(request: FastifyRequest, raw: Buffer) {
  const scan = bodyScanOf(request);
  return scan && scan.bytes === raw.length ? scan : undefined;
}

export function registerMessagesRoutes(app: FastifyInstance, ctx: AppContext): void {
  // A scope of their own: only these routes keep the raw bytes beside the parsed body.
  app.register(async (scope) => messagesRoutes(scope, ctx));
}

async function messagesRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  // The app's JSON parser (prototype-poisoning checks included) on the bytes, which are kept. Its two
  // regular expressions together take about as long as JSON.parse itself on a Claude Code-sized
  // body (about 180 µs on the bench VM); a body with no `__proto__` or `prototype` string and no
  // `\u00` escape (domain/poison-spellings.ts, watched while the body arrived) is parsed by
  // JSON.parse alone.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, raw: Buffer, done) => {
    rawBodies.set(request, raw);
    const text = raw.toString('utf8');
    const scan = scanOfBody(request, raw);
    if (scan ? !scan.poisonSpelling : cannotPoison(text)) {
      try {
        return done(null, JSON.parse(text));
      } catch {
        // Invalid JSON: the app's parser gives it the app's error.
      }
    }
    parseJson(request, text, done);
  });
  const messages = new MessagesService(ctx.chat);
  const options = {
    config: { access: 'key' as const, xApiKey: true, scanBody: true },
    bodyLimit: Math.max(ctx.config.bodyLimitBytes, MESSAGES_BODY_LIMIT_BYTES),
    errorHandler: anthropicErrorHandler,
  };

  app.post(
    '/v1/messages',
    {
      ...options,
      schema: {
        tags: ['anthropic'],
        summary: 'Create a message (Anthropic Messages API), streaming with stream: true',
        description:
          'Authenticated by x-api-key or Authorization: Bearer. Claude models on an Anthropic route are passed ' +
          'through as sent; other text models are translated to chat completions. Billed per token like chat ' +
          'completions, prompt-cache writes and reads at their own prices, server tools per use.',
      },
    },
    async (request, reply) => {
      const raw = rawBodyOf(request);
      const call = await messages.open(
        request.apiKey,
        bodyObject(request.body),
        { bytes: raw, layout: scanOfBody(request, raw)?.layout },
        anthropicHeaders(request),
      );
      // The client leaving before the answer is complete cancels the upstream request.
      const client = new Cancellation();
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) client.cancel();
      });
      // What the gateway's own work took beside the upstream's, as the answer's first bytes leave.
      if (!call.stream) {
        const message = await call.complete(client);
        stampServerTiming(reply, call);
        return message;
      }
      try {
        await call.streamTo(stampingSink(reply, rawSseSink(reply), call), client);
      } catch (error) {
        // Before the stream started: the reply is still ours and the error handler answers it.
        if (!reply.sent) throw error;
        request.log.error({ err: error }, 'messages stream settlement failed');
      }
      return reply;
    },
  );

  app.post(
    '/v1/messages/count_tokens',
    {
      ...options,
      schema: {
        tags: ['anthropic'],
        summary: 'Count the input tokens of a Messages request (free)',
        description:
          'Claude models on an Anthropic route are counted by Anthropic; other models by the gateway’s estimate.',
      },
    },
    async (request) =>
      messages.countTokens(request.apiKey, bodyObject(request.body), anthropicHeaders(request)),
  );
}
