import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueTaskWebhook } from '../../services/webhooks/outbox.js';
import { ENGINES, openTestDb, type TestDb } from '../../testing/db.js';
import { HAVE_POSTGRES } from '../../testing/services.js';
import { Storage } from '../storage.js';
import { WebhooksRepository } from './webhooks.js';

const LEASE = 1_000;

/** A delivery due at `dueAt`, written the way the task engine writes it: through the outbox, in a transaction. */
const enqueueDelivery = (storage: Storage, account: number, dueAt: number) =>
  storage.transaction(async (tx) => {
    const id = await enqueueTaskWebhook(
      tx,
      {
        id: randomUUID(),
        account_id: account,
        webhook_url: 'http://127.0.0.1:9/hook',
        status: 'completed',
        result: { image_url: 'x' },
        error: null,
      },
      dueAt,
    );
    return id!;
  });

describe.each(ENGINES)('webhooks repository on %s', (engine) => {
  let db: TestDb;
  let storage: Storage;
  let accountId: number;
  let otherAccountId: number;
  let messagingId = 50_000;

  const newAccount = async (secret = 'whsec_AAAA') =>
    (
      await storage.accounts.create({
        messagingId: messagingId++,
        coefficientPpm: 1_000_000,
        webhookSecret: secret,
        now: 0,
      })
    ).id;

  const enqueue = (dueAt: number, account = accountId) => enqueueDelivery(storage, account, dueAt);

  /** Resets the table so each test sees only its own deliveries. */
  const clear = () => storage.db.deleteFrom('webhook_deliveries').execute();

  beforeAll(async () => {
    db = await openTestDb(engine);
    storage = Storage.from(db);
    accountId = await newAccount();
    otherAccountId = await newAccount();
  });
  afterAll(async () => db.dispose());

  it('enqueues nothing without a webhook_url, and a pending delivery with the spec payload otherwise', async () => {
    await clear();
    const none = await storage.transaction((tx) =>
      enqueueTaskWebhook(
        tx,
        {
          id: randomUUID(),
          account_id: accountId,
          webhook_url: null,
          status: 'failed',
          result: null,
          error: 'x',
        },
        1,
      ),
    );
    expect(none).toBeUndefined();
    const taskId = randomUUID();
    const id = await storage.transaction((tx) =>
      enqueueTaskWebhook(
        tx,
        {
          id: taskId,
          account_id: accountId,
          webhook_url: 'http://a.example/h',
          status: 'failed',
          result: null,
          error: 'Provider billing error',
        },
        5,
      ),
    );
    expect(id).toMatch(/^msg_[0-9a-f]{32}$/);
    const row = (await storage.webhooks.byId(id!))!;
    expect(row).toMatchObject({
      status: 'pending',
      attempts: 0,
      next_attempt_at: 5,
      task_id: taskId,
      lease_expires_at: null,
    });
    expect(JSON.parse(row.payload)).toEqual({
      task_id: taskId,
      status: 'failed',
      error: 'Provider billing error',
    });
  });

  it('claims due pending deliveries, oldest first, with a lease, and not again while the lease lasts', async () => {
    await clear();
    const later = await enqueue(300);
    const first = await enqueue(100);
    const second = await enqueue(200);
    await enqueue(10_000); // not due yet

    const claimed = await storage.webhooks.claimDue(1_000, LEASE, 2);
    expect(claimed.map((d) => d.id)).toEqual([first, second]);
    expect(claimed.every((d) => d.lease_expires_at === 2_000)).toBe(true);

    const next = await storage.webhooks.claimDue(1_500, LEASE, 10);
    expect(next.map((d) => d.id)).toEqual([later]);
    expect(await storage.webhooks.claimDue(1_900, LEASE, 10)).toEqual([]);
  });

  it('hands a delivery whose lease expired (its sender died) to the next claimer, and fences the old sender out', async () => {
    await clear();
    const id = await enqueue(0);
    const [dead] = await storage.webhooks.claimDue(1_000, LEASE, 10);
    expect(await storage.webhooks.claimDue(1_999, LEASE, 10)).toEqual([]);
    const [taken] = await storage.webhooks.claimDue(2_000, LEASE, 10);
    expect(taken.id).toBe(id);
    expect(taken.lease_expires_at).toBe(3_000);

    const failed = { status: 'pending' as const, attempts: 1, nextAttemptAt: 9_000 };
    expect(
      await storage.webhooks.recordAttempt(dead, failed, { statusCode: 500, error: 'HTTP 500' }, 2_100),
    ).toBe(false);
    expect((await storage.webhooks.byId(id))!.attempts).toBe(0);

    expect(
      await storage.webhooks.recordAttempt(taken, failed, { statusCode: 500, error: 'HTTP 500' }, 2_100),
    ).toBe(true);
    expect(await storage.webhooks.byId(id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      next_attempt_at: 9_000,
      lease_expires_at: null,
      last_status_code: 500,
      last_error: 'HTTP 500',
    });
    expect(await storage.webhooks.claimDue(8_999, LEASE, 10)).toEqual([]);
    expect((await storage.webhooks.claimDue(9_000, LEASE, 10)).map((d) => d.id)).toEqual([id]);
  });

  it('records delivered and undelivered as final: they are never claimed again', async () => {
    await clear();
    const ok = await enqueue(0);
    const bad = await enqueue(0);
    const leased = await storage.webhooks.claimDue(10, LEASE, 10);
    const byId = new Map(leased.map((d) => [d.id, d]));
    await storage.webhooks.recordAttempt(
      byId.get(ok)!,
      { status: 'delivered', attempts: 1, deliveredAt: 20 },
      { statusCode: 204, error: null },
      20,
    );
    await storage.webhooks.recordAttempt(
      byId.get(bad)!,
      { status: 'undelivered', attempts: 3 },
      { statusCode: 500, error: 'HTTP 500' },
      20,
    );
    expect(await storage.webhooks.byId(ok)).toMatchObject({
      status: 'delivered',
      delivered_at: 20,
      last_status_code: 204,
      last_error: null,
    });
    expect(await storage.webhooks.byId(bad)).toMatchObject({
      status: 'undelivered',
      attempts: 3,
      delivered_at: null,
    });
    expect(await storage.webhooks.claimDue(1_000_000, LEASE, 10)).toEqual([]);
    expect((await storage.webhooks.listByStatus('undelivered', 10)).map((d) => d.id)).toEqual([bad]);
    expect((await storage.webhooks.listByStatus('delivered', 10)).map((d) => d.id)).toEqual([ok]);
    expect(await storage.webhooks.listByStatus('pending', 10)).toEqual([]);
  });

  it('never hands one delivery to two concurrent claimers', async () => {
    await clear();
    const ids = await Promise.all(Array.from({ length: 30 }, (_, i) => enqueue(i)));
    const claims = await Promise.all(
      Array.from({ length: 12 }, () => storage.webhooks.claimDue(1_000, LEASE, 4)),
    );
    const claimed = claims.flat().map((d) => d.id);
    expect(new Set(claimed).size).toBe(claimed.length);
    expect(claimed.sort()).toEqual([...ids].sort());
  });

  it('resets a delivery for redelivery with fresh attempts and its id kept, scoped to its owner when asked', async () => {
    await clear();
    const id = await enqueue(0, otherAccountId);
    const [leased] = await storage.webhooks.claimDue(10, LEASE, 1);
    await storage.webhooks.recordAttempt(
      leased,
      { status: 'undelivered', attempts: 3 },
      { statusCode: 500, error: 'HTTP 500' },
      20,
    );

    expect(await storage.webhooks.resetForRedelivery(id, 50, accountId)).toBeUndefined();
    expect(await storage.webhooks.byId(id, accountId)).toBeUndefined();
    expect((await storage.webhooks.byId(id))!.status).toBe('undelivered');
    expect(await storage.webhooks.resetForRedelivery('msg_unknown', 50)).toBeUndefined();

    const reset = await storage.webhooks.resetForRedelivery(id, 50, otherAccountId);
    expect(reset).toMatchObject({
      id,
      status: 'pending',
      attempts: 0,
      next_attempt_at: 50,
      lease_expires_at: null,
      last_error: null,
      last_status_code: null,
    });
    expect((await storage.webhooks.claimDue(50, LEASE, 10)).map((d) => d.id)).toEqual([id]);
  });

  it('claims with each delivery its account signing secrets, as claimDue leases them', async () => {
    await clear();
    const rotated = await newAccount('whsec_ROTATED');
    await storage.accounts.update(rotated, {
      webhook_secret_previous: 'whsec_BEFORE',
      webhook_secret_previous_until: 5_000,
    });
    const second = await enqueue(200, rotated);
    const first = await enqueue(100);
    await enqueue(10_000); // not due yet

    const claimed = await storage.webhooks.claimDueWithSecrets(1_000, LEASE, 10);
    expect(claimed.map((c) => c.delivery.id)).toEqual([first, second]);
    expect(claimed.map((c) => c.delivery.lease_expires_at)).toEqual([2_000, 2_000]);
    expect(claimed[0].delivery).toEqual(await storage.webhooks.byId(first));
    expect(claimed[0].secrets).toEqual({
      webhook_secret: 'whsec_AAAA',
      webhook_secret_previous: null,
      webhook_secret_previous_until: null,
    });
    expect(claimed[1].secrets).toEqual({
      webhook_secret: 'whsec_ROTATED',
      webhook_secret_previous: 'whsec_BEFORE',
      webhook_secret_previous_until: 5_000,
    });
    // Leased: not claimed again while the lease lasts, by either claim.
    expect(await storage.webhooks.claimDueWithSecrets(1_999, LEASE, 10)).toEqual([]);
    expect(await storage.webhooks.claimDue(1_999, LEASE, 10)).toEqual([]);
    expect(await storage.webhooks.claimDueWithSecrets(1_000, LEASE, 0)).toEqual([]);
  });

  it('never hands one delivery to two concurrent claims with secrets', async () => {
    await clear();
    const ids = await Promise.all(Array.from({ length: 30 }, (_, i) => enqueue(i)));
    const claims = await Promise.all(
      Array.from({ length: 12 }, () => storage.webhooks.claimDueWithSecrets(1_000, LEASE, 4)),
    );
    const claimed = claims.flat().map((c) => c.delivery.id);
    expect(new Set(claimed).size).toBe(claimed.length);
    expect(claimed.sort()).toEqual([...ids].sort());
  });

  it('reads the signing secrets of several accounts in one call', async () => {
    const rotated = await newAccount('whsec_CURRENT');
    await storage.accounts.update(rotated, {
      webhook_secret_previous: 'whsec_OLD',
      webhook_secret_previous_until: 99,
    });
    const secrets = await storage.webhooks.signingSecrets([rotated, accountId]);
    expect(secrets.get(rotated)).toEqual({
      webhook_secret: 'whsec_CURRENT',
      webhook_secret_previous: 'whsec_OLD',
      webhook_secret_previous_until: 99,
    });
    expect(secrets.get(accountId)!.webhook_secret).toBe('whsec_AAAA');
    expect((await storage.webhooks.signingSecrets([])).size).toBe(0);
  });
});

