// The caller's own account and balance. The key in the header identifies the account.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../context.js';
import { microToRub } from '../../../domain/billing/money.js';
import { AppError } from '../../../domain/errors.js';
import { presentAccount } from '../../presenters/keys.js';

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
}
