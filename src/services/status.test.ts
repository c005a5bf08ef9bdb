// The status report's rules: health from figures, the headline, which providers are listed and
// what they are credited with, the cache, and what it says when the database or Redis is down.
import { describe, expect, it } from 'vitest';
import type { CatalogModel } from '../domain/catalog/model.js';
import type { ProviderCounts, StatusRepository } from '../storage/repositories/status.js';
import type { WorkerHeartbeatsRepository } from '../storage/repositories/worker-heartbeats.js';
import {
  type ComponentStatus,
  overallHealth,
  providerHealth,
  QUEUE_DEGRADED_MS,
  STATUS_CACHE_MS,
  type StatusDeps,
  StatusService,
  workersHealth,
} from './status.js';

const counts = (succeeded: number, failed: number, recentSucceeded = succeeded, recentFailed = failed) =>
  ({ succeeded, failed, recentSucceeded, recentFailed }) satisfies ProviderCounts;

function model(id: string, kind: CatalogModel['kind'], route: string | null, active = true): CatalogModel {
  return {
    id,
    name: id,
    provider: 'x',
    kind,
    unit: 'shot',
    priceMicro: 1,
    priceOutputMicro: 1,
    active,
    visible: true,
    vision: false,
    route: route ? { provider: route, model: id } : null,
    paramsSchema: null,
    billing: null,
    updatedAt: 0,
  };
}

function fakeDeps(overrides: Partial<StatusDeps> = {}) {
  let now = 1_000_000_000;
  const calls = { figures: 0 };
  const status = {
    async taskFamilies() {
      calls.figures++;
      return new Map([['video', { succeeded: 2, failed: 1, medianMs: 12_345 }]]);
    },
    async chatFamily() {
      return { succeeded: 3, failed: 1, medianMs: 250 };
    },
    async taskProviders() {
      return new Map([['fal', counts(2, 1)]]);
    },
    async chatModels() {
      return new Map([
        ['gpt-4o', counts(3, 0)],
        ['claude-sonnet-4', counts(0, 1)],
      ]);
    },
    async oldestRunnableSince() {
      return null;
    },
  } as unknown as StatusRepository;
  const heartbeats = { liveCount: async () => 2 } as unknown as WorkerHeartbeatsRepository;
  const models = [
    model('seedance-2', 'video', 'fal'),
    model('gpt-4o', 'text', 'openai'),
    model('claude-sonnet-4', 'text', null),
    model('old', 'image', 'retired', false),
  ];
  const deps: StatusDeps = {
    clock: { now: () => now },
    status,
    heartbeats,
    pingDatabase: async () => {},
    maintenance: async () => false,
    models: async () => models,
    configuredProviders: ['openai', 'fal', 'idle'],
    providerOf: (m) => m.route?.provider ?? 'simulator',
    providerTimeoutMs: 600_000,
    ...overrides,
  };
  return {
    deps,
    calls,
    advance(ms: number) {
      now += ms;
    },
  };
}

describe('health rules', () => {
  it('a provider is judged on at least five recent requests', () => {
    expect(providerHealth({ recentSucceeded: 0, recentFailed: 4 })).toBe('operational');
    expect(providerHealth({ recentSucceeded: 9, recentFailed: 1 })).toBe('operational');
    expect(providerHealth({ recentSucceeded: 8, recentFailed: 2 })).toBe('degraded');
    expect(providerHealth({ recentSucceeded: 5, recentFailed: 5 })).toBe('degraded');
    expect(providerHealth({ recentSucceeded: 1, recentFailed: 4 })).toBe('down');
  });

  it('workers: none alive is down, a stale queue is degraded', () => {
    expect(workersHealth(0, 0)).toBe('down');
    expect(workersHealth(1, QUEUE_DEGRADED_MS - 1)).toBe('operational');
    expect(workersHealth(3, QUEUE_DEGRADED_MS)).toBe('degraded');
  });

  it('the headline: maintenance, then a core component down, then anything amiss', () => {
    const c = (type: ComponentStatus['type'], status: ComponentStatus['status']): ComponentStatus => ({
      id: `${type}-${status}`,
      name: 'x',
      type,
      status,
    });
    expect(overallHealth([c('core', 'operational'), c('provider', 'operational')])).toBe('operational');
    expect(overallHealth([c('core', 'operational'), c('provider', 'down')])).toBe('degraded');
    expect(overallHealth([c('core', 'down'), c('provider', 'operational')])).toBe('down');
    expect(overallHealth([c('core', 'maintenance'), c('core', 'down')])).toBe('maintenance');
    expect(overallHealth([c('core', 'unknown')])).toBe('degraded');
  });
});

