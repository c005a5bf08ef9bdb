// Settings: defaults that work for the embedded mode, and a fail-fast error listing every invalid
// setting at once.
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
};

describe('loadConfig', () => {
  it('has defaults for the embedded mode (DESIGN.md section 2)', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      publicUrl: 'http://127.0.0.1:8080',
      dataDir: resolve('./data'),
      databaseUrl: undefined,
      pgChatSyncCommit: false,
      redisUrl: undefined,
      adminToken: undefined,
      providersFile: undefined,
      providerTimeoutMs: 600_000,
      requeueDelayMs: 15_000,
      webhookTimeoutMs: 10_000,
      webhookRetryDelaysMs: [30_000, 600_000],
      webhookAllowPrivate: false,
      idempotencyTtlMs: 86_400_000,
      syncImageWaitMs: 180_000,
      simLatencyMs: 3000,
      trustProxy: false,
      corsOrigins: [],
      demo: true,
      defaultRateLimitPerMin: 600,
      logLevel: 'info',
      production: false,
    });
  });

  it('reads every setting from the environment', () => {
    const config = loadConfig({
      HOST: '0.0.0.0',
      PORT: '9090',
      PUBLIC_URL: 'https://gen.example.com/',
      DATA_DIR: '/var/lib/gengate',
      DATABASE_URL: 'postgres://u@db/gengate',
      REDIS_URL: 'redis://cache:6379',
      ADMIN_TOKEN: 'a-long-admin-token-123',
      WEBHOOK_RETRY_DELAYS_MS: '1000, 2000',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      PG_CHAT_SYNC_COMMIT: 'on',
      TRUST_PROXY: '10.0.0.1,10.0.0.2',
      LOG_LEVEL: 'warn',
    });
    expect(config).toMatchObject({
      host: '0.0.0.0',
      port: 9090,
      publicUrl: 'https://gen.example.com',
      dataDir: '/var/lib/gengate',
      databaseUrl: 'postgres://u@db/gengate',
      redisUrl: 'redis://cache:6379',
      adminToken: 'a-long-admin-token-123',
      webhookRetryDelaysMs: [1000, 2000],
      webhookAllowPrivate: true,
      pgChatSyncCommit: true,
      trustProxy: '10.0.0.1,10.0.0.2',
      logLevel: 'warn',
      // No demo account on PostgreSQL unless asked for.
      demo: false,
    });
  });

  it('never creates the demo account in production, even when asked', () => {
    expect(loadConfig({ NODE_ENV: 'production' }).demo).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', DEMO: 'true' }).demo).toBe(false);
    expect(loadConfig({ DEMO: 'false' }).demo).toBe(false);
    expect(loadConfig({ DATABASE_URL: 'postgres://x/y', DEMO: 'on' }).demo).toBe(true);
  });

  it('fails fast listing ALL invalid settings, not just the first', () => {
    const problems = problemsOf({
      PORT: '70000',
      DATABASE_URL: 'mysql://db',
      REDIS_URL: 'http://cache',
      PUBLIC_URL: 'ftp://files',
      ADMIN_TOKEN: 'short',
      PROVIDER_TIMEOUT_MS: '0',
      REQUEUE_DELAY_MS: 'soon',
      WEBHOOK_TIMEOUT_MS: '1.5',
      WEBHOOK_RETRY_DELAYS_MS: '100,-1',
      WEBHOOK_ALLOW_PRIVATE: 'maybe',
      IDEMPOTENCY_TTL_MS: '-5',
      SYNC_IMAGE_WAIT_MS: 'x',
      SIM_LATENCY_MS: 'fast',
      TRUST_PROXY: '2',
      DEMO: 'perhaps',
      BODY_LIMIT_BYTES: '10',
      DEFAULT_RATE_LIMIT_PER_MIN: '0',
      MAX_RESULT_BYTES: 'big',
      WORKER_CONCURRENCY: '0',
      WORKER_POLL_INTERVAL_MS: '0',
      LEASE_MS: '5',
      LOG_LEVEL: 'verbose',
    });
    const names = [
      'PORT',
      'DATABASE_URL',
      'REDIS_URL',
      'PUBLIC_URL',
      'ADMIN_TOKEN',
      'PROVIDER_TIMEOUT_MS',
      'REQUEUE_DELAY_MS',
      'WEBHOOK_TIMEOUT_MS',
      'WEBHOOK_RETRY_DELAYS_MS',
      'WEBHOOK_ALLOW_PRIVATE',
      'IDEMPOTENCY_TTL_MS',
      'SYNC_IMAGE_WAIT_MS',
      'SIM_LATENCY_MS',
      'TRUST_PROXY',
      'DEMO',
      'BODY_LIMIT_BYTES',
      'DEFAULT_RATE_LIMIT_PER_MIN',
      'MAX_RESULT_BYTES',
      'WORKER_CONCURRENCY',
      'WORKER_POLL_INTERVAL_MS',
      'LEASE_MS',
      'LOG_LEVEL',
    ];
    for (const name of names)
      expect(
        problems.some((p) => p.startsWith(name)),
        name,
      ).toBe(true);
    expect(problems).toHaveLength(names.length);
  });

  it('puts every problem in the error message, one per line', () => {
    try {
      loadConfig({ PORT: 'x', LOG_LEVEL: 'loud' });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toBe(
        'invalid configuration:\n  - PORT must be an integer >= 0, got "x"\n  - LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
      );
    }
  });

  it('reads CORS_ORIGINS as * or exact origins, and refuses anything else', () => {
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toBe('*');
    expect(
      loadConfig({ CORS_ORIGINS: 'https://App.example.com, http://localhost:5173' }).corsOrigins,
    ).toEqual(['https://app.example.com', 'http://localhost:5173']);
    for (const bad of ['https://app.example.com/', 'app.example.com', 'ftp://x.org', 'https://a.org,*']) {
      expect(problemsOf({ CORS_ORIGINS: bad }), bad).toEqual([
        expect.stringMatching(/^CORS_ORIGINS must be \* or a comma-separated list of origins/),
      ]);
    }
  });

  it('reports an invalid DEMO even in production', () => {
    expect(problemsOf({ NODE_ENV: 'production', DEMO: 'yess' })).toEqual([
      'DEMO must be true or false, got "yess"',
    ]);
  });
});
