// CORS for browser clients of the API (CORS_ORIGINS), off by default. Registered before the guard:
// a preflight carries no Authorization header, so it is answered here (204) before any auth,
// maintenance or rate check. Only the client API is covered; the admin API, the panel (cookie
// sessions), provider callbacks and metrics never answer cross-origin requests.
import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Path prefixes of the client API: OpenAI-compatible and native. */
const API_PATHS = ['/v1/', '/generate', '/tasks/', '/me/', '/public/', '/objects/'];

/** Response headers a browser script may read: what the SDKs read for retries and pagination. */
const EXPOSED_HEADERS = [
  'Retry-After',
  'X-Should-Retry',
  'Idempotent-Replayed',
  'RateLimit-Policy',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Content-Range',
  'Accept-Ranges',
  'X-Request-Id',
  'X-Api-Version',
];

const ONE_DAY_SECONDS = 86_400;

function isApiPath(url: string): boolean {
  const path = url.split('?')[0];
  return API_PATHS.some((prefix) => path === prefix.replace(/\/$/, '') || path.startsWith(prefix));
}

export async function registerCors(app: FastifyInstance, origins: '*' | string[]): Promise<void> {
  if (origins !== '*' && origins.length === 0) return;
  const allowed = (origin: string | undefined) =>
    origin !== undefined && (origins === '*' || origins.includes(origin));
  await app.register(cors, {
    hook: 'onRequest',
    // Per request: a path outside the API or an origin not listed gets no CORS headers at all (its
    // preflight falls through to a 404), rather than a 204 the browser then rejects.
    delegator: (request: FastifyRequest, callback) => {
      const options: FastifyCorsOptions = {
        origin: isApiPath(request.url) && allowed(request.headers.origin) ? request.headers.origin : false,
        methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
        // No allowedHeaders: the requested ones are echoed. The SDKs send their own (x-stainless-*)
        // besides authorization, content-type and idempotency-key; the origin list is the control.
        exposedHeaders: EXPOSED_HEADERS,
        // Bearer keys, not cookies: no credentialed requests.
        credentials: false,
        maxAge: ONE_DAY_SECONDS,
      };
      callback(null, options);
    },
  });
}
