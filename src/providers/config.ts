// PROVIDERS_FILE: upstream credentials and model routes (DESIGN.md section 5). Without it, every
// model routes to the simulator. `env:NAME` reads a secret from the environment.
import { readFileSync } from 'node:fs';
import YAML from 'yaml';

export type ProviderType = 'openai' | 'anthropic' | 'fal' | 'replicate' | 'simulator';
const TYPES: ProviderType[] = ['openai', 'anthropic', 'fal', 'replicate', 'simulator'];

export interface ProviderSettings {
  name: string;
  type: ProviderType;
  baseUrl: string;
  apiKey: string | undefined;
}

export interface RouteSettings {
  provider: string;
  model: string;
}

export interface ProvidersConfig {
  providers: Map<string, ProviderSettings>;
  routes: Map<string, RouteSettings>;
}

export const EMPTY_PROVIDERS: ProvidersConfig = { providers: new Map(), routes: new Map() };

export function parseProvidersConfig(
  text: string,
  env: Record<string, string | undefined> = process.env,
): ProvidersConfig {
  const data = (text.trimStart().startsWith('{') ? JSON.parse(text) : YAML.parse(text)) ?? {};
  const problems: string[] = [];
  const providers = new Map<string, ProviderSettings>();
  for (const [name, raw] of Object.entries<any>(data.providers ?? {})) {
    if (!TYPES.includes(raw?.type)) {
      problems.push(`providers.${name}.type must be one of ${TYPES.join(', ')}`);
      continue;
    }
    if (raw.type !== 'simulator' && typeof raw.base_url !== 'string')
      problems.push(`providers.${name}.base_url is required`);
    let apiKey: string | undefined = raw.api_key;
    if (typeof apiKey === 'string' && apiKey.startsWith('env:')) {
      apiKey = env[apiKey.slice(4)];
      if (apiKey === undefined)
        problems.push(`providers.${name}.api_key: environment variable ${raw.api_key.slice(4)} is not set`);
    }
    providers.set(name, {
      name,
      type: raw.type,
      baseUrl: String(raw.base_url ?? '').replace(/\/+$/, ''),
      apiKey,
    });
  }
  const routes = new Map<string, RouteSettings>();
  for (const [modelId, raw] of Object.entries<any>(data.routes ?? {})) {
    if (typeof raw?.provider !== 'string' || !providers.has(raw.provider)) {
      problems.push(`routes.${modelId}.provider must name a configured provider`);
      continue;
    }
    routes.set(modelId, {
      provider: raw.provider,
      model: typeof raw.model === 'string' ? raw.model : modelId,
    });
  }
  if (problems.length > 0) throw new Error(`invalid PROVIDERS_FILE:\n  - ${problems.join('\n  - ')}`);
  return { providers, routes };
}

export function loadProvidersConfig(file: string | undefined): ProvidersConfig {
  return file ? parseProvidersConfig(readFileSync(file, 'utf8')) : EMPTY_PROVIDERS;
}
