// The caller's own account, balance and usage. The key in the header identifies the account; the
// balance and the usage are the key's own.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { microToRub } from '../../../domain/billing/money.js';
import { AppError } from '../../../domain/errors.js';
import { keyUsage, USAGE_MAX_DAYS, type UsageQuery } from '../../../services/key-usage.js';
import { presentAccount } from '../../presenters/keys.js';

const usageCounts = {
  requests: { type: 'integer' },
  spent: { type: 'number', description: 'Rubles captured' },
  input_tokens: { type: 'integer' },
  output_tokens: { type: 'integer' },
} as const;

const usageSchema = {
  type: 'object',
  properties: {
    object: { type: 'string', enum: ['usage'] },
    from: { type: 'string', format: 'date' },
    to: { type: 'string', format: 'date' },
    data: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          date: { type: 'string', format: 'date' },
          model_name: { type: 'string' },
          ...usageCounts,
        },
        required: ['date', 'model_name', 'requests', 'spent', 'input_tokens', 'output_tokens'],
      },
    },
    total: {
      type: 'object',
      properties: usageCounts,
      required: ['requests', 'spent', 'input_tokens', 'output_tokens'],
    },
  },
  required: ['object', 'from', 'to', 'data', 'total'],
} as const;

export function registerMeRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/me/keys',
    { config: { access: 'key' }, schema: { tags: ['account'], summary: 'The account of the calling key' } },
    async (request) => {
      const account = await ctx.storage.accounts.byId(request.apiKey.accountId);
      if (!account) throw new AppError('invalid_api_key');
      return presentAccount(account, await ctx.storage.keys.listForAccount(account.id));
    },
  );

  app.get(
    '/me/balance',
    {
      config: { access: 'key' },
      schema: {
        tags: ['account'],
        summary: 'Balance of the calling key in rubles',
        response: { 200: { type: 'object', properties: { key_balance: { type: 'number' } } } },
      },
    },
    async (request) => {
      const balance = await ctx.storage.keys.balanceOf(request.apiKey.keyId);
      if (!balance) throw new AppError('invalid_api_key');
      return { key_balance: microToRub(balance.balance) };
    },
  );

  app.get<{ Querystring: UsageQuery }>(
    '/me/usage',
    {
      config: { access: 'key' },
      schema: {
        tags: ['account'],
        summary: 'Usage of the calling key per model and UTC day',
        description:
          'from and to: YYYY-MM-DD (UTC), both included; default the last 30 days up to today; ' +
          `at most ${USAGE_MAX_DAYS} days. Requests count on the day they were made.`,
        querystring: {
          type: 'object',
          properties: { from: { type: 'string' }, to: { type: 'string' } },
        },
        response: { 200: usageSchema },
      },
    },
    async (request) => keyUsage(ctx.storage, request.apiKey, request.query, ctx.clock.now()),
  );
}
