// Crash safety of the low-balance notices with real processes: a worker process (`gengate serve
// --role worker`) is killed with SIGKILL while its sendMessage calls are in flight (Telegram has not
// answered them); a new worker process takes the leased notices over once their lease expires and
// sends the ones written meanwhile. Telegram accepts each notice exactly once: none lost, none
// repeated, also across another kill -9 after everything was sent.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openSqlite } from '../storage/db.js';
import { ADMIN_TOKEN, createTestApp, type TestApp, type TestKey } from '../testing/app.js';
import type { TestDb } from '../testing/db.js';
import { TELEGRAM_TEST_TOKEN, TelegramFake } from '../testing/fakes/telegram.js';
import { kill9, startWorkerProcess as startWorker } from '../testing/worker-process.js';

const LEASE_MS = 300;
const TIMEOUT_MS = 2_000;

function startWorkerProcess(dataDir: string, telegramUrl: string): ChildProcess {
  return startWorker(dataDir, {
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    WEBHOOK_RETRY_DELAYS_MS: '100,100',
    LEASE_MS: String(LEASE_MS),
    TELEGRAM_BOT_TOKEN: TELEGRAM_TEST_TOKEN,
    TELEGRAM_BOT_USERNAME: 'gengate_test_bot',
    TELEGRAM_API_URL: telegramUrl,
  });
}

describe('low-balance notices survive a kill -9 of the worker process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gengate-notice-crash-'));
  const workers: ChildProcess[] = [];
  let app: TestApp;
  let telegram: TelegramFake;

  /** A key whose owner asked for a notice below 50 RUB, then a debit that crosses it. */
  async function crossing(): Promise<TestKey> {
    const key = await app.newKey({ balanceRub: 100 });
    const res = await app.http.inject({
      method: 'PATCH',
      url: `/admin/accounts/${key.messagingId}`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { low_balance_rub: 50 },
    });
    expect(res.statusCode).toBe(200);
    await app.ctx.accounts.adjust(key.keyId, -60, 'spent', { actor: 'test' });
    return key;
  }
  const statuses = async (keys: TestKey[]) =>
    (
      await app.ctx.storage.db
        .selectFrom('balance_notices')
        .selectAll()
        .where(
          'key_id',
          'in',
          keys.map((k) => k.keyId),
        )
        .execute()
    ).map((row) => row.status);

  beforeAll(async () => {
    telegram = await new TelegramFake().start();
    // The worker process opens DATA_DIR/gengate.db: the test shares that very file.
    const inner = openSqlite(join(dir, 'gengate.db'));
    const db: TestDb = { ...inner, file: join(dir, 'gengate.db'), dispose: () => inner.close() };
    app = await createTestApp({ db });
  });
  afterAll(async () => {
    await Promise.all(workers.map(kill9));
    await telegram?.close();
    await app?.dispose();
    await app?.db.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes the in-flight notices over after the lease, sends the new ones, each accepted once', {
    timeout: 120_000,
  }, async () => {
    telegram.fallback = 'hang';
    const inFlight = [await crossing(), await crossing(), await crossing()];
    const first = startWorkerProcess(dir, telegram.apiUrl);
    workers.push(first);
    // Every notice has reached Telegram, which holds it unanswered: all three are in flight.
    await vi.waitFor(() => expect(telegram.received.length).toBe(3), { timeout: 60_000, interval: 20 });
    expect(await statuses(inFlight)).toEqual(['pending', 'pending', 'pending']);

    await kill9(first);
    telegram.fallback = 'deliver';
    const queued = [await crossing(), await crossing()];
    const all = [...inFlight, ...queued];
    workers.push(startWorkerProcess(dir, telegram.apiUrl));
    await vi.waitFor(async () => expect(await statuses(all)).toEqual(all.map(() => 'sent')), {
      timeout: 60_000,
      interval: 50,
    });
    for (const key of all) expect(telegram.deliveredTo(key.messagingId)).toHaveLength(1);

    // Killed again after everything went out, and replaced: nothing is sent twice.
    await kill9(workers[1]);
    workers.push(startWorkerProcess(dir, telegram.apiUrl));
    await new Promise((done) => setTimeout(done, 2 * (TIMEOUT_MS + LEASE_MS)));
    for (const key of all) expect(telegram.deliveredTo(key.messagingId)).toHaveLength(1);
    expect(telegram.delivered).toHaveLength(all.length);
  });
});
