// Builds the Fastify app: plugins in the order of the request pipeline, then the routes.
import Fastify, { type FastifyInstance } from 'fastify';
import { registerConsoleRoutes } from '../console/routes.js';
import type { AppContext } from '../context.js';
import { registerPanelRoutes } from '../panel/routes.js';
import { registerErrorHandling } from './errors.js';
import { registerOpenApi } from './openapi/plugin.js';
import { registerJsonOnlyBodies } from './plugins/content-type.js';
import { registerCors } from './plugins/cors.js';
import { registerGuard } from './plugins/guard.js';
import { registerHttpMetrics } from './plugins/http-metrics.js';
import { lowLevelErrorOptions, registerLowLevelErrors } from './plugins/low-level-errors.js';
import { registerRequestContext, requestIdFor, serializeRequest } from './plugins/request-context.js';
import { registerAdminRoutes } from './routes/admin/admin.js';
import { registerAdminPaymentRoutes } from './routes/admin/payments.js';
import { registerAdminReportRoutes } from './routes/admin/reports.js';
import { registerMessagesRoutes } from './routes/anthropic/messages.js';
import { registerHookRoutes } from './routes/hooks/hooks.js';
import { registerPaymentHookRoutes } from './routes/hooks/payments.js';
import { registerGenerateRoute } from './routes/native/generate.js';
import { registerMeRoutes } from './routes/native/me.js';
import { registerObjectRoutes } from './routes/native/objects.js';
import { registerPublicRoutes } from './routes/native/public.js';
import { registerTaskRoutes } from './routes/native/tasks.js';
import { registerTopupRoutes } from './routes/native/topups.js';
import { registerChatCompletionsRoute } from './routes/openai/chat-completions.js';
import { registerImagesRoute } from './routes/openai/images.js';
import { registerModelRoutes } from './routes/openai/models.js';
import { registerResponsesRoute } from './routes/openai/responses.js';
import { registerVideoRoutes } from './routes/openai/videos.js';
import { registerStatusRoutes } from './routes/status/status.js';
import { registerProbeRoutes } from './routes/system/health.js';
import { registerMetricsRoute } from './routes/system/metrics.js';

export type RouteModule = (app: FastifyInstance, ctx: AppContext) => void | Promise<void>;

export interface HttpAppOptions {
  /** Where the JSON logs go instead of stdout (tests read them). */
  logStream?: { write(line: string): void };
}

export async function buildHttpApp(
  ctx: AppContext,
  extraRoutes: RouteModule[] = [],
  options: HttpAppOptions = {},
): Promise<FastifyInstance> {
  const app = Fastify({
    // 431/414/400/408 from Node's parser and Fastify's router, in the one error shape.
    ...lowLevelErrorOptions,
    logger:
      ctx.config.logLevel === 'silent'
        ? false
        : { level: ctx.config.logLevel, serializers: { req: serializeRequest }, stream: options.logStream },
    bodyLimit: ctx.config.bodyLimitBytes,
    trustProxy: ctx.config.trustProxy,
    // The client's X-Request-Id when valid, else ours: unique across processes.
    genReqId: requestIdFor,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false } },
  });
  registerErrorHandling(app);
  registerJsonOnlyBodies(app);
  registerLowLevelErrors(app);
  registerRequestContext(app);
  // Before any route: each route gets its metrics hook as it is added.
  registerHttpMetrics(app, ctx.metrics);

  await registerOpenApi(app, ctx);

  // Before the guard: preflights carry no key.
  await registerCors(app, ctx.config.corsOrigins);
  registerGuard(app, {
    auth: ctx.auth,
    maintenance: ctx.maintenance,
    rateLimiter: ctx.rateLimiter,
    adminToken: ctx.config.adminToken,
    defaultRateLimitPerMin: ctx.config.defaultRateLimitPerMin,
  });

  registerPublicRoutes(app, ctx);
  registerModelRoutes(app, ctx);
  registerMeRoutes(app, ctx);
  await registerTopupRoutes(app, ctx);
  registerChatCompletionsRoute(app, ctx);
  registerResponsesRoute(app, ctx);
  registerMessagesRoutes(app, ctx);
  await registerImagesRoute(app, ctx);
  await registerVideoRoutes(app, ctx);
  await registerGenerateRoute(app, ctx);
  registerTaskRoutes(app, ctx);
  registerObjectRoutes(app, ctx);
  registerAdminRoutes(app, ctx);
  registerAdminPaymentRoutes(app, ctx);
  registerAdminReportRoutes(app, ctx);
  registerPanelRoutes(app, ctx);
  registerConsoleRoutes(app, ctx);
  registerMetricsRoute(app, ctx);
  registerProbeRoutes(app, ctx);
  registerStatusRoutes(app, ctx);
  await registerHookRoutes(app, ctx);
  await registerPaymentHookRoutes(app, ctx);
  for (const register of extraRoutes) await register(app, ctx);
  return app;
}
