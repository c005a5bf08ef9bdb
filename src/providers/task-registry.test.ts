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
      claude: { type: 'anthropic', base_url: 'http://127.0.0.1:9', api_key: 'k' },
      sim2: { type: 'simulator' },
    },
    routes: {
      'kling-2-1': { provider: 'fal', model: 'fal-ai/kling' },
      'veo-3-fast': [
        { provider: 'claude', model: 'x' },
        { provider: 'fal', model: 'fal-ai/veo3/fast' },
      ],
      'claude-sonnet-4': { provider: 'claude', model: 'claude-sonnet-4-20250514' },
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
    expect(() => registry.resolve(model('veo-3-fast'))).toThrow(
      expect.objectContaining({
        status: 502,
        message: expect.stringContaining('no task adapter for anthropic'),
      }),
    );
    expect(() => registry.resolve(model('x', { provider: 'missing', model: 'y' }))).toThrow(
      expect.objectContaining({ status: 502 }),
    );
  });

  it("lists a model's routes in order, and a catalog route or the simulator without one", () => {
    const registry = new TaskProviderRegistry(providers, simulator);
    expect(registry.routes(model('veo-3-fast'))).toEqual([
      { providerName: 'claude', upstreamModel: 'x' },
      { providerName: 'fal', upstreamModel: 'fal-ai/veo3/fast' },
    ]);
    expect(registry.routes(model('flux', { provider: 'fal', model: 'fal-ai/flux' }))).toEqual([
      { providerName: 'fal', upstreamModel: 'fal-ai/flux' },
    ]);
    expect(registry.routes(model('seedance-2'))).toEqual([
      { providerName: 'simulator', upstreamModel: 'seedance-2' },
    ]);
  });

  it('names every media route to a type without a task adapter, and leaves text routes alone', () => {
    const registry = new TaskProviderRegistry(providers, simulator);
    const kinds: Record<string, 'video' | 'text'> = { 'veo-3-fast': 'video', 'claude-sonnet-4': 'text' };
    expect(registry.problems((id) => kinds[id])).toEqual([
      'routes.veo-3-fast[0]: veo-3-fast is a video model and provider "claude" is of type anthropic, which has no video/image task adapter',
    ]);
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
