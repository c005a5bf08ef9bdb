// The operator's side of money in: top-ups of every account with filters, refunds, and codes.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { AppError } from '../../../domain/errors.js';
import type { AdminTopupRow } from '../../../storage/repositories/topups.js';
import { bodyObject, rejectUnknownFields } from '../../body.js';
import { presentAdminTopup, presentRefund } from '../../presenters/topups.js';
import { pageLimit } from '../native/topups.js';

const admin = { config: { access: 'admin' as const }, schema: { tags: ['admin'] } };
const STATUSES = ['pending', 'succeeded', 'canceled', 'refunded'];

export function registerAdminPaymentRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get<{
    Querystring: { status?: string; method?: string; messaging_id?: string; limit?: string; after?: string };
  }>('/admin/topups', admin, async (request) => {
    const q = request.query;
    if (q.status && !STATUSES.includes(q.status))
      throw new AppError('invalid_parameter', `status must be one of ${STATUSES.join(', ')}`, 'status');
    let messagingId: number | undefined;
    if (q.messaging_id) {
      messagingId = /^\d{1,15}$/.test(q.messaging_id) ? Number(q.messaging_id) : Number.NaN;
      if (!Number.isSafeInteger(messagingId))
        throw new AppError('invalid_parameter', 'messaging_id must be an integer', 'messaging_id');
    }
    const limit = pageLimit(q.limit);
    const rows: AdminTopupRow[] = await ctx.storage.topups.listForAdmin({
      status: q.status,
      method: q.method || undefined,
      messagingId,
      limit,
      after: q.after || undefined,
    });
    return {
      object: 'list',
      data: rows.slice(0, limit).map((r) => presentAdminTopup(r)),
      has_more: rows.length > limit,
    };
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
