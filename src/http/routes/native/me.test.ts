// GET /me/balance, GET /me/keys and GET /me/usage: the calling key's balance, its account (the spec's
// Account object) with every live key masked, and the key's usage per model and day.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestApp, type TestApp, type TestKey } from '../../../testing/app.js';
import { createTaskTestApp, generate, type TaskTestApp, waitForFinal } from '../../../testing/tasks.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.dispose());

const get = (url: string, headers: Record<string, string>) =>
  app.http.inject({ method: 'GET', url, headers });
const masked = (secret: string) => `${secret.slice(0, 12)}…${secret.slice(-4)}`;

describe('GET /me/balance', () => {
  it('answers the balance of the key in the header, in rubles', async () => {
    const key = await app.newKey({ balanceRub: 1000 });
    const res = await get('/me/balance', key.auth);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ key_balance: 1000 });
  });

  it('is exact for fractional rubles and zero for a new key', async () => {
    const key = await app.newKey({ balanceRub: 12.345678 });
    expect((await get('/me/balance', key.auth)).json()).toEqual({ key_balance: 12.345678 });
    const empty = await app.newKey({ balanceRub: 0 });
    expect((await get('/me/balance', empty.auth)).json()).toEqual({ key_balance: 0 });
  });

  it('is per key: two keys of one account have their own balances', async () => {
    const first = await app.newKey({ balanceRub: 10 });
    const second = await app.newKey({ balanceRub: 20, messagingId: first.messagingId });
    expect((await get('/me/balance', first.auth)).json()).toEqual({ key_balance: 10 });
    expect((await get('/me/balance', second.auth)).json()).toEqual({ key_balance: 20 });
  });

  it('shows what is available: a held amount is not spendable', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    await app.ctx.storage.transaction((tx) =>
      tx.ledger.hold(
        { keyId: key.keyId, accountId: key.accountId, now: Date.now() },
        randomUUID(),
        45_000_000,
      ),
    );
    expect((await get('/me/balance', key.auth)).json()).toEqual({ key_balance: 55 });
  });
});

describe('GET /me/keys', () => {
  it("answers the spec's Account object with every live key of the caller's account, masked", async () => {
    const first = await app.newKey({ balanceRub: 5, coefficient: 1.5 });
    const second = await app.newKey({ balanceRub: 7.25, messagingId: first.messagingId });
    const deleted = await app.newKey({ balanceRub: 1, messagingId: first.messagingId });
    const stranger = await app.newKey({ balanceRub: 3 });
    await app.ctx.accounts.deleteKey(deleted.keyId, { actor: 'test' });

    const res = await get('/me/keys', second.auth);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ messaging_id: first.messagingId, coefficient: 1.5 });
    expect(body.keys.map((k: { id: number }) => k.id)).toEqual([first.keyId, second.keyId]);
    expect(body.keys[0]).toMatchObject({ id: first.keyId, key_value: masked(first.secret), balance: 5 });
    expect(body.keys[1]).toMatchObject({ id: second.keyId, key_value: masked(second.secret), balance: 7.25 });
    for (const key of body.keys) {
      expect(Number.isInteger(key.id)).toBe(true);
      expect(key.key_value).toMatch(/^sk_live_[0-9A-Za-z]{4}…[0-9A-Za-z]{4}$/);
    }
    for (const secret of [first.secret, second.secret, deleted.secret, stranger.secret])
      expect(res.body).not.toContain(secret);
  });

  it('reads the account of whichever key calls', async () => {
    const mine = await app.newKey();
    const theirs = await app.newKey();
    expect((await get('/me/keys', mine.auth)).json().messaging_id).toBe(mine.messagingId);
    expect((await get('/me/keys', theirs.auth)).json().messaging_id).toBe(theirs.messagingId);
  });

  it('reflects restrictions set by the operator', async () => {
    const key = await app.newKey();
    await app.http.inject({
      method: 'PATCH',
      url: `/admin/keys/${key.keyId}`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { allowed_models: ['seedance-2'], rate_limit_per_min: 30 },
    });
    const [listed] = (await get('/me/keys', key.auth)).json().keys;
    expect(listed).toMatchObject({
      allowed_models: ['seedance-2'],
      allowed_ip_cidrs: null,
      rate_limit_per_min: 30,
    });
  });
});

describe('GET /me/usage', () => {
  let tasksApp: TaskTestApp;
  beforeAll(async () => {
    tasksApp = await createTaskTestApp();
  });
  afterAll(() => tasksApp.dispose());

  // The task object's cost (rubles, once final); the test helper's type predates the field.
  const costOf = (task: object) => (task as { cost: number }).cost;
  const usage = (key: TestKey, query = '') =>
    tasksApp.http.inject({ method: 'GET', url: `/me/usage${query}`, headers: key.auth });

  it('gives the key its requests and spend per model and day, by default over the last 30 days', async () => {
    const key = await tasksApp.newKey({ balanceRub: 100 });
    const sibling = await tasksApp.newKey({ balanceRub: 100, messagingId: key.messagingId });
    const taskIds: string[] = [];
    for (const who of [key, key, sibling]) {
      const created = await generate(tasksApp, who, { model_name: 'seedream-4', prompt: 'a lighthouse' });
      taskIds.push(created.json().task_id);
    }
    const finals = await Promise.all(
      taskIds.map((id, i) => waitForFinal(tasksApp, i < 2 ? key : sibling, id)),
    );
    const today = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
    const res = await usage(key);
    expect(res.statusCode).toBe(200);
    const spent = costOf(finals[0]) + costOf(finals[1]);
    expect(spent).toBeGreaterThan(0);
    expect(res.json()).toEqual({
      object: 'usage',
      from,
      to: today,
      data: [
        { date: today, model_name: 'seedream-4', requests: 2, spent, input_tokens: 0, output_tokens: 0 },
      ],
      total: { requests: 2, spent, input_tokens: 0, output_tokens: 0 },
    });
    // The sibling key of the same account sees its own use only.
    expect((await usage(sibling)).json().total.requests).toBe(1);
    // A range that ends yesterday has none of it.
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect((await usage(key, `?from=2026-01-01&to=${yesterday}`)).json()).toMatchObject({
      from: '2026-01-01',
      data: [],
      total: { requests: 0, spent: 0 },
    });
  });

  it('refuses a bad date, an inverted range and a range over 366 days, naming the parameter', async () => {
    const key = await tasksApp.newKey();
    for (const [query, param] of [
      ['?from=2026-02-30', 'from'],
      ['?to=yesterday', 'to'],
      ['?from=2026-03-02&to=2026-03-01', 'from'],
      ['?from=2025-01-01&to=2026-01-02', 'from'],
    ] as const) {
      const res = await usage(key, query);
      expect(res.statusCode, query).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'invalid_parameter', param });
    }
    expect((await usage(key, '?from=2025-01-01&to=2026-01-01')).statusCode).toBe(200); // 366 days
    expect((await tasksApp.http.inject({ method: 'GET', url: '/me/usage' })).statusCode).toBe(401);
  });
});
