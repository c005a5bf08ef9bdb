import { describe, expect, it } from 'vitest';
import type { CatalogModel } from '../domain/catalog/model.js';
import { EMPTY_PROVIDERS, parseProvidersConfig } from './config.js';
import { SimulatorProvider } from './simulator/simulator.js';
import type { TaskProvider } from './task-provider.js';
import { TaskProviderRegistry } from './task-registry.js';

const simulator = new SimulatorProvider({ now: () => 0 }, 10);
const model = (id: string, route: CatalogModel['route'] = null) => ({ id, route }) as CatalogModel;
const providers = parseProvidersConfig(
  JSON.stringify({
    providers: {
      fal: { type: 'fal', base_url: 'http://127.0.0.1:9', api_key: 'k' },
      sim2: { type: 'simulator' },
    },
    routes: {
      'kling-2-1': { provider: 'fal', model: 'fal-ai/kling' },
      'sora-2': { provider: 'sim2', model: 'sora' },
    },
  }),
);

describe('TaskProviderRegistry', () => {
  it('routes every model to the simulator without PROVIDERS_FILE', () => {
    const registry = new TaskProviderRegistry(EMPTY_PROVIDERS, simulator);
    expect(registry.resolve(model('seedance-2'))).toEqual({
      providerName: 'simulator',
      upstreamModel: 'seedance-2',
    });
    expect(registry.providerByName('simulator')).toBe(simulator);
  });

  it('follows PROVIDERS_FILE routes, including to a named simulator', () => {
    const registry = new TaskProviderRegistry(providers, simulator);
    expect(registry.resolve(model('sora-2'))).toEqual({ providerName: 'sim2', upstreamModel: 'sora' });
    expect(registry.providerByName('sim2')).toBe(simulator);
  });

  it('refuses, with a clear 502, a route to a provider type that has no task adapter', () => {
    const registry = new TaskProviderRegistry(providers, simulator);
    expect(() => registry.resolve(model('kling-2-1'))).toThrow(
      expect.objectContaining({ status: 502, message: expect.stringContaining('no task adapter for fal') }),
    );
    expect(() => registry.resolve(model('x', { provider: 'missing', model: 'y' }))).toThrow(
      expect.objectContaining({ status: 502 }),
    );
  });

  it('serves a type once its adapter is registered', () => {
    const registry = new TaskProviderRegistry(providers, simulator);
    const fal = { type: 'fal' } as TaskProvider;
    registry.registerType('fal', (settings) => {
      expect(settings.baseUrl).toBe('http://127.0.0.1:9');
      return fal;
    });
    expect(registry.resolve(model('kling-2-1'))).toEqual({
      providerName: 'fal',
      upstreamModel: 'fal-ai/kling',
    });
    expect(registry.providerByName('fal')).toBe(fal);
  });
});
