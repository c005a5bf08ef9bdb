// The operator API of DESIGN.md section 5. Bearer ADMIN_TOKEN; without the token it answers 404.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../context.js';
import { microToRub } from '../../../domain/billing/money.js';
import { parseCatalogEntry } from '../../../domain/catalog/catalog-file.js';
import { AppError } from '../../../domain/errors.js';
import { KEY_SETTING_FIELDS } from '../../../domain/keys/limits.js';
import type { Actor } from '../../../services/accounts.js';
import type { AccountRow } from '../../../storage/repositories/accounts.js';
import { bodyObject, positiveIntParam, rejectUnknownFields } from '../../body.js';
import { presentAdminModel } from '../../presenters/catalog.js';
import { presentCoefficient, presentKey } from '../../presenters/keys.js';
import { presentDelivery } from '../../presenters/webhooks.js';

const admin = { config: { access: 'admin' as const }, schema: { tags: ['admin'] } };

export function registerAdminRoutes(app: FastifyInstance, ctx: AppContext): void {
  const actor = (request: FastifyRequest): Actor => ({ actor: 'admin', ip: request.ip });

  app.post('/admin/accounts', admin, async (request, reply) => {
    const body = bodyObject(request.body);
    rejectUnknownFields(body, ['messaging_id', 'coefficient']);
    const account = await ctx.accounts.createAccount(body, actor(request));
    return reply.code(201).send({
      messaging_id: account.messaging_id,
      coefficient: presentCoefficient(account),
      webhook_secret: account.webhook_secret,
      keys: [],
    });
  });

  const presentAdminAccount = async (account: AccountRow) => {
    const keys = await ctx.accounts.keysOf(account.id);
    return {
      messaging_id: account.messaging_id,
      coefficient: presentCoefficient(account),
      low_balance_rub: account.low_balance === null ? null : microToRub(Number(account.low_balance)),
      webhook_secret: account.webhook_secret,
      keys: keys.map((key) => presentKey(key)),
    };
  };

  app.get<{ Params: { messaging_id: string } }>('/admin/accounts/:messaging_id', admin, async (request) =>
    presentAdminAccount(await ctx.accounts.accountByMessagingId(request.params.messaging_id)),
  );

  app.patch<{ Params: { messaging_id: string } }>('/admin/accounts/:messaging_id', admin, async (request) => {
    const body = bodyObject(request.body);
    rejectUnknownFields(body, ['coefficient', 'low_balance_rub']);
    const account = await ctx.accounts.accountByMessagingId(request.params.messaging_id);
    return presentAdminAccount(await ctx.accounts.updateAccount(account.id, body, actor(request)));
  });

  app.post<{ Params: { messaging_id: string } }>(
    '/admin/accounts/:messaging_id/keys',
    admin,
    async (request, reply) => {
      const body = bodyObject(request.body);
      rejectUnknownFields(body, ['name', ...KEY_SETTING_FIELDS]);
      const account = await ctx.accounts.accountByMessagingId(request.params.messaging_id);
      const { key, secret } = await ctx.accounts.createKey(account.id, body, actor(request));
      // The only answer that ever carries the full key.
      return reply.code(201).send({ ...presentKey(key), key_value: secret });
    },
  );

  app.post<{ Params: { messaging_id: string } }>(
    '/admin/accounts/:messaging_id/webhook-secret/rotate',
    admin,
    async (request) => {
      const account = await ctx.accounts.accountByMessagingId(request.params.messaging_id);
      const updated = await ctx.accounts.rotateWebhookSecret(account.id, 24 * 3600 * 1000, actor(request));
      return {
        webhook_secret: updated.webhook_secret,
        previous_valid_until: new Date(updated.webhook_secret_previous_until!).toISOString(),
      };
    },
  );

  app.patch<{ Params: { id: string } }>('/admin/keys/:id', admin, async (request) => {
    const key = await ctx.accounts.updateKeyRestrictions(
      positiveIntParam(request.params.id, 'Key'),
      bodyObject(request.body),
      actor(request),
    );
    return presentKey(key);
  });

  app.delete<{ Params: { id: string } }>('/admin/keys/:id', admin, async (request, reply) => {
    await ctx.accounts.deleteKey(positiveIntParam(request.params.id, 'Key'), actor(request));
    return reply.code(204).send();
  });

  app.post<{ Params: { id: string } }>('/admin/keys/:id/topup', admin, async (request) => {
    const body = bodyObject(request.body);
    rejectUnknownFields(body, ['amount_rub', 'note']);
    if (body.amount_rub === undefined)
      throw new AppError('missing_parameter', 'amount_rub is required', 'amount_rub');
    const balance = await ctx.accounts.topup(
      positiveIntParam(request.params.id, 'Key'),
      body.amount_rub,
      body.note,
      actor(request),
    );
    return { balance: microToRub(balance) };
  });

  app.put('/admin/maintenance', admin, async (request) => {
    const body = bodyObject(request.body);
    rejectUnknownFields(body, ['enabled']);
    if (typeof body.enabled !== 'boolean')
      throw new AppError('invalid_parameter', 'enabled must be a boolean', 'enabled');
    const enabled = await ctx.maintenance.set(body.enabled);
    await ctx.storage.audit.append({
      accountId: null,
      ...actor(request),
      action: enabled ? 'maintenance.on' : 'maintenance.off',
      now: ctx.clock.now(),
    });
    return { enabled };
  });

  app.get('/admin/models', admin, async () => (await ctx.catalog.all()).map(presentAdminModel));

  app.put<{ Params: { id: string } }>('/admin/models/:id', admin, async (request) => {
    const body = bodyObject(request.body);
    rejectUnknownFields(body, [
      'id',
      'name',
      'provider',
      'kind',
      'unit',
      'priceRub',
      'priceOutputRub',
      'priceCacheWriteRub',
      'priceCacheReadRub',
      'priceWebSearchRub',
      'priceWebFetchRub',
      'active',
      'visible',
      'vision',
      'route',
      'params_schema',
      'billing',
    ]);
    if (body.id !== undefined && body.id !== request.params.id) {
      throw new AppError('invalid_parameter', 'id in the body must match the id in the path', 'id');
    }
    const model = parseCatalogEntry(request.params.id, body, ctx.clock.now());
    return presentAdminModel(await ctx.catalog.upsert(model));
  });

  app.get<{ Querystring: { status?: string; limit?: string } }>('/admin/webhooks', admin, async (request) => {
    const status = request.query.status ?? 'undelivered';
    if (!['pending', 'delivered', 'undelivered'].includes(status)) {
      throw new AppError('invalid_parameter', 'status must be pending, delivered or undelivered', 'status');
    }
    const limit = request.query.limit === undefined ? 100 : Number(request.query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      throw new AppError('invalid_parameter', 'limit must be an integer from 1 to 1000', 'limit');
    }
    return (await ctx.storage.webhooks.listByStatus(status as 'pending', limit)).map(presentDelivery);
  });

  // Each PROVIDERS_FILE account: its health (up, cooling after failures, down after an auth or
  // billing refusal), its jobs in flight and the last error it answered.
  app.get('/admin/providers', admin, async () => ({ data: await ctx.providerPool.status() }));

  app.post<{ Params: { id: string } }>('/admin/webhooks/:id/redeliver', admin, async (request) =>
    presentDelivery(await ctx.webhooks.redeliver(request.params.id, actor(request))),
  );

  app.post<{ Params: { messaging_id: string } }>(
    '/admin/accounts/:messaging_id/login-link',
    admin,
    async (request, reply) => {
      const account = await ctx.accounts.accountByMessagingId(request.params.messaging_id);
      const link = await ctx.panel.sessions.createLoginLink(account.id);
      await ctx.storage.audit.append({
        accountId: account.id,
        ...actor(request),
        action: 'login_link.created',
        now: ctx.clock.now(),
      });
      return reply.code(201).send({
        url: `${ctx.config.publicUrl}/panel/login?token=${link.token}`,
        expires_at: new Date(link.expiresAt).toISOString(),
      });
    },
  );
}
