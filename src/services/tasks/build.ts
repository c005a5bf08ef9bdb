// Builds the task services of the composition root: providers, object storage, idempotency, the
// create/read use cases and the in-process task signals.
import { join } from 'node:path';
import type { Config } from '../../config.js';
import { ParamsValidator } from '../../domain/tasks/params.js';
import { LocalObjectStore } from '../../objects/local-store.js';
import type { ObjectStore } from '../../objects/object-store.js';
import { loadProvidersConfig, ProvidersFileError } from '../../providers/config.js';
import { SimulatorProvider } from '../../providers/simulator/simulator.js';
import { TaskProviderRegistry } from '../../providers/task-registry.js';
import { ProviderAccountsRepository } from '../../storage/repositories/provider-accounts.js';
import type { Storage } from '../../storage/storage.js';
import type { CatalogService } from '../catalog.js';
import type { Clock } from '../clock.js';
import { IdempotencyService } from '../idempotency.js';
import type { Metrics } from '../metrics.js';
import { ProviderHooks } from '../provider-hooks.js';
import { ProviderPool } from '../provider-pool.js';
import { TaskEvents } from './events.js';
import { TasksService } from './tasks-service.js';

export interface TaskServices {
  tasks: TasksService;
  taskEvents: TaskEvents;
  taskProviders: TaskProviderRegistry;
  /** The PROVIDERS_FILE accounts: weights, health (breaker, down/re-check) and max_concurrency. */
  providerPool: ProviderPool;
  /** Upstream callbacks: each task's callback URL, and POST /hooks/{provider}. */
  providerHooks: ProviderHooks;
  idempotency: IdempotencyService;
  objects: ObjectStore;
}

export async function buildObjectStore(config: Config): Promise<ObjectStore> {
  if (!config.s3Bucket) return new LocalObjectStore(join(config.dataDir, 'objects'));
  // Loaded only when configured: the AWS SDK alone costs a quarter of a second at every start.
  const { createS3ObjectStore } = await import('../../objects/s3-store.js');
  return createS3ObjectStore(config);
}

export async function buildTaskServices(
  config: Config,
  storage: Storage,
  clock: Clock,
  catalog: CatalogService,
  metrics?: Metrics,
): Promise<TaskServices> {
  const taskEvents = new TaskEvents();
  const taskProviders = new TaskProviderRegistry(
    loadProvidersConfig(config.providersFile),
    new SimulatorProvider(clock, config.simLatencyMs),
    clock,
  );
  // A media model routed to a provider that cannot run its tasks stops the start, with every
  // problem listed, instead of answering 502 to each request.
  const kinds = new Map<string, 'video' | 'image' | 'text'>();
  for (const modelId of taskProviders.config.routes.keys()) {
    const model = await catalog.get(modelId);
    if (model) kinds.set(modelId, model.kind);
  }
  const problems = taskProviders.problems((modelId) => kinds.get(modelId));
  if (problems.length > 0) throw new ProvidersFileError(problems);
  const tasks = new TasksService({
    storage,
    clock,
    catalog,
    validator: new ParamsValidator(),
    providers: taskProviders,
    events: taskEvents,
    webhookAllowPrivate: config.webhookAllowPrivate,
    metrics,
  });
  const providerPool = new ProviderPool(
    taskProviders,
    new ProviderAccountsRepository(storage.db, storage.engine),
    clock,
    {
      windowMs: config.providerBreakerWindowMs,
      minRequests: config.providerBreakerMinRequests,
      failurePercent: config.providerBreakerFailurePercent,
      cooldownMs: config.providerBreakerCooldownMs,
      recheckMs: config.providerRecheckMs,
    },
  );
  return {
    tasks,
    taskEvents,
    taskProviders,
    providerPool,
    providerHooks: new ProviderHooks({
      storage,
      clock,
      providers: taskProviders,
      events: taskEvents,
      publicUrl: config.publicUrl,
    }),
    idempotency: new IdempotencyService(storage, clock, config.idempotencyTtlMs),
    objects: await buildObjectStore(config),
  };
}
