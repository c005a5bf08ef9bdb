// Storage-level fixtures for the contract tests: accounts and keys written straight through the
// repositories, without the HTTP layer, so each test states exactly which rows exist.
import { randomUUID } from 'node:crypto';
import { uuidV7 } from '../domain/ids.js';
import { displayParts, generateApiKey, hashApiKey } from '../domain/keys/api-key.js';
import type { TaskRow } from '../storage/repositories/tasks.js';
import type { Storage } from '../storage/storage.js';

let nextMessagingId = 500_000 + Math.floor(Math.random() * 1_000_000);

export interface SeededKey {
  accountId: number;
  keyId: number;
  secret: string;
  /** The KeyRef the ledger repository takes. */
  ref: { keyId: number; accountId: number; now: number };
}

export async function seedAccount(storage: Storage, messagingId = nextMessagingId++): Promise<number> {
  const account = await storage.accounts.create({
    messagingId,
    coefficientPpm: 1_000_000,
    webhookSecret: 'whsec_test',
    now: Date.now(),
  });
  return account.id;
}

/** A key with `balance` micro-rubles credited through a real top-up entry (so the ledger stays consistent). */
export async function seedKey(
  storage: Storage,
  options: { accountId?: number; balance?: number } = {},
): Promise<SeededKey> {
  const accountId = options.accountId ?? (await seedAccount(storage));
  const secret = generateApiKey();
  const { prefix, last4 } = displayParts(secret);
  const now = Date.now();
  const key = await storage.keys.create({
    accountId,
    name: null,
    keyHash: hashApiKey(secret),
    keyPrefix: prefix,
    keyLast4: last4,
    allowedModels: null,
    allowedIpCidrs: null,
    rateLimitPerMin: null,
    now,
  });
  const ref = { keyId: key.id, accountId, now };
  if (options.balance) await storage.transaction((tx) => tx.ledger.topup(ref, options.balance!, 'fixture'));
  return { accountId, keyId: key.id, secret, ref };
}

/** A task row as the task engine would write it; only the columns the ledger check reads matter. */
export async function seedTask(
  storage: Storage,
  key: SeededKey,
  options: {
    status?: 'pending' | 'processing' | 'completed' | 'failed';
    holdAmount?: number;
    id?: string;
  } = {},
): Promise<string> {
  const id = options.id ?? randomUUID();
  const now = Date.now();
  await storage.db
    .insertInto('tasks')
    .values({
      id,
      account_id: key.accountId,
      key_id: key.keyId,
      model_id: 'seedance-2',
      billing_model_id: 'seedance-2',
      kind: 'video',
      status: options.status ?? 'pending',
      params: '{}',
      hold_amount: options.holdAmount ?? 0,
      provider: 'simulator',
      attempts: 0,
      requeues: 0,
      run_at: now,
      processing_ms: 0,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

/** A whole new task row (pending image task, created now), for code that inserts rows itself. */
export function newTaskRow(key: SeededKey, holdAmount: number, overrides: Partial<TaskRow> = {}): TaskRow {
  const now = Date.now();
  return {
    id: uuidV7(now),
    account_id: key.accountId,
    key_id: key.keyId,
    model_id: 'seedream-4',
    billing_model_id: 'seedream-4',
    kind: 'image',
    status: 'pending',
    params: '{}',
    hold_amount: holdAmount,
    pricing: '{}',
    cost: null,
    result: null,
    error: null,
    webhook_url: null,
    provider: 'simulator',
    provider_job_id: null,
    provider_state: null,
    attempts: 0,
    requeues: 0,
    run_at: now,
    lease_owner: null,
    lease_expires_at: null,
    processing_ms: 0,
    processing_started_at: null,
    created_at: now,
    updated_at: now,
    finished_at: null,
    ...overrides,
  };
}

/** A settled chat request's usage row, as its settlement writes it (completed), for tests of what reads them. */
export async function recordChatUsage(
  storage: Storage,
  key: { accountId: number; keyId: number },
  chat: { id: string; at: number; model: string; cost: number; tokens: [number, number]; latencyMs: number },
): Promise<void> {
  await storage.usage.record(
    { id: chat.id, accountId: key.accountId, keyId: key.keyId, modelId: chat.model, createdAt: chat.at },
    {
      status: 'completed',
      inputTokens: chat.tokens[0],
      outputTokens: chat.tokens[1],
      cost: chat.cost,
      latencyMs: chat.latencyMs,
    },
  );
}
