// Every setting, parsed and validated once. Invalid settings fail fast with the full list of errors.
import { resolve } from 'node:path';

export interface Config {
  host: string;
  port: number;
  publicUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  adminToken: string | undefined;
  providersFile: string | undefined;
  providerTimeoutMs: number;
  requeueDelayMs: number;
  webhookTimeoutMs: number;
  webhookRetryDelaysMs: number[];
  webhookAllowPrivate: boolean;
  idempotencyTtlMs: number;
  syncImageWaitMs: number;
  simLatencyMs: number;
  trustProxy: boolean | string;
  demo: boolean;
  bodyLimitBytes: number;
  defaultRateLimitPerMin: number;
  /** Cap on bytes copied from a provider result into object storage. */
  maxResultBytes: number;
  workerConcurrency: number;
  workerPollIntervalMs: number;
  leaseMs: number;
  logLevel: string;
  production: boolean;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const problems: string[] = [];
  const int = (name: string, fallback: number, min = 0): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min) {
      problems.push(`${name} must be an integer >= ${min}, got "${raw}"`);
      return fallback;
    }
    return value;
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = env[name]?.toLowerCase();
    if (raw === undefined || raw === '') return fallback;
    if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
    if (['0', 'false', 'no', 'off'].includes(raw)) return false;
    problems.push(`${name} must be true or false, got "${env[name]}"`);
    return fallback;
  };
  const intList = (name: string, fallback: number[]): number[] => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const values = raw.split(',').map((part) => Number(part.trim()));
    if (values.some((v) => !Number.isInteger(v) || v < 0)) {
      problems.push(`${name} must be a comma-separated list of non-negative integers, got "${raw}"`);
      return fallback;
    }
    return values;
  };

  const production = env.NODE_ENV === 'production';
  const host = env.HOST || '127.0.0.1';
  const port = int('PORT', 8080);
  if (port > 65535) problems.push(`PORT must be <= 65535, got ${port}`);
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const redisUrl = env.REDIS_URL || undefined;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) problems.push('REDIS_URL must start with redis:// or rediss://');
  const publicUrl = (env.PUBLIC_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
  try {
    new URL(publicUrl);
  } catch {
    problems.push(`PUBLIC_URL must be an absolute URL, got "${publicUrl}"`);
  }
  const trustProxyRaw = env.TRUST_PROXY;
  const trustProxy: boolean | string =
    trustProxyRaw === undefined || trustProxyRaw === '' || trustProxyRaw === 'false'
      ? false
      : trustProxyRaw === 'true'
        ? true
        : trustProxyRaw;

  const config: Config = {
    host,
    port,
    publicUrl,
    dataDir: resolve(env.DATA_DIR || './data'),
    databaseUrl,
    redisUrl,
    adminToken: env.ADMIN_TOKEN || undefined,
    providersFile: env.PROVIDERS_FILE || undefined,
    providerTimeoutMs: int('PROVIDER_TIMEOUT_MS', 600_000, 1),
    requeueDelayMs: int('REQUEUE_DELAY_MS', 15_000),
    webhookTimeoutMs: int('WEBHOOK_TIMEOUT_MS', 10_000, 1),
    webhookRetryDelaysMs: intList('WEBHOOK_RETRY_DELAYS_MS', [30_000, 600_000]),
    webhookAllowPrivate: bool('WEBHOOK_ALLOW_PRIVATE', false),
    idempotencyTtlMs: int('IDEMPOTENCY_TTL_MS', 86_400_000, 1),
    syncImageWaitMs: int('SYNC_IMAGE_WAIT_MS', 180_000, 1),
    simLatencyMs: int('SIM_LATENCY_MS', 3000),
    trustProxy,
    // The demo account is for a first look at an empty embedded database, never for production.
    demo: production ? false : bool('DEMO', !databaseUrl),
    bodyLimitBytes: int('BODY_LIMIT_BYTES', 1024 * 1024, 1024),
    defaultRateLimitPerMin: int('DEFAULT_RATE_LIMIT_PER_MIN', 600, 1),
    maxResultBytes: int('MAX_RESULT_BYTES', 512 * 1024 * 1024, 1),
    workerConcurrency: int('WORKER_CONCURRENCY', 32, 1),
    workerPollIntervalMs: int('WORKER_POLL_INTERVAL_MS', 200, 1),
    leaseMs: int('LEASE_MS', 30_000, 100),
    logLevel: env.LOG_LEVEL || (env.NODE_ENV === 'test' ? 'silent' : 'info'),
    production,
    ...overrides,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
