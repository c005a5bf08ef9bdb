// The operator's side of money in: top-ups of every account with filters, refunds, and codes.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { bodyObject, rejectUnknownFields } from '../../body.js';
import { presentAdminTopup, presentRefund } from '../../presenters/topups.js';
import { pageLimit } from '../native/topups.js';

const admin = { config: { access: 'admin' as const }, schema: { tags: ['admin'] } };

export function registerAdminPaymentRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get<{
    Querystring: { status?: string; method?: string; messaging_id?: string; limit?: string; after?: string };
  }>('/admin/topups', admin, async (request) => {
    const q = request.query;
    const page = await ctx.payments.topups.listForAdmin({
      status: q.status,
      method: q.method,
      messagingId: q.messaging_id,
      limit: pageLimit(q.limit),
      after: q.after,
    });
    return { object: 'list', data: page.data.map((r) => presentAdminTopup(r)), has_more: page.has_more };
  });

  app.post<{ Params: { id: string } }>('/admin/topups/:id/refund', admin, async (request) => {
    const body = bodyObject(request.body);
    rejectUnknownFields(body, ['amount_rub']);
    const { topup, refund } = await ctx.payments.refunds.refund(request.params.id, body.amount_rub);
    const account = await ctx.storage.accounts.byId(Number(topup.account_id));
    return { ...presentAdminTopup(topup, account?.messaging_id), refund: presentRefund(refund) };
  });

  app.post('/admin/codes', admin, async (request, reply) => {
    const body = bodyObject(request.body);
    rejectUnknownFields(body, ['amount_rub', 'count', 'expires_at']);
    const codes = await ctx.payments.codes.create(body);
    return reply.code(201).send({ codes });
  });
}
