// What every request carries in and out: a request id (the client's X-Request-Id when it is a sane
// token, else ours), echoed in X-Request-Id with X-Api-Version on every response, and the log
// fields of the request's "request completed" line (key id, account, model). Never a key or secret:
// headers are not logged, and secret-looking query values are redacted from the logged URL.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { API_VERSION } from '../api-version.js';
import type { RawJsonBody } from '../raw-json.js';

/** A client's id is taken as is only when it is short and safe to put in logs and headers. */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const PROCESS_PREFIX = randomUUID().slice(0, 8);
let counter = 0;

/** Fastify's genReqId: the client's X-Request-Id when valid, else ours (unique across processes). */
export function requestIdFor(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  if (typeof given === 'string' && CLIENT_REQUEST_ID.test(given)) return given;
  return `${PROCESS_PREFIX}-${(++counter).toString(36)}`;
}

/**
 * Query parameters whose values are credentials (panel login links, provider callback tokens, the
 * Telegram Login Widget's `hash`, which can be replayed until its auth_date is stale…).
 */
const SECRET_QUERY_NAME = /token|secret|sig|key|password|auth|credential|hash/i;

/** The URL as logged: secret-looking query values replaced, everything else kept. */
export function loggableUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {}
      return eq >= 0 && SECRET_QUERY_NAME.test(decoded) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

/** Fastify's `req` log serializer with the URL redacted; like the default, no headers. */
export function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: loggableUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

const MAX_LOGGED_MODEL = 128;

/** The model a request names in its body: OpenAI's `model`, ours `params.model_name` or `model_name`. */
function modelOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  // Idempotent POSTs keep the raw bytes next to the parsed value (raw-json.ts).
  if (Buffer.isBuffer((body as RawJsonBody).raw)) return modelOf((body as RawJsonBody).value);
  const b = body as Record<string, unknown>;
  const params =
    typeof b.params === 'object' && b.params !== null ? (b.params as Record<string, unknown>) : {};
  const model = [b.model, b.model_name, params.model_name].find((v) => typeof v === 'string');
  return typeof model === 'string' ? model.slice(0, MAX_LOGGED_MODEL) : undefined;
}

export function registerRequestContext(app: FastifyInstance): void {
  // First of the onRequest hooks: the headers are set before the guard can answer, and SSE copies
  // them when it takes over the response.
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
    reply.header('X-Api-Version', API_VERSION);
  });
  // onResponse hooks run before Fastify writes "request completed" with the same child logger.
  app.addHook('onResponse', async (request) => {
    const fields: Record<string, unknown> = {};
    const key = request.apiKey;
    if (key) {
      fields.key_id = key.keyId;
      fields.account_id = key.accountId;
    }
    const model = modelOf(request.body);
    if (model !== undefined) fields.model = model;
    const log = request.log as { setBindings?: (bindings: Record<string, unknown>) => void };
    if (Object.keys(fields).length > 0) log.setBindings?.(fields);
  });
}
