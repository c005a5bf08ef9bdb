// The owner's web panel: server-rendered pages under /panel in their own Fastify scope (form
// bodies, CSRF, HTML errors), split in two: the sign-in pages and assets anyone may open, and the
// signed-in scope whose every route has request.panel set and CSRF checked.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { AppError } from '../domain/errors.js';
import { PanelSessions } from '../services/panel-sessions.js';
import { PanelSignInGuard } from '../services/panel-sign-in-guard.js';
import { PanelTwoFactor } from '../services/panel-two-factor.js';
import { registerPanelAssets } from './assets.js';
import { registerAuditPages } from './audit.js';
import { type AuthDeps, registerAuthPages, registerSignOut, signInPage } from './auth.js';
import { registerOverviewPage } from './overview.js';
import { registerAnalyticsPages } from './pages/analytics.js';
import { registerKeysPages } from './pages/keys.js';
import { registerMoneyPages } from './pages/money.js';
import { registerTasksPages } from './pages/tasks.js';
import {
  registerOriginCheck,
  registerPanelBodies,
  registerPanelErrors,
  requirePanelSession,
} from './panel-context.js';
import { registerSecurityPages } from './security.js';
import { registerTelegramPages } from './telegram.js';
import { registerWebhookPages } from './webhooks.js';

export function registerPanelRoutes(app: FastifyInstance, ctx: AppContext): void {
  const sessions = new PanelSessions(ctx.storage, ctx.clock);
  const deps: AuthDeps = {
    sessions,
    twoFactor: new PanelTwoFactor(ctx.storage, ctx.clock),
    guard: new PanelSignInGuard(ctx.rateLimiter, ctx.storage, ctx.clock),
    secure: ctx.config.publicUrl.startsWith('https:'),
  };

  app.register(async (panel) => {
    registerPanelBodies(panel);
    registerPanelErrors(panel);
    registerOriginCheck(panel, ctx.config.publicUrl);
    panel.decorateRequest('panel', null as never);
    registerPanelAssets(panel);
    registerAuthPages(panel, ctx, deps);
    registerTelegramPages(panel, ctx, deps);
    // Any other panel address is a page too: a 404 a person can read, not the API's JSON error.
    panel.all('/panel/*', async () => {
      throw new AppError('not_found', 'There is no such page in the panel.');
    });

    await panel.register(async (signedIn) => {
      signedIn.addHook('preHandler', requirePanelSession(ctx, sessions, signInPage(ctx)));
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
