// Retries, backoff, Retry-After, maintenance and cancellation, against a scripted fetch.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  ConnectionError,
  Gengate,
  MaintenanceError,
  RateLimitError,
  ValidationError,
  WaitTimeoutError,
} from '../src/index.js';
import { Transport } from '../src/transport.js';

type Step = { status: number; body?: unknown; headers?: Record<string, string> } | 'drop';

/** A fetch that answers the scripted steps in order and records each call's time and headers. */
function scripted(steps: Step[]) {
  const calls: Array<{ at: number; url: string; method: string; headers: Headers; body: unknown }> = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    calls.push({
      at: Date.now(),
      url: String(input),
      method: init?.method ?? 'GET',
      headers: new Headers(init?.headers),
      body: init?.body,
    });
    const step = steps[Math.min(calls.length - 1, steps.length - 1)]!;
    if (step === 'drop') throw new TypeError('fetch failed', { cause: new Error('other side closed') });
    return new Response(step.body === undefined ? null : JSON.stringify(step.body), {
      status: step.status,
      headers: { 'content-type': 'application/json', ...step.headers },
    });
  };
  return { calls, fetchImpl };
}

const error = (code: string, param: string | null = null) => ({
  error: { message: `${code} happened`, type: 'x', code, param },
});
const task = (status: string) => ({ task_id: 't1', status, result: null, error: null });
const client = (fetchImpl: typeof fetch, extra = {}) =>
  new Gengate({ apiKey: 'sk_live_test', baseUrl: 'http://gengate.test/', fetch: fetchImpl, ...extra });

describe('retries of idempotent calls', () => {
  it('a GET is retried after a dropped connection and a 500, then answers', async () => {
    const { calls, fetchImpl } = scripted([
      'drop',
      { status: 500, body: error('internal_error') },
      { status: 200, body: { key_balance: 5 } },
    ]);
    expect(await client(fetchImpl).balance()).toEqual({ key_balance: 5 });
    expect(calls).toHaveLength(3);
    expect(calls[0]!.url).toBe('http://gengate.test/me/balance');
    expect(calls[0]!.headers.get('authorization')).toBe('Bearer sk_live_test');
  });

  it('POST /generate retries with the same Idempotency-Key and the same body bytes', async () => {
    const { calls, fetchImpl } = scripted([
      'drop',
      { status: 503, body: error('upstream_overloaded') },
      { status: 409, body: error('idempotency_in_progress'), headers: { 'retry-after': '0' } },
      { status: 202, body: { task_id: 't1' } },
    ]);
    const answer = await client(fetchImpl, { maxRetries: 3 }).generate({
      model_name: 'seedance-2',
      prompt: 'a',
    });
    expect(answer).toEqual({ task_id: 't1' });
    expect(calls).toHaveLength(4);
    const keys = new Set(calls.map((c) => c.headers.get('idempotency-key')));
    expect(keys.size).toBe(1);
    expect(new Set(calls.map((c) => c.body)).size).toBe(1);
    expect(calls[0]!.body).toBe('{"params":{"model_name":"seedance-2","prompt":"a"}}');
  });

  it('429 waits Retry-After seconds before the retry', async () => {
    const { calls, fetchImpl } = scripted([
      { status: 429, body: error('rate_limited'), headers: { 'retry-after': '1' } },
      { status: 200, body: task('completed') },
    ]);
    await client(fetchImpl).getTask('t1');
    expect(calls).toHaveLength(2);
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('gives up after maxRetries with the typed error of the last answer', async () => {
    const { calls, fetchImpl } = scripted([
      { status: 429, body: error('rate_limited'), headers: { 'retry-after': '0' } },
    ]);
    const failure = await client(fetchImpl, { maxRetries: 2 })
      .getTask('t1')
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RateLimitError);
    expect((failure as RateLimitError).retryAfter).toBe(0);
    expect(calls).toHaveLength(3);
  });

  it('a dropped connection on every attempt ends in ConnectionError', async () => {
    const { calls, fetchImpl } = scripted(['drop']);
    const failure = await client(fetchImpl, { maxRetries: 1 })
      .models()
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ConnectionError);
    expect((failure as Error).message).toMatch(/other side closed/);
    expect(calls).toHaveLength(2);
  });

  it('4xx answers are not retried; 400/422 are ValidationError with param', async () => {
    const { calls, fetchImpl } = scripted([{ status: 422, body: error('invalid_parameter', 'duration') }]);
    const failure = await client(fetchImpl)
      .generate({ model_name: 'seedance-2', prompt: 'a' })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ValidationError);
    expect(failure).toMatchObject({ status: 422, code: 'invalid_parameter', param: 'duration' });
    expect(calls).toHaveLength(1);
  });

  it('a non-JSON error answer still becomes an ApiError with its status', async () => {
    const fetchImpl: typeof fetch = async () => new Response('Bad Gateway', { status: 502 });
    const failure = await client(fetchImpl, { maxRetries: 0 })
      .models()
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 502, code: 'unknown', message: 'HTTP 502: Bad Gateway' });
  });

  it('a non-idempotent request is never retried', async () => {
    const { calls, fetchImpl } = scripted(['drop', { status: 200, body: {} }]);
    const transport = new Transport({
      apiKey: 'k',
      baseUrl: 'http://gengate.test',
      fetch: fetchImpl,
      maxRetries: 5,
      timeoutMs: 1_000,
      maxRetryAfterMs: 30_000,
      headers: {},
    });
    await expect(transport.json('POST', '/x', { body: '{}', idempotent: false })).rejects.toBeInstanceOf(
      ConnectionError,
    );
    expect(calls).toHaveLength(1);
  });

  it('a Retry-After beyond maxRetryAfterMs is thrown at once instead of waited for', async () => {
    const { calls, fetchImpl } = scripted([
      { status: 503, body: error('maintenance'), headers: { 'retry-after': '60' } },
    ]);
    const failure = await client(fetchImpl)
      .balance()
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(MaintenanceError);
    expect(calls).toHaveLength(1);
  });

  it('an attempt without an answer within timeoutMs is a ConnectionError, retried', async () => {
    let calls = 0;
    const fetchImpl: typeof fetch = (_input, init) =>
      new Promise((resolve, reject) => {
        calls++;
        if (calls === 2) return resolve(new Response('{"key_balance":1}', { status: 200 }));
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
      });
    expect(await client(fetchImpl, { timeoutMs: 200 }).balance()).toEqual({ key_balance: 1 });
    expect(calls).toBe(2);
  });
});

