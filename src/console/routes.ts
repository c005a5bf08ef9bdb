// The operator console: server-rendered pages under /console in their own Fastify scope, beside
// the owner panel and sharing its components (src/web). Off without ADMIN_TOKEN: nothing is
// registered and every /console address answers 404, like the admin API. The sign-in pages and
// assets are open; every other page needs a console session and checks CSRF on every form.
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { AppError } from '../domain/errors.js';
import { registerSiteAssets } from '../web/assets.js';
import { registerFormBodies } from '../web/http.js';
import { registerConsoleErrors, requireConsoleSession } from './console-context.js';
import { registerAccountPages } from './pages/accounts.js';
import { registerAuditPages } from './pages/audit.js';
import { registerMaintenancePages } from './pages/maintenance.js';
import { registerMarginPages } from './pages/margin.js';
import { registerModelPages } from './pages/models.js';
import { registerMoneyPages } from './pages/money.js';
import { registerProviderPages } from './pages/providers.js';
import { consoleSignInPage, registerConsoleSignIn, registerConsoleSignOut } from './pages/sign-in.js';
import { registerTaskPages } from './pages/tasks.js';
import { registerWebhookPages } from './pages/webhooks.js';

const CONSOLE_FILES = {
  'console.css': {
    path: fileURLToPath(new URL('./assets/console.css', import.meta.url)),
    type: 'text/css; charset=utf-8',
  },
};

export function registerConsoleRoutes(app: FastifyInstance, ctx: AppContext): void {
  if (!ctx.config.adminToken) return;
  app.register(async (site) => {
    registerFormBodies(site);
    registerConsoleErrors(site, ctx.config.publicUrl);
    site.decorateRequest('console', null as never);
    registerSiteAssets(site, '/console/assets', CONSOLE_FILES);
    registerConsoleSignIn(site, ctx);
    site.all('/console/*', async () => {
      throw new AppError('not_found', 'There is no such page in the console.');
    });

    await site.register(async (signedIn) => {
      signedIn.addHook(
        'preHandler',
        requireConsoleSession(ctx.operator.sessions, () => ctx.maintenance.isEnabled(), consoleSignInPage()),
      );
      registerConsoleSignOut(signedIn, ctx);
      registerAccountPages(signedIn, ctx);
      registerModelPages(signedIn, ctx);
      registerProviderPages(signedIn, ctx);
      registerTaskPages(signedIn, ctx);
      registerWebhookPages(signedIn, ctx);
      registerMaintenancePages(signedIn, ctx);
      registerMoneyPages(signedIn, ctx);
      registerMarginPages(signedIn, ctx);
      registerAuditPages(signedIn, ctx);
    });
  });
}
