// The runner against a scripted provider: transient errors are retried, URL results are downloaded
// with the size cap, a provider "busy" on poll re-queues, and a provider that disappeared fails the
// task with a refund.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TASK_FAILURE } from '../domain/tasks/states.js';
import type { PollOutcome, ProviderTask, SubmitOutcome, TaskProvider } from '../providers/task-provider.js';
import { TasksRepository } from '../storage/repositories/tasks.js';
import type { TestKey } from '../testing/app.js';
import {
  balanceOf,
  createTaskTestApp,
  expectLedgerClean,
  generate,
  type TaskTestApp,
  waitForFinal,
} from '../testing/tasks.js';

/** A provider whose answers are scripted per prompt. */
class ScriptedProvider implements TaskProvider {
  readonly type = 'scripted';
  submits = new Map<string, number>();
  polls = new Map<string, number>();
  constructor(private readonly fileUrl: string) {}

  async submit(task: ProviderTask): Promise<SubmitOutcome> {
    this.submits.set(task.id, (this.submits.get(task.id) ?? 0) + 1);
    if (task.params.prompt === 'refuse')
      return { status: 'failed', failure: { kind: 'params', message: 'unexpected parameter: sharpness' } };
    return {
      status: 'submitted',
      jobId: `job-${task.id}`,
      retryAfterMs: task.params.prompt === 'ready' ? 0 : 1,
    };
  }

  async poll(_jobId: string, task: ProviderTask): Promise<PollOutcome> {
    const n = (this.polls.get(task.id) ?? 0) + 1;
    this.polls.set(task.id, n);
    if (task.params.prompt === 'flaky' && n === 1) throw new Error('ECONNRESET');
    if (task.params.prompt === 'busy-once' && task.requeues === 0) return { status: 'busy' };
    if (n < 2 && task.params.prompt !== 'ready') return { status: 'running', retryAfterMs: 1 };
    return { status: 'succeeded', outputs: [{ source: { kind: 'url', url: this.fileUrl }, durationSec: 5 }] };
  }
}

const video = Buffer.concat([Buffer.from([0, 0, 0, 16]), Buffer.from('ftypisom'), Buffer.alloc(3000, 7)]);
let app: TaskTestApp;
let key: TestKey;
let provider: ScriptedProvider;
let server: Server;
let dir: string;

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': video.length });
    res.end(video);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  dir = mkdtempSync(join(tmpdir(), 'gengate-step-'));
  const providersFile = join(dir, 'providers.json');
  writeFileSync(
    providersFile,
    JSON.stringify({
      providers: { upstream: { type: 'fal', base_url: 'http://127.0.0.1:9', api_key: 'k' } },
      routes: { 'kling-2-1': { provider: 'upstream', model: 'k' } },
    }),
  );
  app = await createTaskTestApp({ config: { providersFile, requeueDelayMs: 20 } });
  provider = new ScriptedProvider(`http://127.0.0.1:${(server.address() as { port: number }).port}/result`);
  app.ctx.taskProviders.registerType('fal', () => provider);
  key = await app.newKey({ balanceRub: 1000 });
});

afterAll(async () => {
  await expectLedgerClean(app);
  await app.dispose();
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(prompt: string) {
  const res = await generate(app, key, { model_name: 'kling-2-1', prompt, duration: 5 });
  expect(res.statusCode).toBe(202);
  const taskId = res.json().task_id as string;
  return { taskId, task: await waitForFinal(app, key, taskId) };
}

describe('task steps against an upstream', () => {
  it('downloads a URL result into our storage and serves it from PUBLIC_URL', async () => {
    const { taskId, task } = await run('ok');
    expect(task.status).toBe('completed');
    expect(task.result?.video_url.startsWith(`${app.config.publicUrl}/objects/`)).toBe(true);
    const file = await app.http.inject({ method: 'GET', url: new URL(task.result!.video_url).pathname });
    expect(file.rawPayload).toEqual(video);
    expect(provider.submits.get(taskId)).toBe(1);
  });

  it('a job ready at submit is polled in the same step: claimed once, job id stored, settled', async () => {
    const claim = vi.spyOn(TasksRepository.prototype, 'claimDue');
    try {
      const before = await balanceOf(app, key);
      const { taskId, task } = await run('ready');
      expect(task.status).toBe('completed');
      expect(provider.submits.get(taskId)).toBe(1);
      expect(provider.polls.get(taskId)).toBe(1);
      const claims = await Promise.all(claim.mock.results.map((r) => r.value as Promise<{ id: string }[]>));
      expect(claims.flat().filter((row) => row.id === taskId)).toHaveLength(1);
      const row = await app.ctx.storage.tasks.byIdForWorker(taskId);
      expect(row).toMatchObject({ provider_job_id: `job-${taskId}`, attempts: 1, lease_owner: null });
      const after = await balanceOf(app, key);
      expect(after.held).toBe(before.held);
      expect(after.balance).toBe(before.balance - (row?.cost ?? 0));
      expect(row?.cost).toBeGreaterThan(0);
    } finally {
      claim.mockRestore();
    }
  });

  it('retries after a network error while polling, without submitting again', async () => {
    const { taskId, task } = await run('flaky');
    expect(task.status).toBe('completed');
    expect(provider.submits.get(taskId)).toBe(1);
    expect(provider.polls.get(taskId)).toBe(2); // the failed poll, then the one that succeeded
  });

  it('a provider that loses the job for lack of capacity re-queues the task, then it completes', async () => {
    const { taskId, task } = await run('busy-once');
    expect(task.status).toBe('completed');
    expect((await app.ctx.storage.tasks.byIdForWorker(taskId))?.requeues).toBe(1);
    expect(provider.submits.get(taskId)).toBe(2);
  });

  it('a parameter rejection at submit fails the task with its message and refunds', async () => {
    const before = await balanceOf(app, key);
    const { task } = await run('refuse');
    expect(task).toMatchObject({ status: 'failed', error: 'unexpected parameter: sharpness' });
    expect(await balanceOf(app, key)).toEqual(before);
  });

  it('a result over MAX_RESULT_BYTES fails the task and refunds', async () => {
    const small = await createTaskTestApp({
      config: { providersFile: app.config.providersFile, maxResultBytes: 1000 },
    });
    try {
      small.ctx.taskProviders.registerType('fal', () => provider);
      const k = await small.newKey({ balanceRub: 100 });
      const res = await generate(small, k, { model_name: 'kling-2-1', prompt: 'ok', duration: 5 });
      const task = await waitForFinal(small, k, res.json().task_id);
      expect(task).toMatchObject({
        status: 'failed',
        error: 'The result is larger than the limit of 1000 bytes',
      });
      expect(await balanceOf(small, k)).toEqual({ balance: 100_000_000, held: 0 });
      await expectLedgerClean(small);
    } finally {
      await small.dispose();
    }
  });

  it('a task whose job is at a provider no longer configured fails with a refund instead of hanging', async () => {
    await app.runner?.stop();
    const res = await generate(app, key, { model_name: 'kling-2-1', prompt: 'ok', duration: 5 });
    const taskId = res.json().task_id as string;
    await app.ctx.storage.db
      .updateTable('tasks')
      .set({ provider: 'removed-provider', provider_job_id: 'job-at-removed', status: 'processing' })
      .where('id', '=', taskId)
      .execute();
    app.runner?.start();
    const task = await waitForFinal(app, key, taskId);
    expect(task).toMatchObject({ status: 'failed', error: TASK_FAILURE.upstream });
  });
});
