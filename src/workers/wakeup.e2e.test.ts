// LISTEN/NOTIFY between two gengates on one PostgreSQL schema: a task created through one (an API
// process, no runner) is claimed by the other's runner at once, not at its next poll (60 s here);
// a finished task wakes other processes' webhook senders only from a process that has none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTIFY_SPACING_MS, PgWakeups } from '../storage/pg-wakeups.js';
import { openTestDb, type TestDb } from '../testing/db.js';
import { waitFor } from '../testing/provider-e2e.js';
import { HAVE_POSTGRES } from '../testing/services.js';
import { createTaskTestApp, expectLedgerClean, generate, type TaskTestApp } from '../testing/tasks.js';
import { startWebhookSender } from './webhook-sender.js';

describe.skipIf(!HAVE_POSTGRES)('workers woken through LISTEN/NOTIFY', () => {
  let db: TestDb;
  let api: TaskTestApp;
  let worker: TaskTestApp;

  beforeAll(async () => {
    db = await openTestDb('postgres');
    const config = { databaseUrl: db.url, workerPollIntervalMs: 60_000 };
    api = await createTaskTestApp({ db, runner: false, config });
    worker = await createTaskTestApp({ db, config });
    await (worker.ctx.wakeups as PgWakeups).ready();
  });
  afterAll(async () => {
    await worker?.dispose();
    await api?.dispose();
    await db?.dispose();
  });

  it('a task created in one process is claimed by the other within seconds, not a poll interval', async () => {
    // The runner's first claim at start is over; its next poll is a minute away.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const key = await api.newKey({ balanceRub: 10 });
    const started = Date.now();
    const res = await generate(api, key, {
      model_name: 'flux-1-1-pro',
      prompt: 'a red fox',
      aspect_ratio: '1:1',
    });
    expect(res.statusCode).toBe(202);
    const taskId: string = res.json().task_id;
    // Read the row directly: polling GET /tasks would count against the key's rate limit.
    let row = await api.ctx.storage.tasks.byIdForWorker(taskId);
    while (row?.status === 'pending' && Date.now() - started < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      row = await api.ctx.storage.tasks.byIdForWorker(taskId);
    }
    // Claimed by the worker's runner (the simulator's job then runs on its own schedule).
    expect(row?.status).not.toBe('pending');
    expect(Date.now() - started).toBeLessThan(10_000);
    await expectLedgerClean(api);
  });

  it('a finished task wakes the webhook senders of other processes only when its process runs none', async () => {
    const observer = new PgWakeups(db.kysely, db.url!);
    let webhooks = 0;
    observer.on('webhooks', () => webhooks++);
    await observer.ready();
    const sender = startWebhookSender(worker.ctx, () => {});
    try {
      webhooks = 0;
      // The worker runs a sender: it delivers what it finishes itself, and tells no one.
      worker.ctx.taskEvents.finished('finished-in-a-process-with-a-sender');
      await new Promise((resolve) => setTimeout(resolve, NOTIFY_SPACING_MS + 500));
      expect(webhooks).toBe(0);
      // The API process runs none: its finished task wakes the senders of the others.
      api.ctx.taskEvents.finished('finished-in-a-process-without-one');
      await waitFor(
        () => webhooks,
        (count) => count > 0,
      );
      // Once its sender has stopped, the worker wakes the others too.
      await sender.stop();
      webhooks = 0;
      worker.ctx.taskEvents.finished('finished-after-the-sender-stopped');
      await waitFor(
        () => webhooks,
        (count) => count > 0,
      );
    } finally {
      await sender.stop();
      await observer.close();
    }
  });
});
