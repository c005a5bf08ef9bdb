// Key limits over HTTP on every engine: expires_at (401 key_expired on native and /v1 routes, also
// for a key the auth cache holds) and the spend cap (402 spend_limit_reached, exact under 20
// concurrent requests for POST /generate and for chat), set through the admin API and shown in
// GET /me/keys and the admin answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../domain/errors.js';
import { Cancellation } from '../../../providers/cancellation.js';
import { ADMIN_TOKEN, type TestKey } from '../../../testing/app.js';
import { ENGINES } from '../../../testing/db.js';
import { createTaskTestApp, expectLedgerClean, generate, type TaskTestApp } from '../../../testing/tasks.js';

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const RUB = 1_000_000;

describe.each(ENGINES)('key limits on %s', (engine) => {
  let app: TaskTestApp;
  beforeAll(async () => {
    app = await createTaskTestApp({ engine, runner: false });
  });
  afterAll(async () => {
    await expectLedgerClean(app);
    await app.dispose();
  });

  const patch = (keyId: number, payload: Record<string, unknown>) =>
    app.http.inject({ method: 'PATCH', url: `/admin/keys/${keyId}`, headers: admin, payload });
  const meKeys = (key: TestKey) => app.http.inject({ method: 'GET', url: '/me/keys', headers: key.auth });
  const chatHttp = (key: TestKey) =>
    app.http.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: key.auth,
      payload: {
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'hi [sim:tokens=5]' }],
        max_tokens: 50,
      },
    });
  const video = { model_name: 'seedance-2', prompt: 'a cat', duration: 5 };

  it('the admin API sets and shows expires_at and the spend cap; bad values are 422', async () => {
    const owner = await app.newKey({ balanceRub: 0 });
    const created = await app.http.inject({
      method: 'POST',
      url: `/admin/accounts/${owner.messagingId}/keys`,
      headers: admin,
      payload: { expires_at: '2030-01-02T03:04:05Z', spend_limit_rub: 150.5, spend_limit_period: 'week' },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({
      expires_at: '2030-01-02T03:04:05.000Z',
      spend_limit_rub: 150.5,
      spend_limit_period: 'week',
      spent_in_period_rub: 0,
    });
    const id = created.json().id as number;
    const changed = await patch(id, { spend_limit_rub: '20', expires_at: null });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({
      expires_at: null,
      spend_limit_rub: 20,
      spend_limit_period: 'week',
    });
    const shown = await app.http.inject({
      method: 'GET',
      url: `/admin/accounts/${owner.messagingId}`,
      headers: admin,
    });
    expect(shown.json().keys.find((k: { id: number }) => k.id === id)).toMatchObject({
      spend_limit_rub: 20,
      spend_limit_period: 'week',
    });
    // A cap without a period counts per month.
    expect((await patch(owner.keyId, { spend_limit_rub: 5 })).json()).toMatchObject({
      spend_limit_rub: 5,
      spend_limit_period: 'month',
    });
    for (const [payload, param] of [
      [{ expires_at: 'tomorrow' }, 'expires_at'],
      [{ expires_at: '2030-01-02T03:04:05' }, 'expires_at'],
      [{ spend_limit_rub: 0 }, 'spend_limit_rub'],
      [{ spend_limit_rub: -1 }, 'spend_limit_rub'],
      [{ spend_limit_period: 'year' }, 'spend_limit_period'],
      [{ spend_limit_period: null }, 'spend_limit_period'],
    ] as const) {
      const res = await patch(owner.keyId, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'invalid_parameter', param });
    }
    // Cleared together, the cap and its period go.
    expect(
      (await patch(owner.keyId, { spend_limit_rub: null, spend_limit_period: null })).json(),
    ).toMatchObject({ spend_limit_rub: null, spend_limit_period: null, spent_in_period_rub: null });
  });

  it('an expired key answers 401 key_expired on native and /v1 routes, also while cached', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    // Cached by a first request, then expiring a moment later: the cached entry does not outlive it.
    expect(
      (await patch(key.keyId, { expires_at: new Date(Date.now() + 300).toISOString() })).statusCode,
    ).toBe(200);
    expect((await meKeys(key)).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 350));
    for (const res of [await meKeys(key), await generate(app, key, video), await chatHttp(key)]) {
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toMatchObject({ code: 'key_expired', type: 'authentication_error' });
    }
    // Extended by the operator: it works again at once (the change evicts the cached key).
    expect((await patch(key.keyId, { expires_at: '2099-01-01T00:00:00Z' })).statusCode).toBe(200);
    expect((await meKeys(key)).statusCode).toBe(200);
    expect((await meKeys(key)).json().keys[0]).toMatchObject({ expires_at: '2099-01-01T00:00:00.000Z' });
  });

  it('20 concurrent POST /generate against a cap that fits 2: exactly 2 accepted, 18 × 402', async () => {
    const probe = await app.newKey({ balanceRub: 1000 });
    const first = await generate(app, probe, video);
    expect(first.statusCode).toBe(202);
    const task = await app.ctx.storage.tasks.getForOwner(probe.accountId, first.json().task_id);
    const holdAmount = task!.hold_amount;

    const key = await app.newKey({ balanceRub: 1000 });
    await patch(key.keyId, { spend_limit_rub: (2 * holdAmount) / RUB, spend_limit_period: 'day' });
    const answers = await Promise.all(Array.from({ length: 20 }, () => generate(app, key, video)));
    const statuses = answers.map((res) => res.statusCode);
    expect(statuses.filter((s) => s === 202)).toHaveLength(2);
    expect(statuses.filter((s) => s === 402)).toHaveLength(18);
    const refused = answers.find((res) => res.statusCode === 402)!;
    expect(refused.json().error).toMatchObject({ code: 'spend_limit_reached', type: 'insufficient_quota' });
    const shown = (await meKeys(key)).json().keys[0];
    expect(shown).toMatchObject({ spend_limit_period: 'day', spent_in_period_rub: (2 * holdAmount) / RUB });
    expect(shown.held).toBe((2 * holdAmount) / RUB);
  });

  it('20 concurrent chat holds against a cap that fits 2: exactly 2; the rest 402 spend_limit_reached', async () => {
    const body = {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hello [sim:tokens=5]' }],
      max_tokens: 100,
    };
    const probe = await app.newKey({ balanceRub: 1000 });
    const probeCall = await app.ctx.chat.open(
      await app.ctx.auth.authenticate(probe.auth.authorization),
      body,
    );
    const fullHold = probeCall.init.hold;
    await probeCall.complete(new Cancellation());
    await probeCall.settlement;

    const key = await app.newKey({ balanceRub: 1000 });
    await patch(key.keyId, { spend_limit_rub: (2 * fullHold) / RUB, spend_limit_period: 'total' });
    const auth = await app.ctx.auth.authenticate(key.auth.authorization);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, () => app.ctx.chat.open(auth, body)),
    );
    const opened = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    expect(opened).toHaveLength(2);
    for (const o of outcomes) {
      if (o.status === 'rejected') {
        expect(o.reason).toBeInstanceOf(AppError);
        expect((o.reason as AppError).code).toBe('spend_limit_reached');
      }
    }
    expect(opened.every((call) => call.init.hold === fullHold)).toBe(true);
    // Over HTTP too, while both are open.
    const res = await chatHttp(key);
    expect(res.statusCode).toBe(402);
    expect(res.json().error.code).toBe('spend_limit_reached');
    // The settlements capture less than they held: the rest comes back to the cap.
    for (const call of opened) await call.complete(new Cancellation());
    const settled = await Promise.all(opened.map((call) => call.settlement));
    const cost = settled.reduce((sum, s) => sum + (s?.cost ?? 0), 0);
    expect((await meKeys(key)).json().keys[0].spent_in_period_rub).toBe(cost / RUB);
    expect(cost).toBeGreaterThan(0);
    expect((await chatHttp(key)).statusCode).toBe(200);
  });
});
