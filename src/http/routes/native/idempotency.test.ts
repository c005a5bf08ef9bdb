// The Idempotency-Key rules of the spec on POST /generate, and the concurrency guarantee: one key,
// many simultaneous requests, exactly one task and one hold, on every engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyService } from '../../../services/idempotency.js';
import type { TestKey } from '../../../testing/app.js';
import { ENGINES } from '../../../testing/db.js';
import {
  balanceOf,
  countRows,
  createdRows,
  createTaskTestApp,
  expectLedgerClean,
  freePort,
  type TaskTestApp,
  waitForFinal,
} from '../../../testing/tasks.js';

const body = (params: Record<string, unknown>) => JSON.stringify({ params });
const post = (app: TaskTestApp, key: TestKey, idemKey: string | undefined, payload: string) =>
  app.http.inject({
    method: 'POST',
    url: '/generate',
    headers: {
      ...key.auth,
      'content-type': 'application/json',
      ...(idemKey === undefined ? {} : { 'idempotency-key': idemKey }),
    },
    payload,
  });

describe('Idempotency-Key on POST /generate', () => {
  let app: TaskTestApp;
  let key: TestKey;
  let n = 0;
  const fresh = () => `idem-${Date.now()}-${n++}`;

  beforeAll(async () => {
    app = await createTaskTestApp();
    key = await app.newKey({ balanceRub: 10_000 });
  });
  afterAll(async () => {
    await expectLedgerClean(app);
    await app.dispose();
  });

  it('without the header every request creates a task', async () => {
    const payload = body({ model_name: 'seedance-2', prompt: 'same' });
    const [a, b] = [await post(app, key, undefined, payload), await post(app, key, undefined, payload)];
    expect([a.statusCode, b.statusCode]).toEqual([202, 202]);
    expect(a.json().task_id).not.toBe(b.json().task_id);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
  });

  it('same key and body: the stored answer, no new task, no new charge, Idempotent-Replayed: true', async () => {
    const idem = fresh();
    const payload = body({ model_name: 'seedance-2', prompt: 'once' });
    const first = await post(app, key, idem, payload);
    expect(first.statusCode).toBe(202);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const rows = await createdRows(app, key);
    const balance = await balanceOf(app, key);
    const again = await post(app, key, idem, payload);
    expect(again.statusCode).toBe(202);
    expect(again.json()).toEqual(first.json());
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await createdRows(app, key)).toEqual(rows);
    expect(await balanceOf(app, key)).toEqual(balance);
  });

  it('same key, different body: 422 idempotency_key_reused, nothing created', async () => {
    const idem = fresh();
    expect((await post(app, key, idem, body({ model_name: 'seedance-2', prompt: 'a' }))).statusCode).toBe(
      202,
    );
    const rows = await createdRows(app, key);
    const res = await post(app, key, idem, body({ model_name: 'seedance-2', prompt: 'b' }));
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({
      code: 'idempotency_key_reused',
      message: 'Idempotency-Key was reused with a different request body',
    });
    expect(await createdRows(app, key)).toEqual(rows);
  });

  it('keys of 8 to 256 ASCII characters; shorter or longer is 400 and writes nothing', async () => {
    const rows = await createdRows(app, key);
    for (const bad of ['1234567', 'x'.repeat(257)]) {
      const res = await post(app, key, bad, body({ model_name: 'seedance-2' }));
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('idempotency_key_invalid');
    }
    expect(await createdRows(app, key)).toEqual(rows);
    expect(
      (await post(app, key, `8chars-${n++}`.slice(0, 8), body({ model_name: 'seedance-2' }))).statusCode,
    ).toBe(202);
    expect(
      (await post(app, key, 'k'.repeat(250) + fresh().slice(-6), body({ model_name: 'seedance-2' })))
        .statusCode,
    ).toBe(202);
  });

  it('is scoped per API key: the same key string under two API keys is two caches', async () => {
    const other = await app.newKey({ balanceRub: 100, messagingId: key.messagingId });
    const idem = fresh();
    const payload = body({ model_name: 'seedance-2' });
    const a = await post(app, key, idem, payload);
    const b = await post(app, other, idem, payload);
    expect([a.statusCode, b.statusCode]).toEqual([202, 202]);
    expect(a.json().task_id).not.toBe(b.json().task_id);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
  });

  it('4xx answers are stored: a 402 replays even after a top-up; a new key then succeeds', async () => {
    const poor = await app.newKey({ balanceRub: 10 });
    const idem = fresh();
    const payload = body({ model_name: 'seedance-2' });
    const first = await post(app, poor, idem, payload);
    expect(first.statusCode).toBe(402);
    expect(await app.ctx.storage.ledger.countForKey(poor.keyId)).toBe(1); // the top-up only
    await app.ctx.accounts.topup(poor.keyId, 100, 'more', { actor: 'test' });
    const rows = await createdRows(app, poor);
    expect(rows).toEqual({ tasks: 0, holds: 0, idempotency: 1 });
    const replay = await post(app, poor, idem, payload);
    expect(replay.statusCode).toBe(402);
    expect(replay.json()).toEqual(first.json());
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(await createdRows(app, poor)).toEqual(rows);
    expect((await post(app, poor, fresh(), payload)).statusCode).toBe(202);
  });

  it('a validation 4xx and a malformed body are stored and replayed too', async () => {
    const idem = fresh();
    const invalid = await post(app, key, idem, body({ model_name: 'seedance-2', duration: 20 }));
    expect(invalid.statusCode).toBe(422);
    const replay = await post(app, key, idem, body({ model_name: 'seedance-2', duration: 20 }));
    expect([replay.statusCode, replay.headers['idempotent-replayed']]).toEqual([422, 'true']);
    const broken = fresh();
    expect((await post(app, key, broken, '{"params": ')).statusCode).toBe(400);
    const brokenAgain = await post(app, key, broken, '{"params": ');
    expect([brokenAgain.statusCode, brokenAgain.headers['idempotent-replayed']]).toEqual([400, 'true']);
    // The body check comes after the replay: a fixed body under the same key is a different request.
    expect((await post(app, key, broken, body({ model_name: 'seedance-2' }))).statusCode).toBe(422);
  });

  it('5xx answers are never stored', async () => {
    const seedance = (await app.ctx.catalog.get('seedance-2'))!;
    await app.ctx.catalog.upsert({
      ...seedance,
      id: 'misrouted-video',
      route: { provider: 'nowhere', model: 'x' },
      updatedAt: Date.now(),
    });
    const idem = fresh();
    const payload = body({ model_name: 'misrouted-video' });
    const rows = await createdRows(app, key);
    const first = await post(app, key, idem, payload);
    expect(first.statusCode).toBe(502);
    expect(first.json().error.code).toBe('upstream_error');
    expect(await createdRows(app, key)).toEqual(rows);
    const second = await post(app, key, idem, payload);
    expect(second.statusCode).toBe(502);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
  });

  it('a retry after a failed and refunded task returns the same task_id, creating nothing', async () => {
    const idem = fresh();
    const payload = body({ model_name: 'seedance-2', prompt: 'doomed [sim:fail=billing]' });
    const first = await post(app, key, idem, payload);
    const taskId = first.json().task_id;
    expect((await waitForFinal(app, key, taskId)).status).toBe('failed');
    const rows = await createdRows(app, key);
    const balance = await balanceOf(app, key);
    const retry = await post(app, key, idem, payload);
    expect([retry.statusCode, retry.json().task_id, retry.headers['idempotent-replayed']]).toEqual([
      202,
      taskId,
      'true',
    ]);
    expect(await createdRows(app, key)).toEqual(rows);
    expect(await balanceOf(app, key)).toEqual(balance);
  });

  it('an in-progress original: a duplicate waits for its answer, or gets 409 with Retry-After', async () => {
    const service = app.ctx.idempotency;
    app.ctx.idempotency = new IdempotencyService(
      app.ctx.storage,
      app.ctx.clock,
      app.config.idempotencyTtlMs,
      300,
      20,
    );
    try {
      const payload = body({ model_name: 'seedance-2' });
      const fingerprint = (await import('../../../domain/idempotency/key.js')).requestFingerprint(
        'POST',
        '/generate',
        Buffer.from(payload),
      );
      const stuck = { keyId: key.keyId, idemKey: fresh(), fingerprint };
      await app.ctx.storage.transaction((tx) => app.ctx.idempotency.claimInTransaction(tx, stuck, null));
      const rows = await createdRows(app, key);
      const res = await post(app, key, stuck.idemKey, payload);
      expect(res.statusCode).toBe(409);
      expect(res.json().error.code).toBe('idempotency_in_progress');
      expect(res.headers['retry-after']).toBe('1');
      expect(await createdRows(app, key)).toEqual(rows);

      const finishing = { keyId: key.keyId, idemKey: fresh(), fingerprint };
      const claimId = await app.ctx.storage.transaction((tx) =>
        app.ctx.idempotency.claimInTransaction(tx, finishing, null),
      );
      setTimeout(
        () => void app.ctx.idempotency.complete(claimId, { status: 200, body: { done: true } }),
        100,
      );
      const waited = await post(app, key, finishing.idemKey, payload);
      expect([waited.statusCode, waited.json(), waited.headers['idempotent-replayed']]).toEqual([
        200,
        { done: true },
        'true',
      ]);
    } finally {
      app.ctx.idempotency = service;
    }
  });
});

