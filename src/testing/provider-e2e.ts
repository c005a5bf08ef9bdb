// The whole path of a real provider, driven by our API: a gengate on a loopback port with a
// PROVIDERS_FILE that points at provider fakes, a key with a balance, and a receiver for the
// client's webhooks. POST /generate → the adapter calls the fake → the result is copied into our
// object storage → our URL serves it → the ledger settles → the client's webhook fires.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Config } from '../config.js';
import type { Engine } from '../storage/db.js';
import { checkLedger } from '../storage/ledger/ledger-check.js';
import { startWebhookSender } from '../workers/webhook-sender.js';
import type { TestKey } from './app.js';
import { balanceOf, createTaskTestApp, freePort, type TaskTestApp, waitForFinal } from './tasks.js';
import { type Receiver, startReceiver } from './webhook-receiver.js';

export interface ProviderE2E {
  app: TaskTestApp;
  key: TestKey;
  /** Our server's origin; PUBLIC_URL points here, so upstream callbacks reach /hooks/{provider}. */
  origin: string;
  /** Receives the client's task webhooks (every POST /generate of `generate` names it). */
  receiver: Receiver;
  /** POST /generate with `params` (the client's webhook_url added); returns the status and body. */
  generate(params: Record<string, unknown>): Promise<{ status: number; body: any }>;
  /** Polls GET /tasks/{id} until the task is completed or failed. */
  waitForFinal(taskId: string, timeoutMs?: number): ReturnType<typeof waitForFinal>;
  /** The key's balance and held amount in micro-rubles. */
  balance(): Promise<{ balance: number; held: number }>;
  /** GET one of our result URLs; returns the status, content type and bytes. */
  download(url: string): Promise<{ status: number; contentType: string | null; bytes: Buffer }>;
  /** The task's row as the worker sees it (provider, provider_job_id, hold and cost). */
  taskRow(taskId: string): Promise<Record<string, any>>;
  /** Fails the test unless every ledger invariant holds. */
  expectLedgerClean(): Promise<void>;
  dispose(): Promise<void>;
}

export async function startProviderE2E(options: {
  /** The PROVIDERS_FILE content, as an object (written as JSON). */
  providers: Record<string, unknown>;
  engine?: Engine;
  config?: Partial<Config>;
  balanceRub?: number;
}): Promise<ProviderE2E> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'gengate-providers-'));
  const providersFile = join(dir, 'providers.json');
  writeFileSync(providersFile, JSON.stringify(options.providers));
  const app = await createTaskTestApp({
    engine: options.engine,
    config: {
      port,
      publicUrl: origin,
      providersFile,
      providerCallbacks: true,
      providerTimeoutMs: 10_000,
      ...options.config,
    },
  });
  await app.http.listen({ host: '127.0.0.1', port });
  const key = await app.newKey({ balanceRub: options.balanceRub ?? 1000 });
  const receiver = await startReceiver();
  // The client's webhooks are sent as in production: by the sender worker, from the outbox.
  const sender = startWebhookSender(app.ctx, () => {});
  return {
    app,
    key,
    origin,
    receiver,
    async generate(params) {
      const res = await fetch(`${origin}/generate`, {
        method: 'POST',
        headers: { ...key.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ params: { webhook_url: `${receiver.url}/hook`, ...params } }),
      });
      return { status: res.status, body: await res.json() };
    },
    waitForFinal: (taskId, timeoutMs = 15_000) => waitForFinal(app, key, taskId, timeoutMs),
    balance: () => balanceOf(app, key),
    async download(url) {
      const res = await fetch(url);
      return {
        status: res.status,
        contentType: res.headers.get('content-type'),
        bytes: Buffer.from(await res.arrayBuffer()),
      };
    },
    async taskRow(taskId) {
      const row = await app.ctx.storage.tasks.byIdForWorker(taskId);
      if (!row) throw new Error(`no task ${taskId}`);
      return row;
    },
    async expectLedgerClean() {
      expect(await checkLedger(app.ctx.storage.db)).toEqual([]);
    },
    async dispose() {
      await sender.stop();
      await receiver.close();
      await app.dispose();
    },
  };
}

/** Reads until `ok` holds, every 10 ms; fails with the last value after `timeoutMs`. */
export async function waitFor<T>(
  read: () => Promise<T> | T,
  ok: (value: T) => boolean,
  timeoutMs = 5_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`condition not met in ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The kinds of a task's ledger entries, in order (hold, capture, release). */
export async function ledgerKinds(e2e: ProviderE2E, taskId: string): Promise<string[]> {
  const rows = await e2e.app.ctx.storage.db
    .selectFrom('ledger_entries')
    .select(['kind'])
    .where('task_id', '=', taskId)
    .orderBy('id')
    .execute();
  return rows.map((r: { kind: string }) => r.kind);
}

/** The client webhooks the receiver got for one task. */
export function clientHooksFor(e2e: ProviderE2E, taskId: string) {
  return e2e.receiver.requests.filter((r) => JSON.parse(r.body).task_id === taskId);
}
