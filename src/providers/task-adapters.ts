// The media adapter types gengate ships: one entry per upstream API, each in its own folder. The
// registry and the runner never name a provider; they find the adapter of a provider's `type` here.
import type { Clock } from '../services/clock.js';
import { arkAdapterType } from './ark/index.js';
import type { ProviderSettings } from './config.js';
import { falAdapterType } from './fal/index.js';
import { geminiAdapter } from './gemini/index.js';
import { klingAdapterType } from './kling/index.js';
import { openAiMediaAdapter } from './openai/media-index.js';
import { replicateAdapterType } from './replicate/index.js';
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

/** Every shipped media adapter type. Each adapter folder adds its one entry here. */
export const TASK_ADAPTER_TYPES: TaskAdapterType[] = [
  arkAdapterType,
  geminiAdapter,
  falAdapterType,
  openAiMediaAdapter,
  klingAdapterType,
  replicateAdapterType,
];

/** The common check: a provider authenticated by one `api_key`. */
export function requireApiKey(settings: ProviderSettings): string[] {
  return settings.apiKey ? [] : [`providers.${settings.name}.api_key is required for type ${settings.type}`];
}