describe('Idempotency-Key TTL', () => {
  let app: TaskTestApp;
  beforeAll(async () => {
    app = await createTaskTestApp({ runner: false, config: { idempotencyTtlMs: 300 } });
  });
  afterAll(async () => {
    await expectLedgerClean(app);
    await app.dispose();
  });

  it('a key is forgotten after IDEMPOTENCY_TTL_MS: the same request then creates a new task', async () => {
    const key = await app.newKey({ balanceRub: 1000 });
    const payload = body({ model_name: 'seedance-2' });
    const first = await post(app, key, 'ttl-key-1', payload);
    expect((await post(app, key, 'ttl-key-1', payload)).headers['idempotent-replayed']).toBe('true');
    await new Promise((resolve) => setTimeout(resolve, 350));
    const later = await post(app, key, 'ttl-key-1', payload);
    expect(later.statusCode).toBe(202);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(later.json().task_id).not.toBe(first.json().task_id);
    // An expired key is no longer bound to its body either.
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(
      (await post(app, key, 'ttl-key-1', body({ model_name: 'seedance-2', prompt: 'other' }))).statusCode,
    ).toBe(202);
    // The janitor purges what expired.
    const { runJanitorOnce } = await import('../../../workers/janitor.js');
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect((await runJanitorOnce(app.ctx)).idempotencyKeys).toBeGreaterThanOrEqual(1);
    expect((await countRows(app)).idempotency).toBe(0);
  });
});