describe('waitForTask', () => {
  it('polls until final, waiting out 429 and 503 maintenance by their Retry-After', async () => {
    const { calls, fetchImpl } = scripted([
      { status: 200, body: task('pending') },
      { status: 429, body: error('rate_limited'), headers: { 'retry-after': '1' } },
      { status: 503, body: error('maintenance'), headers: { 'retry-after': '1' } },
      { status: 200, body: task('processing') },
      { status: 200, body: task('completed') },
    ]);
    const progress: string[] = [];
    const final = await client(fetchImpl).waitForTask('t1', {
      intervalMs: 20,
      onProgress: (t) => progress.push(t.status),
    });
    expect(final.status).toBe('completed');
    expect(progress).toEqual(['pending', 'processing', 'completed']);
    expect(calls).toHaveLength(5);
    expect(calls[2]!.at - calls[1]!.at).toBeGreaterThanOrEqual(950);
    expect(calls[3]!.at - calls[2]!.at).toBeGreaterThanOrEqual(950);
  });

  it('polls with jitter around intervalMs', async () => {
    const { calls, fetchImpl } = scripted([
      ...Array.from({ length: 6 }, () => ({ status: 200, body: task('processing') })),
      { status: 200, body: task('completed') },
    ]);
    await client(fetchImpl).waitForTask('t1', { intervalMs: 100 });
    const gaps = calls.slice(1).map((c, i) => c.at - calls[i]!.at);
    for (const gap of gaps) {
      expect(gap).toBeGreaterThanOrEqual(75);
      expect(gap).toBeLessThan(1_000); // generous: the machine may be busy
    }
    expect(new Set(gaps).size).toBeGreaterThan(1);
  });

  it('throws errors a poll cannot outlive (404) at once', async () => {
    const { calls, fetchImpl } = scripted([{ status: 404, body: error('task_not_found') }]);
    await expect(client(fetchImpl).waitForTask('t1', { intervalMs: 10 })).rejects.toMatchObject({
      status: 404,
      code: 'task_not_found',
    });
    expect(calls).toHaveLength(1);
  });

  it('gives up with WaitTimeoutError after timeoutMs', async () => {
    const { fetchImpl } = scripted([{ status: 200, body: task('processing') }]);
    const started = Date.now();
    const failure = await client(fetchImpl)
      .waitForTask('t1', { intervalMs: 50, timeoutMs: 300 })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(WaitTimeoutError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('an aborted signal stops the wait with its reason', async () => {
    const { fetchImpl } = scripted([{ status: 200, body: task('processing') }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user left')), 100);
    await expect(
      client(fetchImpl).waitForTask('t1', { intervalMs: 10_000, signal: controller.signal }),
    ).rejects.toThrow('user left');
  });
});

describe('the default Idempotency-Key', () => {
  it('is a UUID v4 even where crypto.randomUUID is missing (browser pages outside a secure context)', async () => {
    const { calls, fetchImpl } = scripted([{ status: 202, body: { task_id: 't1' } }]);
    const randomUUID = crypto.randomUUID;
    Object.defineProperty(crypto, 'randomUUID', { value: undefined, configurable: true });
    try {
      await client(fetchImpl).generate({ model_name: 'seedance-2', prompt: 'a' });
      await client(fetchImpl).generate({ model_name: 'seedance-2', prompt: 'a' });
    } finally {
      Object.defineProperty(crypto, 'randomUUID', { value: randomUUID, configurable: true });
    }
    const keys = calls.map((call) => call.headers.get('idempotency-key'));
    for (const key of keys)
      expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(keys[0]).not.toBe(keys[1]);
  });

  it('maxRetries per call overrides the client default', async () => {
    const { calls, fetchImpl } = scripted(['drop']);
    await expect(client(fetchImpl, { maxRetries: 0 }).balance({ maxRetries: 2 })).rejects.toBeInstanceOf(
      ConnectionError,
    );
    expect(calls).toHaveLength(3);
  });
});

describe('downloadResult', () => {
  const completed = {
    task_id: 't1',
    status: 'completed' as const,
    result: { video_url: 'http://files.test/objects/a.mp4', duration: 5 },
  };

  it('sends no API key to the file URL, and a download cut midway leaves no file behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gengate-download-'));
    const seen: Headers[] = [];
    const fetchImpl: typeof fetch = async (_input, init) => {
      seen.push(new Headers(init?.headers));
      let sent = false;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent) return controller.error(new TypeError('terminated'));
          sent = true;
          controller.enqueue(new Uint8Array(1024));
        },
      });
      return new Response(body, { status: 200, headers: { 'content-type': 'video/mp4' } });
    };
    try {
      const target = join(dir, 'a.mp4');
      await expect(client(fetchImpl).downloadResult(completed, target)).rejects.toThrow('terminated');
      expect(readdirSync(dir)).toEqual([]);
      expect(seen[0]!.get('authorization')).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('requests', () => {
  it('keep a base URL path prefix', async () => {
    const { calls, fetchImpl } = scripted([{ status: 200, body: { key_balance: 1 } }]);
    await new Gengate({ apiKey: 'k', baseUrl: 'http://gengate.test/api/', fetch: fetchImpl }).balance();
    await new Gengate({ apiKey: 'k', baseUrl: 'http://gengate.test/api', fetch: fetchImpl }).listTasks({
      limit: 2,
      status: 'completed',
    });
    expect(calls.map((call) => call.url)).toEqual([
      'http://gengate.test/api/me/balance',
      'http://gengate.test/api/tasks?limit=2&status=completed',
    ]);
  });

  it('retry an answer whose body was cut midway', async () => {
    let calls = 0;
    const fetchImpl: typeof fetch = async () => {
      calls++;
      if (calls > 1) return new Response('{"key_balance":7}', { status: 200 });
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"key_bal'));
          controller.error(new TypeError('terminated'));
        },
      });
      return new Response(body, { status: 200 });
    };
    expect(await client(fetchImpl).balance()).toEqual({ key_balance: 7 });
    expect(calls).toBe(2);
  });
});
