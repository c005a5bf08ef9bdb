// A PROVIDERS_FILE entry of type anthropic → the native adapter's endpoint. Extra fields:
//   compat: true        → use Anthropic's OpenAI compatibility layer instead (see chat-registry.ts)
//   anthropic_version   → the anthropic-version header (default 2023-06-01)
//   anthropic_beta      → an anthropic-beta header (comma-separated betas)
//   max_tokens          → max_tokens for requests that give none (default: the model's own limit)
import { type ProviderSettings, ProvidersFileError } from '../config.js';
import type { AnthropicEndpoint } from './chat.js';

/** True when the entry asks for the OpenAI compatibility layer rather than the native Messages API. */
export function usesCompatLayer(settings: ProviderSettings): boolean {
  return settings.options.compat === true;
}

export function anthropicEndpoint(settings: ProviderSettings): AnthropicEndpoint {
  const { anthropic_version: version, anthropic_beta: beta, max_tokens: maxTokens } = settings.options;
  const where = `providers.${settings.name}`;
  // Every problem at once, in the same error PROVIDERS_FILE parsing throws, so the start lists them.
  const problems: string[] = [];
  if (version !== undefined && typeof version !== 'string')
    problems.push(`${where}.anthropic_version must be a string such as 2023-06-01`);
  if (beta !== undefined && typeof beta !== 'string')
    problems.push(`${where}.anthropic_beta must be a string`);
  if (
    maxTokens !== undefined &&
    !(typeof maxTokens === 'number' && Number.isSafeInteger(maxTokens) && maxTokens > 0)
  )
    problems.push(`${where}.max_tokens must be a positive integer`);
  if (problems.length > 0) throw new ProvidersFileError(problems);
  return {
    name: settings.name,
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey,
    version: version as string | undefined,
    beta: beta as string | undefined,
    maxTokens: maxTokens as number | undefined,
  };
}
