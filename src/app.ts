// Composition root: builds storage, services and the HTTP app from a Config. No logic lives here.
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { buildHttpApp } from './http/server.js';
import { ChatRegistry } from './providers/chat-registry.js';
import { loadProvidersConfig } from './providers/config.js';
import { AccountsService } from './services/accounts.js';
import { AuthService } from './services/auth.js';
import { CatalogService } from './services/catalog.js';
import { ChatService } from './services/chat/chat-service.js';
import { type Clock, systemClock } from './services/clock.js';
import {
  ALL_KEYS,
  type KeyInvalidation,
  LocalKeyInvalidation,
  RedisKeyInvalidation,
} from './services/key-invalidation.js';
import { MaintenanceService } from './services/maintenance.js';
import { Metrics } from './services/metrics.js';
import { SyncImageService } from './services/openai/sync-image.js';
import { buildOperatorServices } from './services/operator/build.js';
import { buildPanelServices } from './services/panel/build.js';
import { buildPaymentServices } from './services/payments/build.js';
import { topupEvents } from './services/payments/metrics.js';
import { FlexibleRateLimiter } from './services/rate-limit.js';
import { buildTaskServices } from './services/tasks/build.js';
import { WebhookDeliveryService } from './services/webhooks/delivery.js';
import { type Db, openDatabase } from './storage/db.js';
import { migrateToLatest } from './storage/migrations.js';
import { PgWakeups } from './storage/pg-wakeups.js';
import { readQueueDepth } from './storage/queue-stats.js';
import { Storage } from './storage/storage.js';

export interface Gengate {
  ctx: AppContext;
  http: FastifyInstance;
  close(): Promise<void>;
}

export interface BuildOptions {
  clock?: Clock;
  db?: Db;
}

export async function buildContext(
  config: Config,
  options: BuildOptions = {},
): Promise<{ ctx: AppContext; db: Db; redis?: Redis }> {
  const clock = options.clock ?? systemClock;
  const db = options.db ?? openDatabase(config);
  await migrateToLatest(db);
  const storage = Storage.from(db);
  // ioredis is loaded only when configured: the embedded mode's start skips it.
  const redis = config.redisUrl
    ? new (await import('ioredis')).Redis(config.redisUrl, {
        maxRetriesPerRequest: 2,
        lazyConnect: false,
        // The commands of one event-loop turn (a rate-limit check per request) go out in one write.
        enableAutoPipelining: true,
      })
    : undefined;
  // allowed_models takes catalog ids only (the catalog is built below; asked only once serving).
  const accounts = new AccountsService(storage, clock, async (id) => (await catalog.get(id)) !== undefined);
  const auth = new AuthService(storage, clock, config.keyCacheTtlMs);
  // The rate limiter treats a Redis that is not ready as down (per-process limits meanwhile), so
  // wait for the first connection instead of starting in that state.
  await redis?.ping().catch(() => undefined);
  const keyInvalidation = buildKeyInvalidation(config, redis);
  keyInvalidation.subscribe((hash) => (hash === ALL_KEYS ? auth.invalidateAll() : auth.invalidate(hash)));
  await keyInvalidation.start();
  accounts.onKeyChanged((hash) => keyInvalidation.publish(hash));
  const catalog = new CatalogService(storage, clock);
  await catalog.init();
  const rateLimiter = new FlexibleRateLimiter(redis);
  const metrics = new Metrics({ queueDepth: () => readQueueDepth(storage.db, clock.now()) });
  const taskServices = await buildTaskServices(config, storage, clock, catalog, metrics);
  // Without PROVIDERS_FILE there is no account: the gauges stay empty and a scrape reads nothing.
  metrics.exposeProviderAccounts(async () =>
    taskServices.taskProviders.config.providers.size > 0 ? taskServices.providerPool.status() : [],
  );
  const maintenance = new MaintenanceService(storage, clock);
  const webhooks = new WebhookDeliveryService(storage, clock, config, metrics);
  const panel = buildPanelServices({ storage, clock, accounts, keyInvalidation, rateLimiter });
  const ctx: AppContext = {
    config,
    clock,
    storage,
    accounts,
    catalog,
    maintenance,
    auth,
    keyInvalidation,
    rateLimiter,
    metrics,
    webhooks,
    chat: new ChatService({
      storage,
      catalog,
      clock,
      metrics,
      registry: new ChatRegistry(loadProvidersConfig(config.providersFile), {
        timeoutMs: config.providerTimeoutMs,
        now: () => clock.now(),
      }),
      holdLeaseMs: config.leaseMs,
      onLeaseError: (message, error) =>
        config.logLevel !== 'silent' && console.warn(`[gengate] ${message}:`, error),
    }),
    ...taskServices,
    syncImages: new SyncImageService({ storage, clock, ...taskServices }, { waitMs: config.syncImageWaitMs }),
    panel,
    operator: buildOperatorServices({
      config,
      storage,
      clock,
      rateLimiter,
      accounts,
      catalog,
      maintenance,
      webhooks,
      panelSessions: panel.sessions,
      taskProviders: taskServices.taskProviders,
      providerPool: taskServices.providerPool,
      metrics,
      payments: () => ctx.payments,
    }),
    wakeups: db.engine === 'postgres' && config.databaseUrl ? wakeupsOf(db, config) : undefined,
    payments: undefined as unknown as AppContext['payments'],
  };
  ctx.payments = await buildPaymentServices({
    config,
    storage,
    clock,
    idempotency: ctx.idempotency,
    rateLimiter,
    events: topupEvents(metrics, config),
  });
  // Created tasks wake the task runners of every process. A finished task's webhook is delivered by
  // this process's own sender when it runs one (nudged in-process); only a process without one (an
  // API process finishing a task on a provider's callback or a cancel) wakes the others' senders.
  // A NOTIFY wakes every listening process and its PostgreSQL backend: in the task pipeline the
  // workers' NOTIFYs to each other were 5% of the machine's CPU (bench/NOTES.md, round 9).
  ctx.taskEvents.onCreated(() => ctx.wakeups?.notify('tasks'));
  ctx.taskEvents.onFinished(() => {
    if (!ctx.taskEvents.deliversWebhooks) ctx.wakeups?.notify('webhooks');
  });
  return { ctx, db, redis };
}

function wakeupsOf(db: Db, config: Config): PgWakeups {
  const warn =
    config.logLevel === 'silent'
      ? () => {}
      : (message: string, error: unknown) => console.warn(`[gengate] ${message}:`, error);
  return new PgWakeups(db.kysely, config.databaseUrl!, warn);
}

/** Shared through Redis when there is one, so a key change reaches every process. */
function buildKeyInvalidation(config: Config, redis: Redis | undefined): KeyInvalidation {
  if (!redis) return new LocalKeyInvalidation();
  const warn =
    config.logLevel === 'silent'
      ? () => {}
      : (message: string, error: unknown) => console.warn(`[gengate] ${message}:`, error);
  return new RedisKeyInvalidation(redis, warn);
}

export async function buildGengate(config: Config, options: BuildOptions = {}): Promise<Gengate> {
  const { ctx, db, redis } = await buildContext(config, options);
  const http = await buildHttpApp(ctx);
  return {
    ctx,
    http,
    async close() {
      await http.close();
      await ctx.keyInvalidation.close();
      await ctx.webhooks.close();
      await ctx.chat.close();
      await ctx.wakeups?.close();
      redis?.disconnect();
      if (!options.db) await db.close();
    },
  };
}
