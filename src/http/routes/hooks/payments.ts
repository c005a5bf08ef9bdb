// POST /hooks/payments/{method}: payment notifications. The raw body is kept (Stripe signs its
// bytes). What a notification may change is decided by the top-up service: YooKassa's are read
// only from its published addresses and confirmed by reading the payment back; Stripe's must carry
// a valid signature. Access 'system': no API key, and it keeps working in maintenance mode.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { AppError } from '../../../domain/errors.js';

const NOTIFICATION_BODY_LIMIT = 256 * 1024;

export async function registerPaymentHookRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: NOTIFICATION_BODY_LIMIT },
      (_request, body, done) => done(null, body),
    );
    scope.post<{ Params: { method: string } }>(
      '/hooks/payments/:method',
      { config: { access: 'system' }, schema: { hide: true } },
      async (request, reply) => {
        const result = await ctx.payments.topups.receiveNotification(request.params.method, {
          headers: request.headers,
          rawBody: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
          ip: request.ip,
        });
        switch (result.status) {
          case 200:
            return reply.send({ received: true });
          case 404:
            throw new AppError('not_found', result.message);
          case 403:
            throw new AppError('ip_not_allowed', result.message);
          case 400:
            throw new AppError('invalid_notification', result.message);
          default:
            throw new AppError('upstream_error', result.message);
        }
      },
    );
  });
}
