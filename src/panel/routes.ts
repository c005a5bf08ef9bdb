// The owner's web panel: server-rendered pages under /panel in their own Fastify scope (form
// bodies, CSRF, HTML errors), split in two: the sign-in pages and assets anyone may open, and the
// signed-in scope whose every route has request.panel set and CSRF checked. The services come built
// from the composition root (ctx.panel); the pages live in ./pages, one file each.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { AppError } from '../domain/errors.js';
import { registerSiteAssets } from '../web/assets.js';
import { registerAnalyticsPages } from './pages/analytics.js';
import { registerAuditPages } from './pages/audit.js';
import { type AuthDeps, registerAuthPages, registerSignOut, signInPage } from './pages/auth.js';
import { registerKeysPages } from './pages/keys.js';
import { registerMoneyPages } from './pages/money.js';
import { registerOverviewPage } from './pages/overview.js';
import { registerSecurityPages } from './pages/security.js';
import { registerTasksPages } from './pages/tasks.js';
import { registerTelegramPages } from './pages/telegram.js';
import { registerWebhookPages } from './pages/webhooks.js';
import {
  registerOriginCheck,
  registerPanelBodies,
  registerPanelErrors,
  requirePanelSession,
} from './panel-context.js';

export function registerPanelRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { sessions, twoFactor, guard, owner } = ctx.panel;
  const deps: AuthDeps = { sessions, twoFactor, guard, secure: ctx.config.publicUrl.startsWith('https:') };
  const lookup = {
    async ownerOf(token: string | undefined) {
      const accountId = await sessions.accountOf(token);
      return accountId === undefined ? undefined : owner.owner(accountId);
    },
  };

  app.register(async (panel) => {
    registerPanelBodies(panel);
    registerPanelErrors(panel);
    registerOriginCheck(panel, ctx.config.publicUrl);
    panel.decorateRequest('panel', null as never);
    registerSiteAssets(panel, '/panel/assets');
    registerAuthPages(panel, ctx, deps);
    registerTelegramPages(panel, ctx, deps);
    // Any other panel address is a page too: a 404 a person can read, not the API's JSON error.
    panel.all('/panel/*', async () => {
      throw new AppError('not_found', 'There is no such page in the panel.');
    });

    await panel.register(async (signedIn) => {
      signedIn.addHook('preHandler', requirePanelSession(ctx.maintenance, lookup, signInPage(ctx)));
      registerSignOut(signedIn, deps);
      registerOverviewPage(signedIn, ctx);
      registerSecurityPages(signedIn, ctx, deps);
      registerWebhookPages(signedIn, ctx);
      registerAuditPages(signedIn, ctx);
      registerKeysPages(signedIn, ctx);
      registerMoneyPages(signedIn, ctx);
      registerAnalyticsPages(signedIn, ctx);
      registerTasksPages(signedIn, ctx);
    });
  });
}