describe.skipIf(!HAVE_POSTGRES)('webhook claims on PostgreSQL', () => {
  let db: TestDb;
  let storage: Storage;
  beforeAll(async () => {
    db = await openTestDb('postgres');
    storage = Storage.from(db);
  });
  afterAll(async () => db.dispose());

  it('claims with the signing secrets in one round trip, where claim then secrets took two', async () => {
    const account = (
      await storage.accounts.create({
        messagingId: 60_000,
        coefficientPpm: 1_000_000,
        webhookSecret: 'whsec_X',
        now: 0,
      })
    ).id;
    const enqueue = () => enqueueDelivery(storage, account, 0);
    let statements = 0;
    const counted = new WebhooksRepository(
      storage.db.withPlugin({
        transformQuery: (args) => args.node,
        transformResult: async (args) => {
          statements++;
          return args.result;
        },
      }),
      'postgres',
    );

    await enqueue();
    await enqueue();
    const claimed = await counted.claimDueWithSecrets(10, LEASE, 10);
    expect(claimed).toHaveLength(2);
    expect(claimed.every((c) => c.secrets.webhook_secret === 'whsec_X')).toBe(true);
    expect(statements).toBe(1);

    await enqueue();
    const leased = await counted.claimDue(10, LEASE, 10);
    await counted.signingSecrets(leased.map((d) => d.account_id));
    expect(statements).toBe(3);
  });
});
