// The default max_tokens for a request without one, and the provider settings that change it.
import { describe, expect, it } from 'vitest';
import { defaultMaxTokens, FALLBACK_MAX_TOKENS } from './max-tokens.js';
import { anthropicEndpoint, usesCompatLayer } from './settings.js';

describe('defaultMaxTokens', () => {
  it.each([
    ['claude-sonnet-4-5-20250929', 64_000],
    ['claude-sonnet-4-5', 64_000],
    ['claude-3-5-haiku-latest', 8_192],
    ['claude-opus-4-1@20250805', 32_000],
    ['claude-opus-4-5-20251101', 32_000],
    ['claude-3-haiku-20240307', FALLBACK_MAX_TOKENS],
    ['some-proxy-model', FALLBACK_MAX_TOKENS],
  ])('%s → %i', (model, limit) => {
    expect(defaultMaxTokens(model)).toBe(limit);
  });
});

describe('anthropic provider settings', () => {
  const settings = (options: Record<string, unknown>) => ({
    name: 'claude',
    type: 'anthropic' as const,
    baseUrl: 'https://api.anthropic.com',
    apiKey: 'k',
    options,
  });

  it('reads compat, anthropic_version, anthropic_beta and max_tokens', () => {
    expect(usesCompatLayer(settings({ compat: true }))).toBe(true);
    expect(usesCompatLayer(settings({}))).toBe(false);
    expect(
      anthropicEndpoint(settings({ anthropic_version: '2023-01-01', anthropic_beta: 'b1', max_tokens: 512 })),
    ).toMatchObject({
      version: '2023-01-01',
      beta: 'b1',
      maxTokens: 512,
    });
  });

  it('refuses settings of the wrong type, naming the field', () => {
    expect(() => anthropicEndpoint(settings({ max_tokens: 0 }))).toThrow(
      'providers.claude.max_tokens must be a positive integer',
    );
    expect(() => anthropicEndpoint(settings({ anthropic_version: 1 }))).toThrow(
      'providers.claude.anthropic_version',
    );
  });
});
