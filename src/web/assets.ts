// The static files the owner panel and the operator console share, all same-origin (never a CDN):
// the stylesheet and script of every page, and the libraries straight from node_modules (uPlot for
// charts, htmx for small enhancements). Read once at start; served with a strong ETag so a reload
// costs a 304. Each site serves them under its own prefix (its cookies' Path covers its assets).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { SITE_ROUTE } from './http.js';

const require = createRequire(import.meta.url);
const own = (name: string) => fileURLToPath(new URL(`./assets/${name}`, import.meta.url));

const FILES: Record<string, { path: string; type: string }> = {
  'panel.css': { path: own('panel.css'), type: 'text/css; charset=utf-8' },
  'panel.js': { path: own('panel.js'), type: 'text/javascript; charset=utf-8' },
  // Forms with many choices, charts and media previews; the uPlot charts drawn from page JSON.
  'pages.css': { path: own('pages.css'), type: 'text/css; charset=utf-8' },
  'charts.js': { path: own('charts.js'), type: 'text/javascript; charset=utf-8' },
  'uplot.js': {
    path: require.resolve('uplot/dist/uPlot.iife.min.js'),
    type: 'text/javascript; charset=utf-8',
  },
  'uplot.css': { path: require.resolve('uplot/dist/uPlot.min.css'), type: 'text/css; charset=utf-8' },
  'htmx.js': { path: require.resolve('htmx.org/dist/htmx.min.js'), type: 'text/javascript; charset=utf-8' },
};

interface Loaded {
  body: Buffer;
  etag: string;
  type: string;
}

function load(files: Record<string, { path: string; type: string }>): Map<string, Loaded> {
  return new Map(
    Object.entries(files).map(([name, file]) => {
      const body = readFileSync(file.path);
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
      return [name, { body, etag, type: file.type }];
    }),
  );
}

/**
 * Serves the shared files, and a site's own `extra` files, at `${prefix}/:name` (prefix such as
 * /panel/assets).
 */
export function registerSiteAssets(
  scope: FastifyInstance,
  prefix: string,
  extra: Record<string, { path: string; type: string }> = {},
): void {
  const loaded = load({ ...FILES, ...extra });
  scope.get<{ Params: { name: string } }>(`${prefix}/:name`, SITE_ROUTE, async (request, reply) => {
    const asset = loaded.get(request.params.name);
    if (!asset) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    reply
      .header('ETag', asset.etag)
      .header('Cache-Control', 'public, max-age=300, must-revalidate')
      .header('X-Content-Type-Options', 'nosniff')
      .type(asset.type);
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    return reply.send(asset.body);
  });
}
