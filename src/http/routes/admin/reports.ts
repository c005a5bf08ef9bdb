// GET /admin/reports/margin?from&to: the operator's margin per UTC day, model and provider.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { presentRub } from '../../../services/operator/margin-report.js';

const admin = { config: { access: 'admin' as const }, schema: { tags: ['admin'] } };

export function registerAdminReportRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Querystring: { from?: string; to?: string } }>(
    '/admin/reports/margin',
    admin,
    async (request) => {
      const report = await ctx.operator.margin.report(request.query);
      return { data: report.rows.map(presentRub) };
    },
  );
}
