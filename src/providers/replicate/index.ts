// The `replicate` adapter type: settings checks and construction from a PROVIDERS_FILE entry.
import { requireApiKey, type TaskAdapterType } from '../adapter-type.js';
import { DEFAULT_WAIT_SECONDS, ReplicateProvider } from './adapter.js';

const HOUR_MS = 60 * 60 * 1000;

function waitSecondsOf(value: unknown): number {
  return value === undefined ? DEFAULT_WAIT_SECONDS : Number(value);
}

export const replicateAdapterType: TaskAdapterType = {
  type: 'replicate',
  validate(settings) {
    const problems = requireApiKey(settings);
    const where = `providers.${settings.name}`;
    const secret = settings.options.webhook_secret;
    if (secret !== undefined && (typeof secret !== 'string' || !secret.startsWith('whsec_')))
      problems.push(`${where}.webhook_secret must be the account's signing secret ("whsec_…")`);
    const wait = waitSecondsOf(settings.options.wait_seconds);
    if (!Number.isInteger(wait) || wait < 0 || wait > 60)
      problems.push(`${where}.wait_seconds must be an integer from 0 to 60`);
    return problems;
  },
  create(settings, deps) {
    const secret = settings.options.webhook_secret;
    return new ReplicateProvider(settings, deps.clock, {
      waitSeconds: waitSecondsOf(settings.options.wait_seconds),
      webhookSecret: typeof secret === 'string' ? secret : undefined,
      reconcileWindowMs: HOUR_MS,
      reconcilePages: 5,
    });
  },
};
