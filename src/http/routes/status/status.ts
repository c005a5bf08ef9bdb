// GET /status (HTML) and GET /status.json: the public status page. Access 'system': no key, no rate
// limit, and it keeps answering in maintenance mode (it says so). The report is computed at most
// once per STATUS_CACHE_MS per process and the answer may be cached as long by browsers and proxies,
// so the page cannot be used to load the database.
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { sql } from 'kysely';
import type { AppContext } from '../../../context.js';
import { STATUS_CACHE_MS, StatusService } from '../../../services/status.js';
import { StatusRepository } from '../../../storage/repositories/status.js';
import { WorkerHeartbeatsRepository } from '../../../storage/repositories/worker-heartbeats.js';
import { renderStatusPage } from './page.js';

const health = { type: 'string', enum: ['operational', 'degraded', 'down', 'maintenance', 'unknown'] };
const rate = { type: ['number', 'null'], minimum: 0, maximum: 1 };

/** The answer's schema: Fastify serializes by it, so nothing outside it can leak into the answer. */
export const STATUS_REPORT_SCHEMA = {
  type: 'object',
  required: ['status', 'updated_at', 'window_seconds', 'components', 'families'],
  properties: {
    status: { ...health, description: 'The headline: down when a core component is down' },
    updated_at: { type: 'string', format: 'date-time' },
    window_seconds: { type: 'integer', description: 'The figures cover this many seconds up to updated_at' },
    components: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name', 'type', 'status'],
        properties: {
          id: { type: 'string', description: 'api, database, redis, workers, or provider:NAME' },
          name: { type: 'string' },
          type: { type: 'string', enum: ['core', 'provider'] },
          status: health,
          workers: {
            type: 'object',
            required: ['live', 'queue_wait_seconds'],
            properties: {
              live: { type: 'integer', description: 'Worker processes that reported in the last 15 s' },
              queue_wait_seconds: {
                type: 'integer',
                description: 'How long the oldest runnable task has waited',
              },
            },
          },
          last_hour: {
            type: 'object',
            required: ['succeeded', 'failed', 'success_rate'],
            properties: { succeeded: { type: 'integer' }, failed: { type: 'integer' }, success_rate: rate },
          },
        },
      },
    },
    families: {
      type: 'array',
      items: {
        type: 'object',
        required: ['family', 'succeeded', 'failed', 'success_rate', 'median_seconds'],
        properties: {
          family: { type: 'string', enum: ['video', 'image', 'text'] },
          succeeded: { type: 'integer' },
          failed: { type: 'integer' },
          success_rate: rate,
          median_seconds: {
            type: ['number', 'null'],
            description: 'Median time from request to result of the succeeded ones',
          },
        },
      },
    },
  },
} as const;

const CACHE_CONTROL = `public, max-age=${STATUS_CACHE_MS / 1000}`;

export function registerStatusRoutes(app: FastifyInstance, ctx: AppContext): void {
  // A Redis connection of the page's own, opened at the first report that needs it.
  let redis: Redis | undefined;
  const redisUrl = ctx.config.redisUrl;
  const pingRedis = redisUrl
    ? async () => {
        if (!redis) {
          const { Redis } = await import('ioredis');
          redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2_000 });
          redis.on('error', () => {}); // a failure shows on the page, not as an unhandled event
        }
        if ((await redis.ping()) !== 'PONG') throw new Error('Redis did not answer PONG');
      }
    : undefined;
  app.addHook('onClose', async () => redis?.disconnect());

  const service = new StatusService({
    clock: ctx.clock,
    status: new StatusRepository(ctx.storage.db),
    heartbeats: new WorkerHeartbeatsRepository(ctx.storage.db),
    pingDatabase: async () => {
      await sql`select 1`.execute(ctx.storage.db);
    },
    pingRedis,
    maintenance: () => ctx.maintenance.isEnabled(),
    models: () => ctx.catalog.all(),
    configuredProviders: [...ctx.taskProviders.config.providers.keys()],
    providerOf: (model) => ctx.taskProviders.routes(model)[0].providerName,
    providerTimeoutMs: ctx.config.providerTimeoutMs,
  });

  app.get(
    '/status.json',
    {
      config: { access: 'system' },
      schema: {
        summary: 'Public status: health of each component and the last hour per model family',
        tags: ['system'],
        response: { 200: STATUS_REPORT_SCHEMA },
      },
    },
    async (_request, reply) => {
      reply.header('Cache-Control', CACHE_CONTROL);
      return service.report();
    },
  );

  app.get(
    '/status',
    {
      config: { access: 'system' },
      schema: { summary: 'The public status page (HTML)', tags: ['system'] },
    },
    async (_request, reply) => {
      const report = await service.report();
      return reply
        .header('Cache-Control', CACHE_CONTROL)
        .header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'")
        .type('text/html; charset=utf-8')
        .send(renderStatusPage(report));
    },
  );
}
