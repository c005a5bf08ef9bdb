// PROVIDERS_FILE: upstream credentials and model routes. Without it, every model routes to the
// simulator. `env:NAME` reads a secret from the environment. A route is one object or a list tried
// in order (fallback); consecutive list entries that give a `weight` form one group that shares
// traffic by weight. A provider is one upstream account: it may cap its jobs in flight with
// `max_concurrency`. Every problem of the file is collected and reported at once.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type YAML from 'yaml';

export const PROVIDER_TYPES = [
  'openai',
  'anthropic',
  'fal',
  'replicate',
  'gemini',
  'ark',
  'kling',
  'simulator',
] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

export interface ProviderSettings {
  name: string;
  type: ProviderType;
  baseUrl: string;
  apiKey: string | undefined;
  /**
   * Every other field of the provider's entry, with `env:` secrets resolved: adapter-specific
   * settings such as Kling's `access_key` and `secret_key` or Replicate's `webhook_secret`.
   */
  options: Record<string, unknown>;
  /** Jobs in flight at this account, across every worker process; undefined: no cap. */
  maxConcurrency?: number;
}

export interface RouteSettings {
  provider: string;
  model: string;
  /** Share of traffic within its group of consecutive weighted entries; undefined: plain fallback. */
  weight?: number;
  /**
   * The operator's cost of this route in micro-rubles per unit of the model (per shot, per second,
   * or per 1M input tokens); absent when not given (the cost is then unknown, never zero).
   */
  costMicro?: number;
  /** Per 1M output tokens (text models); absent: output tokens cost costMicro too. */
  costOutputMicro?: number;
}

/** A route's cost as the settlement reads it; null when the route carries none. */
export function routeCostOf(
  config: ProvidersConfig,
  modelId: string,
  provider: string,
): { costMicro: number; costOutputMicro?: number } | null {
  const route = config.routes.get(modelId)?.find((r) => r.provider === provider);
  if (route?.costMicro === undefined) return null;
  return { costMicro: route.costMicro, costOutputMicro: route.costOutputMicro };
}

/** cost_rub / cost_output_rub: a non-negative ruble figure with at most 6 decimals, else a problem. */
function costField(where: string, value: unknown, problems: string[]): number | undefined {
  if (value === undefined || value === null) return undefined;
  const text =
    typeof value === 'number'
      ? Number.isFinite(value)
        ? String(value)
        : ''
      : typeof value === 'string'
        ? value.trim()
        : '';
  const match = /^(\d+)(?:\.(\d{1,6}))?$/.exec(text);
  if (!match) {
    problems.push(`${where} must be a number of rubles ≥ 0 with at most 6 decimals`);
    return undefined;
  }
  return Number(match[1]) * 1_000_000 + Number((match[2] ?? '').padEnd(6, '0'));
}

export interface ProvidersConfig {
  providers: Map<string, ProviderSettings>;
  /** Each model's routes, in the order they are tried. */
  routes: Map<string, RouteSettings[]>;
}

export const EMPTY_PROVIDERS: ProvidersConfig = { providers: new Map(), routes: new Map() };

