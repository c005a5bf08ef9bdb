// The `openai` task adapter type: gpt-image-1 and sora-2 tasks of providers of type openai (the same
// provider entry also serves chat through ./chat.ts). Options besides base_url and api_key:
// - webhook_secret: the project's Standard Webhooks secret (`whsec_…`) to verify deliveries;
// - seed: `ignore` (default) or `refuse` for a seed the OpenAI APIs cannot honour.

import type { TaskAdapterType } from '../adapter-type.js';
import type { ProviderSettings } from '../config.js';
import { OpenAiMediaProvider } from './media-adapter.js';
import type { SeedPolicy } from './media-request.js';

const SEED_POLICIES: SeedPolicy[] = ['ignore', 'refuse'];

function problems(settings: ProviderSettings): string[] {
  // No api_key check: an openai provider may serve only chat from a keyless compatible server.
  const found: string[] = [];
  const { webhook_secret: secret, seed } = settings.options;
  if (secret !== undefined && (typeof secret !== 'string' || !secret))
    found.push(`providers.${settings.name}.webhook_secret must be the project's whsec_… secret`);
  if (seed !== undefined && !SEED_POLICIES.includes(seed as SeedPolicy))
    found.push(`providers.${settings.name}.seed must be one of ${SEED_POLICIES.join(', ')}`);
  return found;
}

export const openAiMediaAdapterType: TaskAdapterType = {
  type: 'openai',
  validate: problems,
  create: (settings) =>
    new OpenAiMediaProvider({
      baseUrl: settings.baseUrl,
      apiKey: settings.apiKey,
      webhookSecret:
        typeof settings.options.webhook_secret === 'string' ? settings.options.webhook_secret : undefined,
      seed: (settings.options.seed as SeedPolicy | undefined) ?? 'ignore',
    }),
};
