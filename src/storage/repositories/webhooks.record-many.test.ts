// recordAttempts: many attempt results in one write (one statement on PostgreSQL), each still a
// compare-and-set on its own delivery's lease.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueTaskWebhook } from '../../services/webhooks/outbox.js';
import { ENGINES, openTestDb, type TestDb } from '../../testing/db.js';
import { Storage } from '../storage.js';

describe.each(ENGINES)('recording many webhook attempts on %s', (engine) => {
  let db: TestDb;
  let storage: Storage;

  beforeAll(async () => {
    db = await openTestDb(engine);
    storage = Storage.from(db);
  });
  afterAll(() => db?.dispose());

  it('records each attempt while its lease holds, and refuses the one whose lease was lost', async () => {
    const account = await storage.accounts.create({
      messagingId: 990_001,
      coefficientPpm: 1_000_000,
      webhookSecret: 'whsec_AAAA',
      now: 0,
    });
    for (let i = 0; i < 3; i++) {
      await storage.transaction((tx) =>
        enqueueTaskWebhook(
          tx,
          {
            id: randomUUID(),
            account_id: account.id,
            webhook_url: 'http://127.0.0.1:9/hook',
            status: 'completed',
            result: {},
            error: null,
          },
          100,
        ),
      );
    }
    const leased = await storage.webhooks.claimDue(1_000, 5_000, 10);
    expect(leased).toHaveLength(3);
    const [delivered, retry, stale] = leased;
    const recorded = await storage.transaction((tx) =>
      tx.webhooks.recordAttempts([
        {
          delivery: delivered,
          update: { status: 'delivered', attempts: 1, deliveredAt: 1_100 },
          last: { statusCode: 204, error: null },
          now: 1_100,
        },
        {
          delivery: retry,
          update: { status: 'pending', attempts: 1, nextAttemptAt: 9_000 },
          last: { statusCode: 500, error: 'HTTP 500' },
          now: 1_100,
        },
        {
          delivery: { ...stale, lease_expires_at: stale.lease_expires_at - 1 },
          update: { status: 'delivered', attempts: 1, deliveredAt: 1_100 },
          last: { statusCode: 204, error: null },
          now: 1_100,
        },
      ]),
    );
    expect(recorded).toEqual([true, true, false]);
    expect(await storage.webhooks.byId(delivered.id)).toMatchObject({
      status: 'delivered',
      attempts: 1,
      delivered_at: 1_100,
      lease_expires_at: null,
      last_status_code: 204,
    });
    expect(await storage.webhooks.byId(retry.id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      next_attempt_at: 9_000,
      lease_expires_at: null,
      last_error: 'HTTP 500',
    });
    expect(await storage.webhooks.byId(stale.id)).toMatchObject({ status: 'pending', attempts: 0 });
  });
});