describe('StatusService', () => {
  it('lists configured providers first, then the others that serve active models, with chat credited by route', async () => {
    const { deps } = fakeDeps();
    const report = await new StatusService(deps).report();
    expect(report.components.map((c) => c.id)).toEqual([
      'api',
      'database',
      'workers',
      'provider:openai',
      'provider:fal',
      'provider:idle',
      'provider:simulator',
    ]);
    const byId = Object.fromEntries(report.components.map((c) => [c.id, c]));
    expect(byId.workers.workers).toEqual({ live: 2, queue_wait_seconds: 0 });
    expect(byId['provider:openai'].last_hour).toEqual({ succeeded: 3, failed: 0, success_rate: 1 });
    expect(byId['provider:fal'].last_hour).toEqual({ succeeded: 2, failed: 1, success_rate: 0.6667 });
    expect(byId['provider:idle'].last_hour).toEqual({ succeeded: 0, failed: 0, success_rate: null });
    // claude-sonnet-4 has no route: the simulator serves it.
    expect(byId['provider:simulator'].last_hour).toEqual({ succeeded: 0, failed: 1, success_rate: 0 });
    // The inactive model's provider is not listed.
    expect(byId['provider:retired']).toBeUndefined();
    expect(report.families).toEqual([
      { family: 'video', succeeded: 2, failed: 1, success_rate: 0.6667, median_seconds: 12.3 },
      { family: 'image', succeeded: 0, failed: 0, success_rate: null, median_seconds: null },
      { family: 'text', succeeded: 3, failed: 1, success_rate: 0.75, median_seconds: 0.3 },
    ]);
    expect(report.status).toBe('operational');
  });

  it('computes once per cache period, and once for requests that arrive together', async () => {
    const { deps, calls, advance } = fakeDeps();
    const service = new StatusService(deps);
    const [a, b] = await Promise.all([service.report(), service.report()]);
    expect(a).toBe(b);
    expect(calls.figures).toBe(1);
    advance(STATUS_CACHE_MS - 1);
    expect(await service.report()).toBe(a);
    expect(calls.figures).toBe(1);
    advance(1);
    const c = await service.report();
    expect(calls.figures).toBe(2);
    expect(c.updated_at).not.toBe(a.updated_at);
  });

  it('says the database is down and does not guess the rest', async () => {
    const { deps, calls } = fakeDeps({
      pingDatabase: async () => {
        throw new Error('connection refused');
      },
    });
    const report = await new StatusService(deps).report();
    expect(calls.figures).toBe(0);
    expect(report.status).toBe('down');
    const byId = Object.fromEntries(report.components.map((c) => [c.id, c]));
    expect(byId.database.status).toBe('down');
    expect(byId.workers.status).toBe('unknown');
    expect(byId['provider:fal'].status).toBe('unknown');
    expect(report.families).toEqual([]);
    // The reason (it could name a host) is never part of the report.
    expect(JSON.stringify(report)).not.toContain('refused');
  });

  it('shows Redis only when configured, down when it does not answer', async () => {
    const { deps } = fakeDeps({
      pingRedis: () => new Promise((_, reject) => setTimeout(() => reject(new Error('ECONNREFUSED')), 5)),
    });
    const report = await new StatusService(deps).report();
    expect(report.components.find((c) => c.id === 'redis')).toMatchObject({ type: 'core', status: 'down' });
    expect(report.status).toBe('down');
  });

  it('shows maintenance mode, and no live worker as down', async () => {
    const { deps } = fakeDeps({
      maintenance: async () => true,
      heartbeats: { liveCount: async () => 0 } as unknown as WorkerHeartbeatsRepository,
    });
    const report = await new StatusService(deps).report();
    expect(report.status).toBe('maintenance');
    expect(report.components.find((c) => c.id === 'api')?.status).toBe('maintenance');
    expect(report.components.find((c) => c.id === 'workers')?.status).toBe('down');
  });
});
