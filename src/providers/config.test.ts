// PROVIDERS_FILE parsing: route lists, `env:` secrets in any field, and every problem listed at once.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readCatalogFile } from '../services/catalog.js';
import { ProvidersFileError, parseProvidersConfig } from './config.js';
import { SimulatorProvider } from './simulator/simulator.js';
import { TaskProviderRegistry } from './task-registry.js';

function problemsOf(text: string, env: Record<string, string> = {}): string[] {
  try {
    parseProvidersConfig(text, env);
  } catch (error) {
    if (error instanceof ProvidersFileError) return error.problems;
    throw error;
  }
  return [];
}

describe('parseProvidersConfig', () => {
  it('reads a route cost (cost_rub, cost_output_rub) into micro-rubles, and refuses a bad one', () => {
    const config = parseProvidersConfig(
      JSON.stringify({
        providers: { sim: { type: 'simulator' } },
        routes: {
          'gpt-4o': { provider: 'sim', cost_rub: 250.5, cost_output_rub: '1000.000001' },
          'seedream-4': { provider: 'sim' },
        },
      }),
    );
    expect(config.routes.get('gpt-4o')?.[0]).toEqual({
      provider: 'sim',
      model: 'gpt-4o',
      costMicro: 250_500_000,
      costOutputMicro: 1_000_000_001,
    });
    expect(config.routes.get('seedream-4')?.[0]).toEqual({ provider: 'sim', model: 'seedream-4' });
    const problems = problemsOf(
      JSON.stringify({
        providers: { sim: { type: 'simulator' } },
        routes: {
          a: { provider: 'sim', cost_rub: -1 },
          b: { provider: 'sim', cost_rub: '1.1234567' },
          c: { provider: 'sim', cost_output_rub: 'free' },
        },
      }),
    );
    expect(problems).toEqual([
      'routes.a.cost_rub must be a number of rubles ≥ 0 with at most 6 decimals',
      'routes.b.cost_rub must be a number of rubles ≥ 0 with at most 6 decimals',
      'routes.c.cost_output_rub must be a number of rubles ≥ 0 with at most 6 decimals',
    ]);
  });

  it('reads YAML with route lists, single routes and env: secrets in any field', () => {
    const config = parseProvidersConfig(
      [
        'providers:',
        '  kling: {type: kling, base_url: "https://api-singapore.klingai.com/", access_key: "env:AK", secret_key: "env:SK"}',
        '  fal: {type: fal, base_url: "https://queue.fal.run", api_key: "env:FAL_KEY"}',
        'routes:',
        '  kling-2-1:',
        '    - {provider: kling, model: kling-v2-1}',
        '    - {provider: fal, model: fal-ai/kling-video/v2.1/standard/text-to-video}',
        '  flux-1-1-pro: {provider: fal}',
      ].join('\n'),
      { AK: 'ak-1', SK: 'sk-1', FAL_KEY: 'fal-1' },
    );
    expect(config.providers.get('kling')).toEqual({
      name: 'kling',
      type: 'kling',
      baseUrl: 'https://api-singapore.klingai.com',
      apiKey: undefined,
      options: { access_key: 'ak-1', secret_key: 'sk-1' },
    });
    expect(config.providers.get('fal')?.apiKey).toBe('fal-1');
    expect(config.routes.get('kling-2-1')).toEqual([
      { provider: 'kling', model: 'kling-v2-1' },
      { provider: 'fal', model: 'fal-ai/kling-video/v2.1/standard/text-to-video' },
    ]);
    // A route without a model sends the public id upstream.
    expect(config.routes.get('flux-1-1-pro')).toEqual([{ provider: 'fal', model: 'flux-1-1-pro' }]);
  });

  it('lists every problem of the file together', () => {
    expect(
      problemsOf(
        JSON.stringify({
          providers: {
            a: { type: 'midjourney' },
            b: { type: 'fal' },
            c: { type: 'kling', base_url: 'https://k', secret_key: 'env:MISSING' },
            d: 'not an object',
          },
          routes: {
            'kling-2-1': [{ provider: 'c' }, { provider: 'nowhere' }, 'x'],
            'sora-2': [],
          },
          extra: true,
        }),
      ),
    ).toEqual([
      'unknown top-level field "extra"',
      'providers.a.type must be one of openai, anthropic, fal, replicate, gemini, ark, kling, simulator',
      'providers.b.base_url is required: an http(s) URL',
      'providers.c.secret_key: environment variable MISSING is not set',
      'providers.d must be an object',
      'routes.kling-2-1[1].provider must name a configured provider',
      'routes.kling-2-1[2] must be an object {provider, model}',
      'routes.sora-2 must list at least one route',
    ]);
  });

  it('reads accounts with max_concurrency and route entries with weight', () => {
    const config = parseProvidersConfig(
      [
        'providers:',
        '  fal-a: {type: fal, base_url: "https://queue.fal.run", api_key: k1, max_concurrency: 4}',
        '  fal-b: {type: fal, base_url: "https://queue.fal.run", api_key: k2}',
        'routes:',
        '  kling-2-1:',
        '    - {provider: fal-a, weight: 3}',
        '    - {provider: fal-b, weight: 1.5}',
      ].join('\n'),
    );
    expect(config.providers.get('fal-a')).toMatchObject({ maxConcurrency: 4, options: {} });
    expect(config.providers.get('fal-b')?.maxConcurrency).toBeUndefined();
    expect(config.routes.get('kling-2-1')).toEqual([
      { provider: 'fal-a', model: 'kling-2-1', weight: 3 },
      { provider: 'fal-b', model: 'kling-2-1', weight: 1.5 },
    ]);
    expect(
      problemsOf(
        JSON.stringify({
          providers: {
            a: { type: 'fal', base_url: 'https://q', api_key: 'k', max_concurrency: 0 },
            b: { type: 'fal', base_url: 'https://q', api_key: 'k', max_concurrency: '5' },
          },
          routes: {
            'kling-2-1': [
              { provider: 'a', weight: 0 },
              { provider: 'b', weight: 'heavy' },
            ],
          },
        }),
      ),
    ).toEqual([
      'providers.a.max_concurrency must be a positive integer',
      'providers.b.max_concurrency must be a positive integer',
      'routes.kling-2-1[0].weight must be a positive number',
      'routes.kling-2-1[1].weight must be a positive number',
    ]);
  });

  it('refuses a file that is not JSON or YAML, or not an object', () => {
    expect(problemsOf('{ not json')[0]).toMatch(/^the file is not valid JSON or YAML/);
    expect(problemsOf('- a\n- b')).toEqual(['the file must be an object with providers and routes']);
  });
});

