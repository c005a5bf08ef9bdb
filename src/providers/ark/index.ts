// The `ark` adapter type: BytePlus ModelArk or Volcengine Ark, chosen by base_url (…/api/v3).
// Type-only import: task-adapters.ts imports this file, so a value import back would be a cycle.

import type { TaskAdapterType } from '../adapter-type.js';
import type { ProviderSettings } from '../config.js';
import { ArkProvider } from './adapter.js';

export const arkAdapterType: TaskAdapterType = {
  type: 'ark',
  validate(settings: ProviderSettings): string[] {
    const where = `providers.${settings.name}`;
    const problems = settings.apiKey ? [] : [`${where}.api_key is required for type ark`];
    if (settings.baseUrl && !/\/api\/v3$/.test(settings.baseUrl))
      problems.push(`${where}.base_url must end in /api/v3 for type ark`);
    return problems;
  },
  create: (settings, deps) => new ArkProvider(settings, deps.clock),
};
