// The `kling` adapter type: Kling's official API, authenticated by an access key and a secret key
// (Kling signs nothing with an api_key). `mode` (std | pro) is an optional provider option.

import { ownEntry } from '../../domain/own-entry.js';
import type { TaskAdapterType } from '../adapter-type.js';
import type { ProviderSettings } from '../config.js';
import { KlingProvider } from './adapter.js';
import type { KlingMode } from './request.js';

function option(settings: ProviderSettings, name: string): unknown {
  return ownEntry(settings.options, name);
}

export const klingAdapterType: TaskAdapterType = {
  type: 'kling',
  validate(settings) {
    const problems: string[] = [];
    for (const name of ['access_key', 'secret_key']) {
      const value = option(settings, name);
      if (typeof value !== 'string' || !value)
        problems.push(`providers.${settings.name}.${name} is required for type kling`);
    }
    const mode = option(settings, 'mode');
    if (mode !== undefined && mode !== 'std' && mode !== 'pro')
      problems.push(`providers.${settings.name}.mode must be std or pro`);
    return problems;
  },
  create(settings, deps) {
    return new KlingProvider(
      {
        baseUrl: settings.baseUrl,
        accessKey: String(option(settings, 'access_key') ?? ''),
        secretKey: String(option(settings, 'secret_key') ?? ''),
        mode: (option(settings, 'mode') as KlingMode | undefined) ?? 'std',
      },
      deps.clock,
    );
  },
};
