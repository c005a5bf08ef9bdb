// The OpenAPI 3.1 document at /openapi.json and the swagger UI at /docs. @fastify/swagger derives the
// base document from the routes (summaries, path and query parameters, the routes' response schemas);
// document.ts completes it for the catalog of the moment on every read, so a model an operator adds
// is documented at once. The route inventory records every route as Fastify registers it, for the
// test that checks the document leaves none out.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { AppContext } from '../../context.js';
import type { CatalogModel } from '../../domain/catalog/model.js';
import { API_VERSION } from '../api-version.js';
import type { RouteAccess } from '../plugins/guard.js';
import { ACCESS_FIELD, completeDocument, type OpenApiDocument } from './document.js';

/**
 * Routes deliberately left out of the document: the swagger UI and the document themselves, and the
 * owner panel (HTML pages behind a cookie session and CSRF forms, made for a browser, not a client).
 */
export const HIDDEN_ROUTES: readonly RegExp[] = [
  /^\/docs(\/|$)/,
  /^\/openapi\.json$/,
  /^\/panel(\/|$)/,
  /^\/console(\/|$)/,
];

export const isHiddenRoute = (url: string): boolean => HIDDEN_ROUTES.some((pattern) => pattern.test(url));

export interface RegisteredRoute {
  method: string;
  url: string;
  access: RouteAccess | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route as registered (HEAD and OPTIONS included), in order. */
    routeInventory: RegisteredRoute[];
  }
  interface FastifyRequest {
    openapiModels?: CatalogModel[];
  }
}

export async function registerOpenApi(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const inventory: RegisteredRoute[] = [];
  app.decorate('routeInventory', inventory);
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods)
      inventory.push({ method, url: route.url, access: route.config?.access as RouteAccess | undefined });
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'gengate',
        version: API_VERSION,
        description:
          'Generation gateway: video, image and text models behind one API key. Errors always come as ' +
          '{"error": {"message", "type", "code", "param"}}. Money is shown in rubles.',
      },
    },
    // Only for the document: the route keeps its own schema. The access the guard enforces becomes
    // the operation's security in document.ts; the hidden list wins over a route's own `hide`.
    transform: ({ schema, url, route }) => ({
      url,
      schema: {
        ...schema,
        hide: isHiddenRoute(url),
        [ACCESS_FIELD]: (route.config as { access?: RouteAccess } | undefined)?.access ?? 'public',
      } as typeof schema,
    }),
  });

  // Built once per catalog version: the catalog service hands out the same array until it reloads.
  let last: { models: CatalogModel[] | undefined; document: OpenApiDocument } | undefined;
  const documentFor = (models: CatalogModel[] | undefined) => {
    if (!last || last.models !== models)
      last = {
        models,
        document: completeDocument(app.swagger() as unknown as OpenApiDocument, models ?? []),
      };
    return last.document;
  };
  app.decorateRequest('openapiModels', undefined);
  const loadModels = async (request: FastifyRequest) => {
    request.openapiModels = await ctx.catalog.all();
  };

  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: {
      docExpansion: 'list',
      persistAuthorization: false,
      tryItOutEnabled: true,
      displayRequestDuration: true,
    },
    uiHooks: { preHandler: loadModels },
    transformSpecificationClone: false,
    transformSpecification: (_spec, request) => documentFor((request as FastifyRequest).openapiModels),
  });

  app.get(
    '/openapi.json',
    { config: { access: 'system' }, schema: { hide: true }, preHandler: loadModels },
    async (request) => documentFor(request.openapiModels),
  );
}
