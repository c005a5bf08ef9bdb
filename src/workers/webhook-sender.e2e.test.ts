// Webhooks from real tasks: POST /generate with a webhook_url, the embedded task runner finishes the
// task through the simulator, and the sender delivers the outbox row the task engine wrote in the
// finishing transaction.
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN_TOKEN, type TestKey } from '../testing/app.js';
import {
  createTaskTestApp,
  expectLedgerClean,
  generate,
  getTask,
  type TaskTestApp,
  waitForFinal,
} from '../testing/tasks.js';
import { type Receiver, type Responder, startReceiver } from '../testing/webhook-receiver.js';
import type { RunningWorker } from './loop.js';
import { startWebhookSender } from './webhook-sender.js';

let app: TaskTestApp;
let sender: RunningWorker;
let key: TestKey;
let receiver: Receiver;

const receive = async (respond: Responder) => {
  receiver = await startReceiver(respond);
  return `${receiver.url}/gengate`;
};
const deliveryOf = async (taskId: string) =>
  app.ctx.storage.db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('task_id', '=', taskId)
    .executeTakeFirst();

beforeAll(async () => {
  app = await createTaskTestApp({ config: { webhookRetryDelaysMs: [50, 50] } });
  sender = startWebhookSender(app.ctx, (message, error) => console.error(message, error));
  key = await app.newKey({ balanceRub: 1000 });
});
afterEach(async () => receiver?.close());
afterAll(async () => {
  await sender.stop();
  await expectLedgerClean(app);
  await app.dispose();
});

describe('webhooks of real tasks', () => {
  it('a completed task posts {task_id, status, result} equal to GET /tasks/{id}, signed with the account secret', async () => {
    const url = await receive(() => ({ status: 200 }));
    const created = await generate(app, key, {
      model_name: 'flux-1-1-pro',
      prompt: 'a red fox',
      webhook_url: url,
    });
    expect(created.statusCode).toBe(202);
    const taskId = created.json().task_id as string;

    const [request] = await receiver.waitForRequests(1);
    const task = await getTask(app, key, taskId);
    const { webhook_secret } = (await app.ctx.storage.accounts.byId(key.accountId))!;
    const payload = new Webhook(webhook_secret).verify(
      request.body,
      request.headers as Record<string, string>,
    );
    expect(payload).toEqual({ task_id: taskId, status: 'completed', result: task.result });
    expect(request.headers['webhook-id']).toBe((await deliveryOf(taskId))!.id);
  });

  it('a failed task posts {task_id, status, error}', async () => {
    const url = await receive(() => ({ status: 200 }));
    const created = await generate(app, key, {
      model_name: 'flux-1-1-pro',
      prompt: 'a red fox [sim:fail=billing]',
      webhook_url: url,
    });
    const taskId = created.json().task_id as string;
    const [request] = await receiver.waitForRequests(1);
    expect(JSON.parse(request.body)).toEqual({
      task_id: taskId,
      status: 'failed',
      error: 'Provider billing error',
    });
  });

  it('a receiver that always answers 500 gets 3 attempts, the delivery ends undelivered, and the task stays readable', async () => {
    const url = await receive(() => ({ status: 500 }));
    const created = await generate(app, key, {
      model_name: 'flux-1-1-pro',
      prompt: 'a red fox',
      webhook_url: url,
    });
    const taskId = created.json().task_id as string;
    await vi.waitFor(async () => expect((await deliveryOf(taskId))?.status).toBe('undelivered'), {
      timeout: 10_000,
      interval: 20,
    });

    expect(receiver.requests).toHaveLength(3);
    const listed = await app.http.inject({
      method: 'GET',
      url: '/admin/webhooks?status=undelivered',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(listed.json().map((d: { task_id: string }) => d.task_id)).toContain(taskId);
    const task = await waitForFinal(app, key, taskId);
    expect(task).toMatchObject({ task_id: taskId, status: 'completed' });
    expect(task.result).toEqual(JSON.parse(receiver.requests[0].body).result);
  });

  it('a task without webhook_url writes no delivery', async () => {
    const created = await generate(app, key, { model_name: 'flux-1-1-pro', prompt: 'a red fox' });
    const taskId = created.json().task_id as string;
    await waitForFinal(app, key, taskId);
    expect(await deliveryOf(taskId)).toBeUndefined();
  });
});