describe.each(ENGINES)('50 simultaneous requests with one Idempotency-Key on %s', (engine) => {
  let app: TaskTestApp;
  let baseUrl: string;
  beforeAll(async () => {
    const port = await freePort();
    app = await createTaskTestApp({
      engine,
      runner: false,
      config: { port, publicUrl: `http://127.0.0.1:${port}` },
    });
    await app.http.listen({ host: '127.0.0.1', port });
    baseUrl = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await expectLedgerClean(app);
    await app.dispose();
  });

  it('exactly one task and one hold; every 2xx carries the same task_id; the rest are 409', async () => {
    const key = await app.newKey({ balanceRub: 1000 });
    const payload = body({ model_name: 'seedance-2', prompt: 'race' });
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        fetch(`${baseUrl}/generate`, {
          method: 'POST',
          headers: { ...key.auth, 'content-type': 'application/json', 'idempotency-key': 'the-one-key-42' },
          body: payload,
        }).then(async (res) => ({ status: res.status, body: (await res.json()) as { task_id?: string } })),
      ),
    );
    const ok = answers.filter((a) => a.status >= 200 && a.status < 300);
    const others = answers.filter((a) => a.status < 200 || a.status >= 300);
    expect(ok.length).toBeGreaterThan(0);
    expect(ok.every((a) => a.status === 202)).toBe(true);
    expect(new Set(ok.map((a) => a.body.task_id)).size).toBe(1);
    expect(others.every((a) => a.status === 409)).toBe(true);
    const tasks = await app.ctx.storage.db
      .selectFrom('tasks')
      .select('id')
      .where('key_id', '=', key.keyId)
      .execute();
    expect(tasks.map((t) => t.id)).toEqual([ok[0].body.task_id]);
    const holds = (await app.ctx.storage.ledger.entriesForKey(key.keyId)).filter((e) => e.kind === 'hold');
    expect(holds).toHaveLength(1);
    expect(await balanceOf(app, key)).toEqual({ balance: 955_000_000, held: 45_000_000 });
  });
});
