// The HTTP metrics hook on a bare Fastify: route patterns (never URLs), one series per method of a
// multi-method route, HEAD of a GET route, unmatched requests, and route hooks of the app kept.
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { Metrics } from '../../services/metrics.js';
import { registerHttpMetrics } from './http-metrics.js';

async function appWithMetrics() {
  const metrics = new Metrics();
  const app = Fastify();
  registerHttpMetrics(app, metrics);
  let routeHookRan = 0;
  const countRun = (_req: unknown, _reply: unknown, done: () => void) => {
    routeHookRan++;
    done();
  };
  app.get('/items/:id', { onResponse: countRun }, async () => ({ ok: 1 }));
  app.route({
    method: ['PUT', 'DELETE'],
    url: '/things/:id',
    handler: async (_req, reply) => reply.code(204).send(),
  });
  app.register(
    async (child) => {
      child.get('/inner', async () => 'x');
    },
    { prefix: '/nested' },
  );
  await app.ready();
  const series = async () =>
    (await metrics.httpRequests.get()).values.map((v) => ({ ...v.labels, n: v.value }));
  return { app, metrics, series, hookRuns: () => routeHookRan };
}

describe('HTTP metrics hook', () => {
  it('labels requests with the route pattern, method and status', async () => {
    const { app, series, hookRuns } = await appWithMetrics();
    await app.inject({ method: 'GET', url: '/items/1' });
    await app.inject({ method: 'GET', url: '/items/2?x=y' });
    await app.inject({ method: 'HEAD', url: '/items/3' });
    await app.inject({ method: 'PUT', url: '/things/9' });
    await app.inject({ method: 'DELETE', url: '/things/9' });
    await app.inject({ method: 'GET', url: '/nested/inner' });
    await app.inject({ method: 'GET', url: '/nowhere/123' });
    // A method Node accepts and no route serves: counted as OTHER.
    await app.inject({ method: 'PROPFIND' as 'GET', url: '/nowhere/456' });
    // The app's own route hook still runs (HEAD shares the GET route's hooks).
    expect(hookRuns()).toBe(3);
    expect(await series()).toEqual(
      expect.arrayContaining([
        { route: '/items/:id', method: 'GET', status: '200', n: 2 },
        { route: '/items/:id', method: 'HEAD', status: '200', n: 1 },
        { route: '/things/:id', method: 'PUT', status: '204', n: 1 },
        { route: '/things/:id', method: 'DELETE', status: '204', n: 1 },
        { route: '/nested/inner', method: 'GET', status: '200', n: 1 },
        { route: 'unmatched', method: 'GET', status: '404', n: 1 },
        { route: 'unmatched', method: 'OTHER', status: '404', n: 1 },
      ]),
    );
    expect(await series()).toHaveLength(7);
    await app.close();
  });

  it('observes each request once in the duration histogram of its series', async () => {
    const { app, metrics } = await appWithMetrics();
    for (let i = 0; i < 3; i++) await app.inject({ method: 'GET', url: `/items/${i}` });
    const text = await metrics.registry.metrics();
    expect(text).toContain(
      'gengate_http_request_duration_seconds_count{route="/items/:id",method="GET",status="200"} 3',
    );
    expect(text).toContain(
      'gengate_http_request_duration_seconds_bucket{le="+Inf",route="/items/:id",method="GET",status="200"} 3',
    );
    await app.close();
  });
});
