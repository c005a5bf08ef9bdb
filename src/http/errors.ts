// Maps every failure to the one error shape: {"error": {message, type, code, param}}.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errorBody } from '../domain/errors.js';

const FASTIFY_CODES: Record<string, AppError['code']> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_json',
  FST_ERR_MAX_PARAM_LENGTH: 'uri_too_long',
  FST_ERR_BAD_URL: 'malformed_request',
};

/** Statuses a framework or Node error may carry, for errors without a code of their own. */
const STATUS_CODES_TO_APP: Record<number, AppError['code']> = {
  408: 'request_timeout',
  413: 'payload_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  431: 'request_headers_too_large',
};

export function toAppError(error: FastifyError | Error): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as FastifyError;
  const mapped = fastifyError.code ? FASTIFY_CODES[fastifyError.code] : undefined;
  if (mapped) return new AppError(mapped);
  if (error instanceof SyntaxError && (fastifyError.statusCode === 400 || /JSON/.test(error.message))) {
    return new AppError('invalid_json', `Request body is not valid JSON: ${error.message}`);
  }
  if (fastifyError.validation) {
    const first = fastifyError.validation[0];
    const param = first?.instancePath ? first.instancePath.replace(/^\//, '').replace(/\//g, '.') : null;
    return new AppError(
      'invalid_parameter',
      `${param ?? fastifyError.validationContext ?? 'request'} ${first?.message ?? 'is invalid'}`,
      param,
    );
  }
  const byStatus = fastifyError.statusCode ? STATUS_CODES_TO_APP[fastifyError.statusCode] : undefined;
  if (byStatus) return new AppError(byStatus);
  if (fastifyError.statusCode && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new AppError('invalid_json', error.message);
  }
  return new AppError('internal_error');
}

export function sendError(reply: FastifyReply, err: AppError): FastifyReply {
  for (const [name, value] of Object.entries(err.extra.headers ?? {})) reply.header(name, value);
  return reply.code(err.status).type('application/json; charset=utf-8').send(errorBody(err));
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error);
    if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(reply, appError);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(
      reply,
      new AppError('not_found', `No route for ${request.method} ${request.url.split('?')[0]}`),
    ),
  );
}
