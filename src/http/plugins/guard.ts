// The checks every request passes before its handler, in the order of DESIGN.md section 4:
// maintenance 503 → auth 401 → IP 403 → rate 429. They run in onRequest, before the body is parsed,
// so a malformed body from an unauthenticated caller still answers 401.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.js';
import { ipAllowed } from '../../domain/keys/restrictions.js';
import type { AuthenticatedKey, AuthService } from '../../services/auth.js';
import type { MaintenanceService } from '../../services/maintenance.js';
import { RATE_WINDOW_SECONDS, type RateLimiter } from '../../services/rate-limit.js';

export type RouteAccess = 'key' | 'public' | 'admin' | 'system';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: AuthenticatedKey;
  }
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
}

export interface GuardDeps {
  auth: AuthService;
  maintenance: MaintenanceService;
  rateLimiter: RateLimiter;
  adminToken: string | undefined;
  defaultRateLimitPerMin: number;
}

function sameSecret(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

/** Wrong admin tokens an address may send per minute before its wrong tokens answer 429. */
export const ADMIN_TOKEN_FAILURES_PER_MIN = 10;

/**
 * Counts a wrong admin token against the caller's address (in Redis when scaled out, so every API
 * process shares the count); past the limit the answer is 429 with Retry-After instead of 401. A
 * request without an Authorization header is no guess and is not counted.
 */
async function refuseGuesserPastLimit(limiter: RateLimiter, ip: string): Promise<void> {
  const decision = await limiter.consume(`admin-token:ip:${ip}`, ADMIN_TOKEN_FAILURES_PER_MIN);
  if (decision.allowed) return;
  throw new AppError(
    'rate_limited',
    'Too many wrong admin tokens from this address: wait and try again.',
    null,
    {
      headers: { 'Retry-After': String(decision.resetSeconds) },
    },
  );
}

/** 128 bits of the key's SHA-256: unique across deployments, and no secret in Redis key names. */
export function rateLimitSubject(keyHash: string): string {
  return keyHash.slice(0, 32);
}

export function registerGuard(app: FastifyInstance, deps: GuardDeps): void {
  app.decorateRequest('apiKey', null as unknown as AuthenticatedKey);

  app.addHook('onRequest', async (request: FastifyRequest, reply) => {
    // Unmatched routes default to 'public' so that maintenance mode covers them too. (Read once:
    // Fastify builds a new routeOptions object on every access.)
    const route = request.routeOptions;
    const access: RouteAccess = route.url?.startsWith('/docs')
      ? 'system'
      : (route.config?.access ?? 'public');
    if (access === 'system') return;
    if (access === 'admin') {
      // Without ADMIN_TOKEN the admin API does not exist.
      if (!deps.adminToken)
        throw new AppError('not_found', `No route for ${request.method} ${request.url.split('?')[0]}`);
      const given = request.headers.authorization;
      const match = /^Bearer\s+(\S+)\s*$/i.exec(given ?? '');
      // The right token is never counted nor slowed down, whatever the address has sent before.
      if (match && sameSecret(match[1], deps.adminToken)) return;
      if (given !== undefined) await refuseGuesserPastLimit(deps.rateLimiter, request.ip);
      throw new AppError('invalid_api_key', 'Invalid admin token');
    }
    if (await deps.maintenance.isEnabled())
      throw new AppError('maintenance', undefined, null, { headers: { 'Retry-After': '60' } });
    if (access !== 'key') return;

    const key = await deps.auth.authenticate(request.headers.authorization);
    request.apiKey = key;
    if (!ipAllowed(request.ip, key.allowedIpCidrs)) throw new AppError('ip_not_allowed');

    // Counted under the key's hash, not its row id: ids repeat across databases sharing one Redis.
    const limit = key.rateLimitPerMin ?? deps.defaultRateLimitPerMin;
    const decision = await deps.rateLimiter.consume(rateLimitSubject(key.keyHash), limit);
    reply.header('RateLimit-Policy', `${limit};w=${RATE_WINDOW_SECONDS}`);
    reply.header('RateLimit-Limit', decision.limit);
    reply.header('RateLimit-Remaining', decision.remaining);
    reply.header('RateLimit-Reset', decision.resetSeconds);
    if (!decision.allowed) {
      throw new AppError('rate_limited', undefined, null, {
        headers: { 'Retry-After': String(decision.resetSeconds) },
      });
    }
  });
}
