// The client against a real gengate (in-process app on a loopback port, simulator provider).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestKey } from '../../../src/testing/app.js';
import {
  AuthenticationError,
  Gengate,
  InsufficientBalanceError,
  MaintenanceError,
  NotFoundError,
  PermissionDeniedError,
  type Task,
  TaskFailedError,
  ValidationError,
} from '../src/index.js';
import { startDroppingProxy } from './dropping-proxy.js';
import { startTestServer, type TestServer, tasksOfAccount } from './server.js';

let server: TestServer;
let key: TestKey;
let gengate: Gengate;
const dir = mkdtempSync(join(tmpdir(), 'gengate-client-'));

beforeAll(async () => {
  server = await startTestServer();
  key = await server.newKey(1000);
  gengate = new Gengate({ apiKey: key.secret, baseUrl: server.baseUrl });
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const FAST = { intervalMs: 50, timeoutMs: 20_000 };

describe('generate and wait', () => {
  it('run() makes a seedance-2 video and answers the completed task; downloadResult writes the MP4', async () => {
    const seen: string[] = [];
    const task = await gengate.run(
      { model_name: 'seedance-2', prompt: 'a lighthouse at dawn', duration: 5, aspect_ratio: '16:9' },
      { ...FAST, onProgress: (t) => seen.push(t.status) },
    );
    expect(task.status).toBe('completed');
    expect(task.model_name).toBe('seedance-2');
    expect(task.result.video_url).toMatch(new RegExp(`^${server.baseUrl}/objects/`));
    expect(seen.at(-1)).toBe('completed');

    const path = join(dir, 'lighthouse.mp4');
    const saved = await gengate.downloadResult(task, path);
    const bytes = readFileSync(path);
    expect(saved.bytes).toBe(bytes.length);
    expect(saved.contentType).toBe('video/mp4');
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');

    const chunks: Uint8Array[] = [];
    const sink = new WritableStream<Uint8Array>({ write: (chunk) => void chunks.push(chunk) });
    const streamed = await gengate.downloadResult(task, sink);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
    expect(streamed.bytes).toBe(bytes.length);
  });

  it('waitForTask answers a failed task; run() throws TaskFailedError with it, and the hold is back', async () => {
    const before = (await gengate.balance()).key_balance;
    const { task_id } = await gengate.generate({ model_name: 'flux-1-1-pro', prompt: 'x [sim:fail=reject]' });
    const failed = await gengate.waitForTask(task_id, FAST);
    expect(failed.status).toBe('failed');
    expect(failed.error).toBe('Provider rejected prompt: contains restricted content');

    const error = await gengate
      .run({ model_name: 'flux-1-1-pro', prompt: 'y [sim:fail=billing]' }, FAST)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskFailedError);
    expect((error as TaskFailedError).task.error).toBe('Provider billing error');
    expect((await gengate.balance()).key_balance).toBe(before);
  });

  it('downloadResult refuses a task without a result file', async () => {
    const { task_id } = await gengate.generate({
      model_name: 'flux-1-1-pro',
      prompt: 'late [sim:delay=2000]',
    });
    const pending = await gengate.getTask(task_id);
    await expect(gengate.downloadResult(pending, join(dir, 'nothing.png'))).rejects.toThrow(/no result file/);
    await gengate.waitForTask(task_id, FAST);
  });
});

describe('idempotency and retries', () => {
  it('generate sends a fresh Idempotency-Key per call, and a given key replays the same task', async () => {
    const sent: Array<string | null> = [];
    const recording = new Gengate({
      apiKey: key.secret,
      baseUrl: server.baseUrl,
      fetch: (input, init) => {
        sent.push(new Headers(init?.headers).get('idempotency-key'));
        return fetch(input, init);
      },
    });
    const params = { model_name: 'flux-1-1-pro' as const, prompt: 'a red fox' };
    const a = await recording.generate(params);
    const b = await recording.generate(params);
    expect(a.task_id).not.toBe(b.task_id);
    expect(sent[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[1]).not.toBe(sent[0]);

    const c = await recording.generate(params, { idempotencyKey: 'order-1842-image' });
    const d = await recording.generate(params, { idempotencyKey: 'order-1842-image' });
    expect(d.task_id).toBe(c.task_id);
    await Promise.all([a, b, c].map((t) => gengate.waitForTask(t.task_id, FAST)));
  });

  it('a connection dropped after the server created the task: the retry makes ONE task, not two', async () => {
    const own = await server.newKey(100);
    const proxy = await startDroppingProxy(
      server.baseUrl,
      (request, index) => request.method === 'POST' && index === 0,
    );
    try {
      const client = new Gengate({ apiKey: own.secret, baseUrl: proxy.url });
      const { task_id } = await client.generate({ model_name: 'seedance-2', prompt: 'a dropped answer' });

      const posts = proxy.requests.filter((r) => r.method === 'POST');
      expect(posts).toHaveLength(2);
      expect(posts[0]!.dropped).toBe(true);
      expect(posts[0]!.upstreamStatus).toBe(202);
      expect(posts[1]!.headers['idempotency-key']).toBe(posts[0]!.headers['idempotency-key']);
      expect(posts[1]!.body).toBe(posts[0]!.body);
      // The server answered the retry from its idempotency record, not by creating a task.
      expect(posts[0]!.upstreamHeaders['idempotent-replayed']).toBeUndefined();
      expect(posts[1]!.upstreamHeaders['idempotent-replayed']).toBe('true');
      expect(await tasksOfAccount(server, own)).toEqual([task_id]);
      const listed = await client.listTasks();
      expect(listed.data.map((t) => t.task_id)).toEqual([task_id]);
      await client.waitForTask(task_id, FAST);
    } finally {
      await proxy.close();
    }
  });
});

describe('typed errors', () => {
  it('402 is InsufficientBalanceError, and nothing was created', async () => {
    const poor = await server.newKey(0);
    const client = new Gengate({ apiKey: poor.secret, baseUrl: server.baseUrl });
    const error = await client
      .generate({ model_name: 'seedance-2', prompt: 'too dear' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InsufficientBalanceError);
    expect(error).toMatchObject({ status: 402, code: 'insufficient_balance' });
    expect((error as InsufficientBalanceError).requestId).toBeTruthy();
    expect(await tasksOfAccount(server, poor)).toEqual([]);
  });

  it('401 AuthenticationError, 403 PermissionDeniedError, 404 NotFoundError, 422 ValidationError with param', async () => {
    const anonymous = new Gengate({ apiKey: 'sk_live_not_a_key', baseUrl: server.baseUrl });
    await expect(anonymous.balance()).rejects.toBeInstanceOf(AuthenticationError);

    const limited = await server.app.newKey({ restrictions: { allowed_models: ['flux-1-1-pro'] } });
    const limitedClient = new Gengate({ apiKey: limited.secret, baseUrl: server.baseUrl });
    await expect(limitedClient.generate({ model_name: 'seedance-2', prompt: 'no' })).rejects.toBeInstanceOf(
      PermissionDeniedError,
    );

    // Another account's task is not found, like an unknown id.
    const { task_id } = await gengate.generate({ model_name: 'flux-1-1-pro', prompt: 'mine' });
    await expect(limitedClient.getTask(task_id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(gengate.model('no-such-model')).rejects.toMatchObject({
      status: 404,
      code: 'model_not_found',
    });

    const invalid = await gengate
      // @ts-expect-error: duration is a number of seconds; the server refuses it too.
      .generate({ model_name: 'seedance-2', prompt: 'x', duration: 'long' })
      .catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect((invalid as ValidationError).param).toBe('duration');
    await gengate.waitForTask(task_id, FAST);
  });

  it('maintenance: a call throws MaintenanceError with retryAfter at once (60 s is beyond maxRetryAfterMs)', async () => {
    await server.maintenance(true);
    try {
      const started = Date.now();
      const error = await gengate.balance().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MaintenanceError);
      expect((error as MaintenanceError).retryAfter).toBe(60);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await server.maintenance(false);
    }
  });
});

describe('reads', () => {
  it('listTasks pages newest first, iterateTasks walks every page; balance, keys, models, model(id)', async () => {
    const own = await server.newKey(100);
    const client = new Gengate({ apiKey: own.secret, baseUrl: server.baseUrl });
    const ids: string[] = [];
    for (const prompt of ['one', 'two', 'three']) {
      ids.push((await client.generate({ model_name: 'flux-1-1-pro', prompt })).task_id);
    }
    const first = await client.listTasks({ limit: 2 });
    expect(first.data.map((t) => t.task_id)).toEqual([ids[2], ids[1]]);
    expect(first.has_more).toBe(true);
    const second = await client.listTasks({ limit: 2, after: first.next_cursor! });
    expect(second.data.map((t) => t.task_id)).toEqual([ids[0]]);
    const all: Task[] = [];
    for await (const task of client.iterateTasks({ limit: 1 })) all.push(task);
    expect(all.map((t) => t.task_id)).toEqual([...ids].reverse());

    for (const id of ids) await client.waitForTask(id, FAST);
    expect((await client.balance()).key_balance).toBe(100 - 3 * 4.5);
    const keys = (await client.keys()) as { keys?: Array<{ id: number }> };
    expect(keys.keys?.map((k) => k.id)).toContain(own.keyId);

    const models = await client.models();
    expect(models.map((m) => m.id)).toContain('seedance-2');
    const seedance = await client.model('seedance-2');
    expect(seedance.id).toBe('seedance-2');
    expect(seedance.example_endpoint).toBe('/generate');
  });
});
