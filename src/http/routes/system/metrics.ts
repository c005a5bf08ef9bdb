// GET /metrics on the API port: Prometheus text. Access 'system' like /healthz: no API key, and it
// keeps answering in maintenance mode; who may read it is metrics-access.ts's decision (a bearer
// METRICS_TOKEN, open on loopback, or 404 when METRICS_PORT serves the scrapes or the port is public).
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { AppError } from '../../../domain/errors.js';
import { METRICS_CHALLENGE, metricsOnApiPort, metricsTokenGiven } from '../../metrics-access.js';

export function registerMetricsRoute(app: FastifyInstance, ctx: AppContext): void {
  const access = metricsOnApiPort(ctx.config);
  const token = ctx.config.metricsToken;
  app.get('/metrics', { config: { access: 'system' }, schema: { hide: true } }, async (request, reply) => {
    if (access === 'off') throw new AppError('not_found', 'No route for GET /metrics');
    if (access === 'token' && !metricsTokenGiven(request.headers.authorization, token ?? '')) {
      throw new AppError('invalid_api_key', 'Invalid metrics token', null, {
        headers: { 'WWW-Authenticate': METRICS_CHALLENGE },
      });
    }
    const { contentType, body } = await ctx.metrics.render();
    return reply.type(contentType).send(body);
  });
}
