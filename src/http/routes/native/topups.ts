// Money in for the key holder: the payment methods that are on, top-ups by card (created at the
// payment provider, paid on its page, credited when it confirms), and codes. Each key sees its own
// top-ups only; another key's is 404.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { AppError } from '../../../domain/errors.js';
import { runIdempotent } from '../../../services/idempotency.js';
import { presentTopup } from '../../../services/payments/topups.js';
import { bodyObject, rejectUnknownFields } from '../../body.js';
import { captureRawJsonBodies, parsedJson } from '../../raw-json.js';
import { idempotentRequestOf, sendOutcome } from './generate.js';

const TOPUP_LIST_MAX = 100;
const TOPUP_LIST_DEFAULT = 20;

export function pageLimit(value: string | undefined): number {
  if (value === undefined || value === '') return TOPUP_LIST_DEFAULT;
  const n = /^\d{1,4}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > TOPUP_LIST_MAX)
    throw new AppError('invalid_parameter', `limit must be an integer from 1 to ${TOPUP_LIST_MAX}`, 'limit');
  return n;
}

const topupSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'succeeded', 'canceled', 'refunded'] },
    method: { type: 'string' },
    amount_rub: { type: 'number' },
    created_at: { type: 'string', format: 'date-time' },
    paid_at: { type: ['string', 'null'], format: 'date-time' },
  },
  required: ['id', 'status', 'method', 'amount_rub', 'created_at', 'paid_at'],
} as const;

export async function registerTopupRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const owner = (request: { apiKey: { keyId: number; accountId: number } }) => ({
    keyId: request.apiKey.keyId,
    accountId: request.apiKey.accountId,
  });

  app.get(
    '/me/topup-methods',
    {
      config: { access: 'key' },
      schema: { tags: ['topups'], summary: 'Payment methods that are on, and the bounds of one top-up' },
    },
    async () => ctx.payments.topups.available(),
  );

  await app.register(async (scope) => {
    captureRawJsonBodies(scope);
    scope.post(
      '/me/topups',
      {
        config: { access: 'key' },
        schema: {
          tags: ['topups'],
          summary: 'Start a top-up by card: answers the payment page to send the payer to',
          description:
            'Body: {"amount_rub", "method", "return_url"?, "email"?}. Supports the Idempotency-Key header: a retry with the same key never makes a second payment.',
        },
      },
      async (request, reply) => {
        const idem = idempotentRequestOf(request, '/me/topups');
        const outcome = await runIdempotent(ctx.idempotency, idem, async () => {
          const body = bodyObject(parsedJson(request.body));
          rejectUnknownFields(body, ['amount_rub', 'method', 'return_url', 'email']);
          return ctx.payments.topups.create(owner(request), body, idem);
        });
        return sendOutcome(reply, outcome);
      },
    );
    scope.post(
      '/me/redeem',
      {
        config: { access: 'key' },
        schema: { tags: ['topups'], summary: 'Redeem a code onto the calling key' },
      },
      async (request) => {
        const body = bodyObject(parsedJson(request.body));
        rejectUnknownFields(body, ['code']);
        return ctx.payments.codes.redeem(owner(request), body.code);
      },
    );
  });

  app.get<{ Querystring: { limit?: string; after?: string } }>(
    '/me/topups',
    {
      config: { access: 'key' },
      schema: { tags: ['topups'], summary: 'Top-ups of the calling key, newest first' },
    },
    async (request) => {
      const page = await ctx.payments.topups.list(
        owner(request),
        pageLimit(request.query.limit),
        request.query.after,
      );
      return { object: 'list', data: page.data.map(presentTopup), has_more: page.has_more };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/me/topups/:id',
    {
      config: { access: 'key' },
      schema: { tags: ['topups'], summary: 'One top-up of the calling key', response: { 200: topupSchema } },
    },
    async (request) => presentTopup(await ctx.payments.topups.get(owner(request), request.params.id)),
  );
}
