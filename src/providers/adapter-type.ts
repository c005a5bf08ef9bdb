// What a media adapter type provides to the registry: the settings check that runs at start and
// the factory of its TaskProvider. Each adapter folder's index.ts exports one.
import type { Clock } from '../services/clock.js';
import type { ProviderSettings } from './config.js';
import type { TaskProvider } from './task-provider.js';

export interface AdapterDeps {
  clock: Clock;
}

export interface TaskAdapterType {
  type: string;
  /** Problems with a provider's settings (a missing api_key, …), listed when the start is refused. */
  validate(settings: ProviderSettings): string[];
  create(settings: ProviderSettings, deps: AdapterDeps): TaskProvider;
}

/** The common check: a provider authenticated by one `api_key`. */
export function requireApiKey(settings: ProviderSettings): string[] {
  return settings.apiKey ? [] : [`providers.${settings.name}.api_key is required for type ${settings.type}`];
}
