// The error handler of the Anthropic-compatible routes: the same mapping as every route
// (http/errors.ts), answered in Anthropic's shape and statuses (domain/messages/errors.ts).
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { AppError } from '../../../domain/errors.js';
import { anthropicError } from '../../../domain/messages/errors.js';
import { toAppError } from '../../errors.js';

export function sendAnthropicError(reply: FastifyReply, error: AppError): FastifyReply {
  for (const [name, value] of Object.entries(error.extra.headers ?? {})) reply.header(name, value);
  const answer = anthropicError(error);
  return reply.code(answer.status).type('application/json; charset=utf-8').send(answer.body);
}

export function anthropicErrorHandler(
  this: unknown,
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const appError = toAppError(error);
  if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
  return sendAnthropicError(reply, appError);
}
