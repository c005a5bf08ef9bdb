// Crash safety of the outbox with real processes: a worker process (`gengate serve --role worker`) is
// killed with SIGKILL while its attempts are in flight; a new worker process must take the leased
// deliveries over once their lease expires, deliver the ones queued meanwhile, and lose none. Then
// `gengate webhooks redeliver ID` sends one of them again.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../cli/cli.js';
import { enqueueTaskWebhook } from '../services/webhooks/outbox.js';
import { openSqlite } from '../storage/db.js';
import { createTestApp, type TestApp, testConfig } from '../testing/app.js';
import type { TestDb } from '../testing/db.js';
import { type Receiver, startReceiver } from '../testing/webhook-receiver.js';
import { kill9, startWorkerProcess as startWorker } from '../testing/worker-process.js';

const WEBHOOK_TIMEOUT_MS = 2_000;
const LEASE_MS = 300;

function startWorkerProcess(dataDir: string): ChildProcess {
  return startWorker(dataDir, {
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS),
    WEBHOOK_RETRY_DELAYS_MS: '100,100',
    LEASE_MS: String(LEASE_MS),
  });
}

describe('webhook deliveries survive a kill -9 of the worker process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gengate-crash-'));
  const workers: ChildProcess[] = [];
  let app: TestApp;
  let receiver: Receiver;
  let accountId: number;
  let answering = false;

  const enqueue = () =>
    app.ctx.storage.transaction(
      async (tx) =>
        (await enqueueTaskWebhook(
          tx,
          {
            id: randomUUID(),
            account_id: accountId,
            webhook_url: `${receiver.url}/hook`,
            status: 'completed',
            result: { image_url: 'x' },
            error: null,
          },
          Date.now(),
        ))!,
    );
  const rows = (ids: string[]) =>
    app.ctx.storage.db.selectFrom('webhook_deliveries').selectAll().where('id', 'in', ids).execute();
  const answeredWith200 = (id: string) =>
    receiver.requests.filter((r) => r.headers['webhook-id'] === id && r.receivedAt >= answeredSince).length;
  let answeredSince = Number.POSITIVE_INFINITY;

  beforeAll(async () => {
    // The worker process opens DATA_DIR/gengate.db: the test shares that very file.
    const inner = openSqlite(join(dir, 'gengate.db'));
    const db: TestDb = { ...inner, file: join(dir, 'gengate.db'), dispose: () => inner.close() };
    app = await createTestApp({ db });
    accountId = (await app.newKey()).accountId;
    receiver = await startReceiver(() => (answering ? { status: 200 } : 'hang'));
  });
  afterAll(async () => {
    await Promise.all(workers.map(kill9));
    await receiver?.close();
    await app?.dispose();
    await app?.db.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes over leased deliveries after the lease, delivers the queued ones, loses none', {
    timeout: 120_000,
  }, async () => {
    const inFlight = await Promise.all([enqueue(), enqueue(), enqueue(), enqueue()]);

    const first = startWorkerProcess(dir);
    workers.push(first);
    // Every attempt has reached the receiver, which holds it unanswered: all four are in flight.
    await receiver.waitForRequests(inFlight.length, 60_000);
    expect(
      (await rows(inFlight)).every(
        (row) => row.status === 'pending' && row.attempts === 0 && row.lease_expires_at !== null,
      ),
    ).toBe(true);

    await kill9(first);
    const queued = await Promise.all([enqueue(), enqueue()]);
    answering = true;
    answeredSince = Date.now();

    workers.push(startWorkerProcess(dir));
    const all = [...inFlight, ...queued];
    await vi.waitFor(
      async () => {
        const statuses = (await rows(all)).map((row) => row.status);
        expect(statuses).toEqual(all.map(() => 'delivered'));
      },
      { timeout: 60_000, interval: 50 },
    );
    for (const row of await rows(all)) {
      // The attempt cut off by the crash was never recorded, so it does not count against the three.
      expect(row.attempts).toBe(1);
      expect(row.last_status_code).toBe(200);
      expect(answeredWith200(row.id)).toBe(1);
    }
  });

  it('`gengate webhooks redeliver ID` sends a delivered webhook again with the same webhook-id', {
    timeout: 60_000,
  }, async () => {
    const id = await enqueue();
    await vi.waitFor(async () => expect((await rows([id]))[0].status).toBe('delivered'), {
      timeout: 30_000,
      interval: 50,
    });
    const printed: string[] = [];
    const errors: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void printed.push(line));
    const error = vi.spyOn(console, 'error').mockImplementation((line: string) => void errors.push(line));
    try {
      expect(await runCli(['webhooks', 'redeliver', id], testConfig({ dataDir: dir }))).toBe(0);
      expect(await runCli(['webhooks', 'redeliver', 'msg_unknown'], testConfig({ dataDir: dir }))).toBe(1);
    } finally {
      log.mockRestore();
      error.mockRestore();
    }
    expect(JSON.parse(printed[0])).toMatchObject({ id, status: 'pending', attempts: 0 });
    expect(errors).toEqual(['error: Webhook delivery not found']);

    await vi.waitFor(() => expect(answeredWith200(id)).toBe(2), { timeout: 30_000, interval: 50 });
    await vi.waitFor(
      async () => expect((await rows([id]))[0]).toMatchObject({ status: 'delivered', attempts: 1 }),
      { timeout: 30_000, interval: 50 },
    );
    const audit = await app.ctx.storage.audit.listForAccount(accountId);
    expect(audit).toContainEqual(expect.objectContaining({ actor: 'cli', action: 'webhook.redelivered' }));
  });
});
