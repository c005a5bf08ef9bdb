// The webhook sender end to end: a gengate on a test database, its sender loop, and a real HTTP
// receiver on loopback. Deliveries are written through the outbox exactly as the task engine does.
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { enqueueTaskWebhook, type FinalTask } from '../services/webhooks/outbox.js';
import type { WebhookDeliveryRow } from '../storage/repositories/webhooks.js';
import { ADMIN_TOKEN, createTestApp, type TestApp, type TestKey } from '../testing/app.js';
import { ENGINES } from '../testing/db.js';
import { type Receiver, type Responder, startReceiver } from '../testing/webhook-receiver.js';
import type { RunningWorker } from './loop.js';
import { startWebhookSender } from './webhook-sender.js';

// Long enough for a first delivery on a loaded CI machine (cold connection, JIT), short for the slow-receiver tests.
const TIMEOUT_MS = 1_000;
const RETRY_DELAY_MS = 100;
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

async function eventually<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.each(ENGINES)('webhook delivery on %s', (engine) => {
  let app: TestApp;
  let sender: RunningWorker;
  let key: TestKey;
  let receiver: Receiver;

  const enqueue = (task: Partial<FinalTask> & { webhook_url: string }) =>
    app.ctx.storage.transaction(async (tx) => {
      const full: FinalTask = {
        id: randomUUID(),
        account_id: key.accountId,
        status: 'completed',
        result: { image_url: 'http://x/i.png', width: 1024, height: 1024 },
        error: null,
        ...task,
      };
      return { taskId: full.id, deliveryId: (await enqueueTaskWebhook(tx, full, app.ctx.clock.now()))! };
    });
  const delivery = async (id: string) => (await app.ctx.storage.webhooks.byId(id))!;
  const settled = (id: string) =>
    eventually(async () => {
      const row = await delivery(id);
      return row.status === 'pending' ? undefined : row;
    }, `delivery ${id} to leave pending`);
  const receive = async (respond: Responder) => {
    receiver = await startReceiver(respond);
    return `${receiver.url}/hooks/gengate`;
  };
  const metric = async (outcome: string) => {
    const text = (await app.http.inject({ method: 'GET', url: '/metrics' })).body;
    const line = text
      .split('\n')
      .find((l) => l.startsWith(`gengate_webhook_deliveries_total{outcome="${outcome}"}`));
    return line ? Number(line.split(' ').pop()) : 0;
  };

  beforeAll(async () => {
    app = await createTestApp({
      engine,
      config: { webhookTimeoutMs: TIMEOUT_MS, webhookRetryDelaysMs: [RETRY_DELAY_MS, RETRY_DELAY_MS] },
    });
    key = await app.newKey();
    sender = startWebhookSender(app.ctx, (message, error) => console.error(message, error));
  });
  afterEach(async () => receiver?.close());
  afterAll(async () => {
    await sender.stop();
    await app.dispose();
  });

  it('delivers a completed task as {task_id, status, result}, signed so that standardwebhooks verifies it', async () => {
    const url = await receive(() => ({ status: 200, body: 'thanks' }));
    const { taskId, deliveryId } = await enqueue({ webhook_url: url });

    const row = await settled(deliveryId);
    expect(row).toMatchObject({ status: 'delivered', attempts: 1, last_status_code: 200, last_error: null });
    const [request] = receiver.requests;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/hooks/gengate');
    expect(request.headers['webhook-id']).toBe(deliveryId);
    const { webhook_secret } = (await app.ctx.storage.accounts.byId(key.accountId))!;
    const payload = new Webhook(webhook_secret).verify(
      request.body,
      request.headers as Record<string, string>,
    );
    expect(payload).toEqual({
      task_id: taskId,
      status: 'completed',
      result: { image_url: 'http://x/i.png', width: 1024, height: 1024 },
    });
    expect(Object.keys(JSON.parse(request.body))).toEqual(['task_id', 'status', 'result']);
  });

  it('delivers a failed task as {task_id, status, error}', async () => {
    const url = await receive(() => ({ status: 202 }));
    const { taskId, deliveryId } = await enqueue({
      webhook_url: url,
      status: 'failed',
      result: null,
      error: 'Provider billing error',
    });
    expect((await settled(deliveryId)).status).toBe('delivered');
    expect(JSON.parse(receiver.requests[0].body)).toEqual({
      task_id: taskId,
      status: 'failed',
      error: 'Provider billing error',
    });
  });

  it('signs with the new and the old secret during a rotation grace period; both verify', async () => {
    const rotatedKey = await app.newKey();
    const before = (await app.ctx.storage.accounts.byId(rotatedKey.accountId))!.webhook_secret;
    const rotation = await app.http.inject({
      method: 'POST',
      url: `/admin/accounts/${rotatedKey.messagingId}/webhook-secret/rotate`,
      headers: admin,
    });
    expect(rotation.statusCode).toBe(200);
    const after = rotation.json().webhook_secret as string;
    expect(after).not.toBe(before);

    const url = await receive(() => ({ status: 200 }));
    const { deliveryId } = await enqueue({ webhook_url: url, account_id: rotatedKey.accountId });
    expect((await settled(deliveryId)).status).toBe('delivered');
    const [request] = receiver.requests;
    const headers = request.headers as Record<string, string>;
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => new Webhook(after).verify(request.body, headers)).not.toThrow();
    expect(() => new Webhook(before).verify(request.body, headers)).not.toThrow();
  });

  it('retries 500, 500 then 200: three attempts with the same webhook-id, the retry delay apart, then delivered', async () => {
    const delivered = await metric('delivered');
    const failedAttempts = await metric('failed_attempt');
    const url = await receive((_request, index) => ({ status: index < 2 ? 500 : 200 }));
    const { deliveryId } = await enqueue({ webhook_url: url });

    const row = await settled(deliveryId);
    expect(row).toMatchObject({ status: 'delivered', attempts: 3, last_status_code: 200 });
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([
      deliveryId,
      deliveryId,
      deliveryId,
    ]);
    // A retry is never sent before its delay has passed since the failed answer.
    const [first, second, third] = receiver.requests.map((r) => r.receivedAt);
    expect(second - first).toBeGreaterThanOrEqual(RETRY_DELAY_MS);
    expect(third - second).toBeGreaterThanOrEqual(RETRY_DELAY_MS);
    expect(await metric('delivered')).toBe(delivered + 1);
    expect(await metric('failed_attempt')).toBe(failedAttempts + 2);
  });

  it('always 500: three attempts, then undelivered, kept, and listed by GET /admin/webhooks?status=undelivered', async () => {
    const undelivered = await metric('undelivered');
    const url = await receive(() => ({ status: 500 }));
    const { taskId, deliveryId } = await enqueue({ webhook_url: url });

    const row = await settled(deliveryId);
    expect(row).toMatchObject({
      status: 'undelivered',
      attempts: 3,
      last_status_code: 500,
      last_error: 'HTTP 500',
      delivered_at: null,
    });
    expect(receiver.requests).toHaveLength(3);
    await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS * 3));
    expect(receiver.requests).toHaveLength(3);
    expect(await metric('undelivered')).toBe(undelivered + 1);

    const listed = await app.http.inject({
      method: 'GET',
      url: '/admin/webhooks?status=undelivered',
      headers: admin,
    });
    expect(listed.statusCode).toBe(200);
    expect(listed.json()).toContainEqual(
      expect.objectContaining({
        id: deliveryId,
        task_id: taskId,
        url,
        status: 'undelivered',
        attempts: 3,
        last_status_code: 500,
        last_error: 'HTTP 500',
      }),
    );
    const pending = await app.http.inject({
      method: 'GET',
      url: '/admin/webhooks?status=pending',
      headers: admin,
    });
    expect(pending.json().map((d: { id: string }) => d.id)).not.toContain(deliveryId);
  });

  it('counts a receiver slower than WEBHOOK_TIMEOUT_MS as a failed attempt', async () => {
    const url = await receive((_request, index) =>
      index === 0 ? { status: 200, delayMs: TIMEOUT_MS * 4 } : { status: 200 },
    );
    const { deliveryId } = await enqueue({ webhook_url: url });
    const row = await settled(deliveryId);
    expect(row).toMatchObject({ status: 'delivered', attempts: 2, last_status_code: 200 });
    expect(receiver.requests).toHaveLength(2);
  });

  it('records the timeout as the reason of a failed attempt', async () => {
    const url = await receive(() => ({ status: 200, delayMs: TIMEOUT_MS * 4 }));
    const { deliveryId } = await enqueue({ webhook_url: url });
    const row = await settled(deliveryId);
    expect(row).toMatchObject({
      status: 'undelivered',
      attempts: 3,
      last_status_code: null,
      last_error: `no answer within ${TIMEOUT_MS} ms`,
    });
  });

  it('counts a 302 as a failed attempt and never follows it to its Location', async () => {
    const url = await receive((request) =>
      request.path === '/elsewhere'
        ? { status: 200 }
        : { status: 302, headers: { location: `${receiver.url}/elsewhere` } },
    );
    const { deliveryId } = await enqueue({ webhook_url: url });
    const row = await settled(deliveryId);
    expect(row).toMatchObject({
      status: 'undelivered',
      attempts: 3,
      last_status_code: 302,
      last_error: 'HTTP 302',
    });
    expect(receiver.requests.map((r) => r.path)).toEqual([
      '/hooks/gengate',
      '/hooks/gengate',
      '/hooks/gengate',
    ]);
  });

  it('redelivers an undelivered delivery on POST /admin/webhooks/:id/redeliver: fresh attempts, same webhook-id, audited', async () => {
    let healthy = false;
    const url = await receive(() => ({ status: healthy ? 200 : 500 }));
    const { deliveryId } = await enqueue({ webhook_url: url });
    expect((await settled(deliveryId)).status).toBe('undelivered');

    expect(
      (await app.http.inject({ method: 'POST', url: `/admin/webhooks/${deliveryId}/redeliver` })).statusCode,
    ).toBe(401);
    expect((await delivery(deliveryId)).status).toBe('undelivered');
    const unknown = await app.http.inject({
      method: 'POST',
      url: '/admin/webhooks/msg_nope/redeliver',
      headers: admin,
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('not_found');

    healthy = true;
    const answer = await app.http.inject({
      method: 'POST',
      url: `/admin/webhooks/${deliveryId}/redeliver`,
      headers: admin,
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toMatchObject({ id: deliveryId, status: 'pending', attempts: 0, last_error: null });

    const row = await settled(deliveryId);
    expect(row).toMatchObject({ status: 'delivered', attempts: 1, last_status_code: 200 });
    expect(receiver.requests).toHaveLength(4);
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([deliveryId]));
    const audit = await app.ctx.storage.audit.listForAccount(key.accountId);
    expect(audit).toContainEqual(
      expect.objectContaining({
        actor: 'admin',
        action: 'webhook.redelivered',
        details: JSON.stringify({ delivery_id: deliveryId, task_id: row.task_id }),
      }),
    );
  });

  it('keeps one slow receiver from holding back the others', async () => {
    const slow = await startReceiver(() => 'hang');
    try {
      const url = await receive(() => ({ status: 200 }));
      const stuck = await enqueue({ webhook_url: `${slow.url}/slow` });
      await slow.waitForRequests(1);
      const fast = await enqueue({ webhook_url: url });
      const row: WebhookDeliveryRow = await settled(fast.deliveryId);
      expect(row.status).toBe('delivered');
      expect((await delivery(stuck.deliveryId)).status).toBe('pending');
    } finally {
      await slow.close();
    }
  });
});
