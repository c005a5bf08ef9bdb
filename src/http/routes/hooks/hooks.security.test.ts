// POST /hooks/{provider}: a callback moves only the task its URL was made for, only with the token we
// gave that URL, never a final task, and never anything when forged. Duplicates are harmless.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finalizeTask } from '../../../services/tasks/finalize.js';
import { ADMIN_TOKEN, type TestKey } from '../../../testing/app.js';
import { createTaskTestApp, generate, type TaskTestApp } from '../../../testing/tasks.js';

let app: TaskTestApp;
let key: TestKey;
let dir: string;
const FAR = 9_999_999_999_999;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gengate-hooks-'));
  const providersFile = join(dir, 'providers.json');
  writeFileSync(
    providersFile,
    JSON.stringify({
      providers: { fal: { type: 'fal', base_url: 'http://127.0.0.1:9', api_key: 'k' } },
      routes: { 'kling-2-1': { provider: 'fal', model: 'fal-ai/kling' } },
    }),
  );
  // No runner: the test alone moves the tasks.
  app = await createTaskTestApp({ runner: false, config: { providersFile } });
  key = await app.newKey({ balanceRub: 1000 });
});

afterAll(async () => {
  await app.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** A task waiting at fal for a poll far in the future. */
async function waitingTask(jobId: string): Promise<string> {
  const res = await generate(app, key, { model_name: 'kling-2-1', prompt: 'a cat', duration: 5 });
  expect(res.statusCode).toBe(202);
  const id = res.json().task_id as string;
  await app.ctx.storage.db
    .updateTable('tasks')
    .set({ status: 'processing', provider_job_id: jobId, run_at: FAR })
    .where('id', '=', id)
    .execute();
  return id;
}

const runAt = async (id: string) => Number((await app.ctx.storage.tasks.byIdForWorker(id))?.run_at);

function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  return app.http.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function hookPath(taskId: string, provider = 'fal'): Promise<string> {
  const url = new URL(await app.ctx.providerHooks.callbackUrl(provider, taskId));
  return `${url.pathname}${url.search}`;
}

describe('POST /hooks/{provider}', () => {
  it('a callback with our token polls its task now; a duplicate changes nothing more', async () => {
    const id = await waitingTask('11111111-1111-4111-8111-111111111111');
    const path = await hookPath(id);
    const first = await post(path, { request_id: '11111111-1111-4111-8111-111111111111', status: 'OK' });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ received: true });
    const moved = await runAt(id);
    expect(moved).toBeLessThan(Date.now() + 1);
    const again = await post(path, { request_id: '11111111-1111-4111-8111-111111111111', status: 'OK' });
    expect(again.statusCode).toBe(200);
    const task = await app.ctx.storage.tasks.byIdForWorker(id);
    expect(task).toMatchObject({
      status: 'processing',
      provider_job_id: '11111111-1111-4111-8111-111111111111',
    });
  });

  it("a wrong or missing token, or another task's token, is 401 and moves nothing", async () => {
    const id = await waitingTask('22222222-2222-4222-8222-222222222222');
    const other = await waitingTask('33333333-3333-4333-8333-333333333333');
    const otherToken = new URL(await app.ctx.providerHooks.callbackUrl('fal', other)).searchParams.get(
      'token',
    );
    for (const url of [
      `/hooks/fal?task=${id}&token=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`,
      `/hooks/fal?task=${id}`,
      `/hooks/fal?task=${id}&token=${otherToken}`,
    ]) {
      const res = await post(url, { request_id: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa' });
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toMatchObject({ code: 'invalid_signature', type: 'authentication_error' });
    }
    // A token for the same task under another provider name does not verify either.
    const wrongProvider = new URL(await app.ctx.providerHooks.callbackUrl('replicate', id)).searchParams.get(
      'token',
    );
    expect((await post(`/hooks/fal?task=${id}&token=${wrongProvider}`, {})).statusCode).toBe(401);
    expect(await runAt(id)).toBe(FAR);
    // The job id a forged callback named was not recorded anywhere.
    expect((await app.ctx.storage.tasks.byIdForWorker(id))?.provider_job_id).toBe(
      '22222222-2222-4222-8222-222222222222',
    );
  });

  it('a callback without our query moves only the task of the job it names, at that provider', async () => {
    const id = await waitingTask('44444444-4444-4444-8444-444444444444');
    expect(
      (await post('/hooks/fal', { request_id: '55555555-5555-4555-8555-555555555555' })).statusCode,
    ).toBe(200);
    expect(await runAt(id)).toBe(FAR);
    expect(
      (await post('/hooks/fal', { request_id: '44444444-4444-4444-8444-444444444444' })).statusCode,
    ).toBe(200);
    expect(await runAt(id)).toBeLessThan(Date.now() + 1);
  });

  it('a final task never changes', async () => {
    const id = await waitingTask('66666666-6666-4666-8666-666666666666');
    await app.ctx.storage.db.updateTable('tasks').set({ lease_owner: 'w' }).where('id', '=', id).execute();
    await finalizeTask(
      app.ctx.storage,
      app.ctx.taskEvents,
      id,
      'w',
      { status: 'failed', error: 'x' },
      Date.now(),
    );
    const before = await app.ctx.storage.tasks.byIdForWorker(id);
    expect(
      (await post(await hookPath(id), { request_id: '77777777-7777-4777-8777-777777777777' })).statusCode,
    ).toBe(200);
    expect(await app.ctx.storage.tasks.byIdForWorker(id)).toEqual(before);
  });

  it('an unknown provider is 404, an oversized body 413, and callbacks are taken in maintenance mode', async () => {
    const unknown = await post('/hooks/nobody', {});
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('not_found');
    const big = await post('/hooks/fal', JSON.stringify({ pad: 'x'.repeat(1024 * 1024 + 10) }));
    expect(big.statusCode).toBe(413);
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const on = await app.http.inject({
      method: 'PUT',
      url: '/admin/maintenance',
      headers: admin,
      payload: { enabled: true },
    });
    expect(on.statusCode).toBe(200);
    try {
      expect((await post('/hooks/fal', { request_id: 'x' })).statusCode).toBe(200);
    } finally {
      await app.http.inject({
        method: 'PUT',
        url: '/admin/maintenance',
        headers: admin,
        payload: { enabled: false },
      });
    }
  });
});
