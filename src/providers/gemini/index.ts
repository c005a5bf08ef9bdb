// The `gemini` adapter type: Google's Gemini API with an API key (Veo video, Gemini image models).

// Type-only: task-adapters.ts imports this file, so a value import back would be a cycle.
import type { TaskAdapterType } from '../adapter-type.js';
import type { ProviderSettings } from '../config.js';
import { GeminiProvider } from './adapter.js';
import { InputImageFetcher } from './inputs.js';

export const geminiAdapterType: TaskAdapterType = {
  type: 'gemini',
  validate(settings: ProviderSettings): string[] {
    const where = `providers.${settings.name}`;
    const problems = settings.apiKey ? [] : [`${where}.api_key is required for type gemini`];
    const { person_generation, allow_private_inputs, submit_timeout_ms } = settings.options;
    if (person_generation !== undefined && typeof person_generation !== 'string')
      problems.push(`${where}.person_generation must be a string (e.g. allow_adult)`);
    if (allow_private_inputs !== undefined && typeof allow_private_inputs !== 'boolean')
      problems.push(`${where}.allow_private_inputs must be true or false`);
    if (
      submit_timeout_ms !== undefined &&
      !(Number.isInteger(submit_timeout_ms) && Number(submit_timeout_ms) > 0)
    )
      problems.push(`${where}.submit_timeout_ms must be a positive integer`);
    return problems;
  },
  create(settings: ProviderSettings) {
    const { person_generation, allow_private_inputs, submit_timeout_ms } = settings.options;
    return new GeminiProvider({
      baseUrl: settings.baseUrl,
      apiKey: settings.apiKey ?? '',
      personGeneration: typeof person_generation === 'string' ? person_generation : undefined,
      submitTimeoutMs: typeof submit_timeout_ms === 'number' ? submit_timeout_ms : undefined,
      // Input image URLs come from clients: private addresses only when the operator says so (tests).
      inputs: new InputImageFetcher(allow_private_inputs === true),
    });
  },
};
