// Probes and the version. GET /readyz: ready to serve, i.e. the database answers, Redis answers
// (when REDIS_URL is set) and the schema is at the latest migration; 503 in the error shape naming
// what failed otherwise. (GET /healthz, "alive", only needs the process and its database.) GET
// /version: the API version and the package build. All access 'system': no key, and they keep
// answering in maintenance mode.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { sql } from 'kysely';
import type { AppContext } from '../../../context.js';
import { pendingMigrations } from '../../../storage/migrations.js';
import { API_VERSION } from '../../api-version.js';

/** A check that takes longer than this counts as failed: a probe must answer quickly. */
export const PROBE_TIMEOUT_MS = 2_000;

type CheckResult = 'ok' | 'not_configured' | 'failed';
type Component = 'database' | 'redis' | 'migrations';

function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** The package's version, from the nearest package.json above this file (source or build). */
function packageVersion(): string | undefined {
  let dir = import.meta.dirname;
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
        if (pkg.name === 'gengate') return pkg.version;
      } catch {}
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export function registerProbeRoutes(app: FastifyInstance, ctx: AppContext): void {
  // A connection of the probe's own, made at the first /readyz: it answers for this process's
  // reachability without touching the clients that carry the traffic.
  let redis: Redis | undefined;
  const pingRedis = async (url: string) => {
    if (!redis) {
      const { Redis } = await import('ioredis');
      redis = new Redis(url, {
        lazyConnect: true,
        maxRetriesPerRequest: 1,
        connectTimeout: PROBE_TIMEOUT_MS,
      });
      redis.on('error', () => {}); // failures are reported by the probe, not as unhandled events
    }
    const answer = await redis.ping();
    if (answer !== 'PONG') throw new Error(`PING answered ${answer}`);
  };
  app.addHook('onClose', async () => redis?.disconnect());

  const database = async (): Promise<{ database: CheckResult; migrations: CheckResult; detail?: string }> => {
    try {
      await within(sql`select 1`.execute(ctx.storage.db), PROBE_TIMEOUT_MS, 'the database');
    } catch (error) {
      return { database: 'failed', migrations: 'failed', detail: (error as Error).message };
    }
    try {
      const pending = await within(
        pendingMigrations({ kysely: ctx.storage.db, engine: ctx.storage.engine }),
        PROBE_TIMEOUT_MS,
        'the migration table',
      );
      if (pending.length === 0) return { database: 'ok', migrations: 'ok' };
      return { database: 'ok', migrations: 'failed', detail: `pending migrations: ${pending.join(', ')}` };
    } catch (error) {
      return { database: 'ok', migrations: 'failed', detail: (error as Error).message };
    }
  };
  const redisCheck = async (): Promise<{ redis: CheckResult; detail?: string }> => {
    if (!ctx.config.redisUrl) return { redis: 'not_configured' };
    try {
      await within(pingRedis(ctx.config.redisUrl), PROBE_TIMEOUT_MS, 'Redis');
      return { redis: 'ok' };
    } catch (error) {
      return { redis: 'failed', detail: (error as Error).message };
    }
  };

  app.get('/readyz', { config: { access: 'system' }, schema: { hide: true } }, async (request, reply) => {
    const [db, cache] = await Promise.all([database(), redisCheck()]);
    const checks: Record<Component, CheckResult> = {
      database: db.database,
      redis: cache.redis,
      migrations: db.migrations,
    };
    const failed = (Object.keys(checks) as Component[]).filter((name) => checks[name] === 'failed');
    if (failed.length === 0) return { status: 'ready', checks };
    // The reason goes to the log only: it can name hosts and paths.
    request.log.warn({ checks, database: db.detail, redis: cache.detail }, 'not ready');
    return reply
      .code(503)
      .header('Retry-After', '5')
      .send({
        error: {
          message: `Not ready: ${failed.join(', ')} failed`,
          type: 'service_unavailable',
          code: 'not_ready',
          param: null,
        },
        checks,
      });
  });

  const build = packageVersion();
  app.get('/version', { config: { access: 'system' }, schema: { hide: true } }, async () => ({
    api_version: API_VERSION,
    ...(build ? { build } : {}),
  }));
}
