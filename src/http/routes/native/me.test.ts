// GET /me/balance and GET /me/keys: the calling key's balance, and its account (the spec's Account
// object) with every live key masked.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestApp, type TestApp } from '../../../testing/app.js';

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