export class ProvidersFileError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid PROVIDERS_FILE:\n  - ${problems.join('\n  - ')}`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Resolves `env:NAME` in every string field; a missing variable is a problem, not an empty secret. */
function resolveSecrets(
  where: string,
  raw: Record<string, unknown>,
  env: Record<string, string | undefined>,
  problems: string[],
): Record<string, unknown> {
  const resolved: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(raw)) {
    if (typeof value === 'string' && value.startsWith('env:')) {
      const variable = value.slice(4);
      resolved[field] = env[variable];
      if (env[variable] === undefined)
        problems.push(`${where}.${field}: environment variable ${variable} is not set`);
    } else resolved[field] = value;
  }
  return resolved;
}

export function parseProvidersConfig(
  text: string,
  env: Record<string, string | undefined> = process.env,
): ProvidersConfig {
  let data: unknown;
  try {
    data = (text.trimStart().startsWith('{') ? JSON.parse(text) : loadYaml().parse(text)) ?? {};
  } catch (error) {
    throw new ProvidersFileError([`the file is not valid JSON or YAML: ${(error as Error).message}`]);
  }
  if (!isObject(data)) throw new ProvidersFileError(['the file must be an object with providers and routes']);
  const problems: string[] = [];
  for (const key of Object.keys(data))
    if (key !== 'providers' && key !== 'routes') problems.push(`unknown top-level field "${key}"`);
  const providers = new Map<string, ProviderSettings>();
  const rawProviders = data.providers ?? {};
  if (!isObject(rawProviders)) problems.push('providers must be an object of named providers');
  for (const [name, raw] of Object.entries(isObject(rawProviders) ? rawProviders : {})) {
    if (!isObject(raw)) {
      problems.push(`providers.${name} must be an object`);
      continue;
    }
    if (!PROVIDER_TYPES.includes(raw.type as ProviderType)) {
      problems.push(`providers.${name}.type must be one of ${PROVIDER_TYPES.join(', ')}`);
      continue;
    }
    const { type, base_url, api_key, max_concurrency, ...rest } = resolveSecrets(
      `providers.${name}`,
      raw,
      env,
      problems,
    );
    if (
      max_concurrency !== undefined &&
      (typeof max_concurrency !== 'number' || !Number.isInteger(max_concurrency) || max_concurrency < 1)
    )
      problems.push(`providers.${name}.max_concurrency must be a positive integer`);
    if (type !== 'simulator' && (typeof base_url !== 'string' || !/^https?:\/\//.test(base_url)))
      problems.push(`providers.${name}.base_url is required: an http(s) URL`);
    if (api_key !== undefined && typeof api_key !== 'string')
      problems.push(`providers.${name}.api_key must be a string`);
    providers.set(name, {
      name,
      type: type as ProviderType,
      baseUrl: String(base_url ?? '').replace(/\/+$/, ''),
      apiKey: typeof api_key === 'string' ? api_key : undefined,
      options: rest,
      ...(typeof max_concurrency === 'number' ? { maxConcurrency: max_concurrency } : {}),
    });
  }
  const routes = new Map<string, RouteSettings[]>();
  const rawRoutes = data.routes ?? {};
  if (!isObject(rawRoutes)) problems.push('routes must be an object keyed by model id');
  for (const [modelId, raw] of Object.entries(isObject(rawRoutes) ? rawRoutes : {})) {
    const list = Array.isArray(raw) ? raw : [raw];
    if (list.length === 0) problems.push(`routes.${modelId} must list at least one route`);
    const parsed: RouteSettings[] = [];
    list.forEach((entry, index) => {
      const where = Array.isArray(raw) ? `routes.${modelId}[${index}]` : `routes.${modelId}`;
      if (!isObject(entry)) {
        problems.push(`${where} must be an object {provider, model}`);
        return;
      }
      if (typeof entry.provider !== 'string' || !providers.has(entry.provider)) {
        problems.push(`${where}.provider must name a configured provider`);
        return;
      }
      if (entry.model !== undefined && typeof entry.model !== 'string')
        problems.push(`${where}.model must be a string`);
      const weight = entry.weight;
      if (weight !== undefined && (typeof weight !== 'number' || !Number.isFinite(weight) || weight <= 0))
        problems.push(`${where}.weight must be a positive number`);
      const costMicro = costField(`${where}.cost_rub`, entry.cost_rub, problems);
      const costOutputMicro = costField(`${where}.cost_output_rub`, entry.cost_output_rub, problems);
      parsed.push({
        provider: entry.provider,
        model: typeof entry.model === 'string' ? entry.model : modelId,
        ...(typeof weight === 'number' && weight > 0 ? { weight } : {}),
        ...(costMicro === undefined ? {} : { costMicro }),
        ...(costOutputMicro === undefined ? {} : { costOutputMicro }),
      });
    });
    routes.set(modelId, parsed);
  }
  if (problems.length > 0) throw new ProvidersFileError(problems);
  return { providers, routes };
}

/** The YAML parser is loaded only for a YAML file: most starts have none. */
function loadYaml(): typeof YAML {
  return createRequire(import.meta.url)('yaml') as typeof YAML;
}

export function loadProvidersConfig(file: string | undefined): ProvidersConfig {
  if (!file) return EMPTY_PROVIDERS;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ProvidersFileError([`cannot read ${file}: ${(error as Error).message}`]);
  }
  return parseProvidersConfig(text);
}