describe('providers.example.yaml', () => {
  it('loads, routes only media models of the default catalog, and passes every adapter check', () => {
    const text = readFileSync(new URL('../../providers.example.yaml', import.meta.url), 'utf8');
    const env = Object.fromEntries(
      [...text.matchAll(/env:([A-Z_]+)/g)].map(([, name]) => [
        name,
        name.endsWith('WEBHOOK_SECRET')
          ? `whsec_${Buffer.from(name).toString('base64')}`
          : `secret-${name.toLowerCase()}`,
      ]),
    );
    const config = parseProvidersConfig(text, env);
    const catalog = new Map(
      readCatalogFile(new URL('../domain/catalog/default-models.json', import.meta.url), 0).map((m) => [
        m.id,
        m,
      ]),
    );
    for (const modelId of config.routes.keys()) expect(catalog.get(modelId)?.kind).toMatch(/^(video|image)$/);
    const media = [...catalog.values()].filter((m) => m.kind !== 'text' && !m.id.includes(':') && m.visible);
    expect(media.map((m) => m.id).filter((id) => !config.routes.has(id))).toEqual([]);
    const registry = new TaskProviderRegistry(config, new SimulatorProvider({ now: () => 0 }, 10));
    expect(registry.problems((id) => catalog.get(id)?.kind)).toEqual([]);
    for (const { provider } of registry.configured()) expect(provider?.check).toBeTypeOf('function');
  });
});
