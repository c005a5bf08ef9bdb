// A whole gengate on a test database, driven through Fastify's inject (no sockets) or a real port.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { buildGengate, type Gengate } from '../app.js';
import { type Config, loadConfig } from '../config.js';
import type { Engine } from '../storage/db.js';
import { openTestDb, type TestDb } from './db.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface TestApp extends Gengate {
  db: TestDb;
  config: Config;
  /** Creates an account and a key with `balanceRub` on it; returns the full key. */
  newKey(options?: {
    balanceRub?: number;
    messagingId?: number;
    coefficient?: number;
    restrictions?: Record<string, unknown>;
  }): Promise<TestKey>;
  dispose(): Promise<void>;
}

export interface TestKey {
  secret: string;
  keyId: number;
  accountId: number;
  messagingId: number;
  auth: { authorization: string };
}

let nextMessagingId = 1000;

/** PATCH /admin/keys/{id} as the operator; the test fails unless it answers 200. */
export async function patchKey(app: TestApp, key: TestKey, body: Record<string, unknown>): Promise<void> {
  const res = await app.http.inject({
    method: 'PATCH',
    url: `/admin/keys/${key.keyId}`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    payload: body,
  });
  expect(res.statusCode).toBe(200);
}

/** Serves the app on a loopback port, for real HTTP clients (the openai SDK); returns its origin. */
export async function listenOnLoopback(app: TestApp): Promise<string> {
  await app.http.listen({ host: '127.0.0.1', port: 0 });
  const address = app.http.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
}

export function testConfig(overrides: Partial<Config> = {}, env: Record<string, string> = {}): Config {
  return loadConfig(
    { NODE_ENV: 'test', DEMO: 'false', ...env },
    {
      adminToken: ADMIN_TOKEN,
      simLatencyMs: 20,
      providerTimeoutMs: 5_000,
      requeueDelayMs: 50,
      webhookRetryDelaysMs: [100, 100],
      webhookTimeoutMs: 1_000,
      webhookAllowPrivate: true,
      workerPollIntervalMs: 10,
      logLevel: 'silent',
      ...overrides,
    },
  );
}

export async function createTestApp(
  options: { engine?: Engine; config?: Partial<Config>; env?: Record<string, string>; db?: TestDb } = {},
): Promise<TestApp> {
  const db = options.db ?? (await openTestDb(options.engine ?? 'sqlite'));
  // Result files go to a private directory unless the test chose one, never into ./data.
  const ownDataDir =
    options.config?.dataDir === undefined ? mkdtempSync(join(tmpdir(), 'gengate-data-')) : undefined;
  const config = testConfig(
    { ...(ownDataDir ? { dataDir: ownDataDir } : {}), ...options.config },
    options.env,
  );
  const gengate = await buildGengate(config, { db });
  const { ctx } = gengate;
  const by = { actor: 'test' };
  return {
    ...gengate,
    db,
    config,
    async newKey({
      balanceRub = 1000,
      messagingId = nextMessagingId++,
      coefficient,
      restrictions = {},
    } = {}) {
      const existing = await ctx.storage.accounts.byMessagingId(messagingId);
      const account =
        existing ?? (await ctx.accounts.createAccount({ messaging_id: messagingId, coefficient }, by));
      const { key, secret } = await ctx.accounts.createKey(account.id, restrictions, by);
      if (balanceRub > 0) await ctx.accounts.topup(key.id, balanceRub, 'test', by);
      return {
        secret,
        keyId: key.id,
        accountId: account.id,
        messagingId: account.messaging_id,
        auth: { authorization: `Bearer ${secret}` },
      };
    },
    async dispose() {
      await gengate.close();
      if (!options.db) await db.dispose();
      if (ownDataDir) rmSync(ownDataDir, { recursive: true, force: true });
    },
  };
}
