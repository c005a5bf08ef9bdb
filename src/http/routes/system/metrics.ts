// GET /metrics: Prometheus text. Access 'system' like /healthz: no key, and it keeps answering in
// maintenance mode. Expose it only on a network the scraper shares, or behind the proxy.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';

export function registerMetricsRoute(app: FastifyInstance, ctx: AppContext): void {
  app.get('/metrics', { config: { access: 'system' }, schema: { hide: true } }, async (_request, reply) => {
    const { contentType, body } = await ctx.metrics.render();
    return reply.type(contentType).send(body);
  });
}
