// The `fal` adapter type: fal.ai's queue API (queue.fal.run), authenticated by one API key.
// Type-only import: task-adapters.ts imports this file, so a value import back would be a cycle.
import type { TaskAdapterType } from '../adapter-type.js';
import { FalProvider } from './adapter.js';

export const falAdapterType: TaskAdapterType = {
  type: 'fal',
  validate(settings) {
    const where = `providers.${settings.name}`;
    const problems = settings.apiKey ? [] : [`${where}.api_key is required for type fal`];
    const checkApp = settings.options.check_app;
    if (checkApp !== undefined && (typeof checkApp !== 'string' || !/^[\w.-]+\/[\w.-]+$/.test(checkApp)))
      problems.push(`${where}.check_app must be an owner/app path such as fal-ai/flux`);
    return problems;
  },
  create: (settings) => new FalProvider(settings),
};
