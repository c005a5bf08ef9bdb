// Every setting, parsed and validated once. Invalid settings fail fast with the full list of errors.
import { resolve } from 'node:path';
import { type PaymentsConfig, parsePaymentsConfig } from './payments/config.js';

export interface Config {
  host: string;
  port: number;
  /** A second listener with only GET /metrics and /healthz (the worker role's only one); unset: none. */
  metricsPort: number | undefined;
  /** Bearer token every GET /metrics must carry (both listeners); unset: see metricsOnApiPort. */
  metricsToken: string | undefined;
  publicUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** PostgreSQL: chat holds and settlements wait for the WAL flush too (default: they do not). */
  pgChatSyncCommit: boolean;
  redisUrl: string | undefined;
  adminToken: string | undefined;
  providersFile: string | undefined;
  /** Hand each upstream job our callback URL (POST /hooks/{provider}); default: PUBLIC_URL is https. */
  providerCallbacks: boolean;
  providerTimeoutMs: number;
  requeueDelayMs: number;
  /** How often an account marked down (auth or billing refusal) is re-checked. */
  providerRecheckMs: number;
  /** Circuit breaker of each provider account: window, outcomes needed, failure share, cool-down. */
  providerBreakerWindowMs: number;
  providerBreakerMinRequests: number;
  providerBreakerFailurePercent: number;
  providerBreakerCooldownMs: number;
  webhookTimeoutMs: number;
  webhookRetryDelaysMs: number[];
  webhookAllowPrivate: boolean;
  idempotencyTtlMs: number;
  syncImageWaitMs: number;
  simLatencyMs: number;
  trustProxy: boolean | string;
  /** Browser origins allowed by CORS on the API: '*' for any, [] (default) for CORS off. */
  corsOrigins: '*' | string[];
  demo: boolean;
  bodyLimitBytes: number;
  defaultRateLimitPerMin: number;
  /** How long a process may serve a cached key. Changes evict at once; this bounds a lost eviction
   *  (500 ms keeps "within 1 s" true even then). */
  keyCacheTtlMs: number;
  /** Cap on bytes copied from a provider result into object storage. */
  maxResultBytes: number;
  /** S3-compatible object storage for results; unset → local files under DATA_DIR/objects. */
  s3Bucket: string | undefined;
  s3Endpoint: string | undefined;
  s3Region: string;
  s3AccessKeyId: string | undefined;
  s3SecretAccessKey: string | undefined;
  s3ForcePathStyle: boolean;
  s3Prefix: string;
  workerConcurrency: number;
  workerPollIntervalMs: number;
  leaseMs: number;
  logLevel: string;
  production: boolean;
  /** Telegram Login Widget on the panel's sign-in page: the bot's token and its @username. */
  telegramBotToken: string | undefined;
  telegramBotUsername: string | undefined;
  /** The Bot API's base URL (low-balance notices go to {telegramApiUrl}/bot<token>/sendMessage). */
  telegramApiUrl: string;
  /** Top-ups by card (YooKassa, Stripe Checkout): payments/config.ts. */
  payments: PaymentsConfig;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** The origin `text` names exactly (scheme://host[:port], as browsers send it), or undefined. */
function exactOrigin(text: string): string | undefined {
  try {
    const url = new URL(text);
    // An origin has no path, query or credentials: "https://app.example.com/" is not one.
    return /^https?:$/.test(url.protocol) && url.origin === text.toLowerCase() ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** `*`, or a list of exact origins; unset means CORS is off. */
function parseCorsOrigins(raw: string | undefined, problems: string[]): '*' | string[] {
  if (raw === undefined || raw.trim() === '') return [];
  if (raw.trim() === '*') return '*';
  const origins = raw.split(',').map((part) => part.trim());
  const bad = origins.find((origin) => exactOrigin(origin) === undefined);
  if (bad === undefined) return origins.map((origin) => exactOrigin(origin) as string);
  problems.push(
    `CORS_ORIGINS must be * or a comma-separated list of origins like https://app.example.com, got "${bad}"`,
  );
  return [];
}

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
  const metricsPort = env.METRICS_PORT ? int('METRICS_PORT', 0, 1) : undefined;
  if (metricsPort !== undefined && (metricsPort > 65535 || metricsPort === port))
    problems.push(`METRICS_PORT must be <= 65535 and differ from PORT, got ${metricsPort}`);
  const metricsToken = env.METRICS_TOKEN || undefined;
  if (metricsToken !== undefined && (metricsToken.length < 16 || /\s/.test(metricsToken)))
    problems.push('METRICS_TOKEN must be at least 16 characters long, without spaces');
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const redisUrl = env.REDIS_URL || undefined;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl))
    problems.push('REDIS_URL must start with redis:// or rediss://');
  const publicUrl = (env.PUBLIC_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(
    /\/+$/,
    '',
  );
  try {
    if (!/^https?:$/.test(new URL(publicUrl).protocol)) throw new Error('not http');
  } catch {
    problems.push(`PUBLIC_URL must be an absolute http(s) URL, got "${publicUrl}"`);
  }
  const adminToken = env.ADMIN_TOKEN || undefined;
  if (adminToken !== undefined && adminToken.length < 16)
    problems.push('ADMIN_TOKEN must be at least 16 characters long');
  const logLevel = env.LOG_LEVEL || (env.NODE_ENV === 'test' ? 'silent' : 'info');
  if (!LOG_LEVELS.includes(logLevel))
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  // Read even in production, so a typo is reported; but the demo account is for a first look at an
  // empty embedded database, never for production.
  const demo = bool('DEMO', !databaseUrl) && !production;
  const trustProxyRaw = env.TRUST_PROXY;
  const trustProxy: boolean | string =
    trustProxyRaw === undefined || trustProxyRaw === '' || trustProxyRaw === 'false'
      ? false
      : trustProxyRaw === 'true'
        ? true
        : trustProxyRaw;
  // Fastify would read "1" as a proxy address; a bare hop count cannot tell a proxy from a client.
  if (typeof trustProxy === 'string' && /^\d+$/.test(trustProxy)) {
    problems.push(
      'TRUST_PROXY must be true, false or a comma-separated list of proxy addresses/CIDRs, not a hop count',
    );
  }

  const corsOrigins = parseCorsOrigins(env.CORS_ORIGINS, problems);
  const telegramBotToken = env.TELEGRAM_BOT_TOKEN || undefined;
  const telegramBotUsername = env.TELEGRAM_BOT_USERNAME?.replace(/^@/, '') || undefined;
  if (telegramBotToken && !/^\d+:[A-Za-z0-9_-]{20,}$/.test(telegramBotToken))
    problems.push('TELEGRAM_BOT_TOKEN must look like 123456:ABC-DEF… (the token @BotFather gave)');
  if (telegramBotToken && !telegramBotUsername)
    problems.push(
      'TELEGRAM_BOT_USERNAME must be set with TELEGRAM_BOT_TOKEN (the widget names the bot, e.g. my_gengate_bot)',
    );
  const telegramApiUrl = (env.TELEGRAM_API_URL || 'https://api.telegram.org').replace(/\/+$/, '');
  if (!/^https?:\/\/[^/\s]+/i.test(telegramApiUrl))
    problems.push(`TELEGRAM_API_URL must be an http(s) URL, got "${telegramApiUrl}"`);
  if (telegramBotUsername && !/^[A-Za-z][A-Za-z0-9_]{4,31}$/.test(telegramBotUsername))
    problems.push(
      `TELEGRAM_BOT_USERNAME must be a bot username like my_gengate_bot, got "${telegramBotUsername}"`,
    );

  const config: Config = {
    host,
    port,
    metricsPort,
    metricsToken,
    publicUrl,
    dataDir: resolve(env.DATA_DIR || './data'),
    databaseUrl,
    pgChatSyncCommit: bool('PG_CHAT_SYNC_COMMIT', false),
    redisUrl,
    adminToken,
    providersFile: env.PROVIDERS_FILE || undefined,
    // An upstream can only call back a public https address; a loopback PUBLIC_URL would be refused.
    providerCallbacks: bool('PROVIDER_CALLBACKS', publicUrl.startsWith('https://')),
    providerTimeoutMs: int('PROVIDER_TIMEOUT_MS', 600_000, 1),
    requeueDelayMs: int('REQUEUE_DELAY_MS', 15_000),
    providerRecheckMs: int('PROVIDER_RECHECK_MS', 60_000, 1),
    providerBreakerWindowMs: int('PROVIDER_BREAKER_WINDOW_MS', 60_000, 1),
    providerBreakerMinRequests: int('PROVIDER_BREAKER_MIN_REQUESTS', 10, 1),
    providerBreakerFailurePercent: int('PROVIDER_BREAKER_FAILURE_PERCENT', 50, 1),
    providerBreakerCooldownMs: int('PROVIDER_BREAKER_COOLDOWN_MS', 30_000, 1),
    webhookTimeoutMs: int('WEBHOOK_TIMEOUT_MS', 10_000, 1),
    webhookRetryDelaysMs: intList('WEBHOOK_RETRY_DELAYS_MS', [30_000, 600_000]),
    webhookAllowPrivate: bool('WEBHOOK_ALLOW_PRIVATE', false),
    idempotencyTtlMs: int('IDEMPOTENCY_TTL_MS', 86_400_000, 1),
    syncImageWaitMs: int('SYNC_IMAGE_WAIT_MS', 180_000, 1),
    simLatencyMs: int('SIM_LATENCY_MS', 3000),
    trustProxy,
    corsOrigins,
    demo,
    bodyLimitBytes: int('BODY_LIMIT_BYTES', 1024 * 1024, 1024),
    defaultRateLimitPerMin: int('DEFAULT_RATE_LIMIT_PER_MIN', 600, 1),
    keyCacheTtlMs: int('KEY_CACHE_TTL_MS', 500),
    maxResultBytes: int('MAX_RESULT_BYTES', 512 * 1024 * 1024, 1),
    s3Bucket: env.S3_BUCKET || undefined,
    s3Endpoint: env.S3_ENDPOINT || undefined,
    s3Region: env.S3_REGION || 'us-east-1',
    // Credentials fall back to the AWS SDK's default chain (AWS_ACCESS_KEY_ID, instance roles, …).
    s3AccessKeyId: env.S3_ACCESS_KEY_ID || undefined,
    s3SecretAccessKey: env.S3_SECRET_ACCESS_KEY || undefined,
    // MinIO and most self-hosted S3 servers need path-style addressing.
    s3ForcePathStyle: bool('S3_FORCE_PATH_STYLE', Boolean(env.S3_ENDPOINT)),
    s3Prefix: (env.S3_PREFIX ?? '').replace(/^\/+/, ''),
    workerConcurrency: int('WORKER_CONCURRENCY', 32, 1),
    workerPollIntervalMs: int('WORKER_POLL_INTERVAL_MS', 200, 1),
    leaseMs: int('LEASE_MS', 30_000, 100),
    logLevel,
    production,
    telegramBotToken,
    telegramBotUsername,
    telegramApiUrl,
    payments: parsePaymentsConfig(env, problems, { int, bool }),
    ...overrides,
  };
  if (config.providerBreakerFailurePercent > 100)
    problems.push(
      `PROVIDER_BREAKER_FAILURE_PERCENT must be between 1 and 100, got ${config.providerBreakerFailurePercent}`,
    );
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
