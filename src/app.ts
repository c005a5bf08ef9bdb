// Composition root: builds storage, services and the HTTP app from a Config. No logic lives here.
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { buildHttpApp } from './http/server.js';
import { AccountsService } from './services/accounts.js';
import { AuthService } from './services/auth.js';
import { CatalogService } from './services/catalog.js';
import { type Clock, systemClock } from './services/clock.js';
import { MaintenanceService } from './services/maintenance.js';
import { FlexibleRateLimiter } from './services/rate-limit.js';
import { type Db, openDatabase } from './storage/db.js';
import { migrateToLatest } from './storage/migrations.js';
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

export async function buildContext(config: Config, options: BuildOptions = {}): Promise<{ ctx: AppContext; db: Db; redis?: Redis }> {
  const clock = options.clock ?? systemClock;
  const db = options.db ?? openDatabase(config);
  await migrateToLatest(db);
  const storage = Storage.from(db);
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2, lazyConnect: false }) : undefined;
  const accounts = new AccountsService(storage, clock);
  const auth = new AuthService(storage, clock);
  accounts.onKeyChanged((hash) => auth.invalidate(hash));
  const catalog = new CatalogService(storage, clock);
  await catalog.init();
  const ctx: AppContext = {
    config,
    clock,
    storage,
    accounts,
    catalog,
    maintenance: new MaintenanceService(storage, clock),
    auth,
    rateLimiter: new FlexibleRateLimiter(redis),
  };
  return { ctx, db, redis };
}

export async function buildGengate(config: Config, options: BuildOptions = {}): Promise<Gengate> {
  const { ctx, db, redis } = await buildContext(config, options);
  const http = await buildHttpApp(ctx);
  return {
    ctx,
    http,
    async close() {
      await http.close();
      redis?.disconnect();
      if (!options.db) await db.close();
    },
  };
}
