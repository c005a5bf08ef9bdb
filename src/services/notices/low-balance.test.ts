// Low-balance notices end to end on every engine, against a Telegram Bot API fake: the owner sets
// the threshold (PATCH /admin/accounts/{messaging_id}), a movement crosses it, the worker sends ONE
// sendMessage to chat_id = the messaging id; a refused send (bot blocked, chat not found) is
// recorded and not retried; a failing Telegram is retried on the schedule, then given up.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { BalanceNoticeRow } from '../../storage/repositories/balance-notices.js';
import { ADMIN_TOKEN, createTestApp, type TestApp, type TestKey } from '../../testing/app.js';
import { ENGINES } from '../../testing/db.js';
import { TELEGRAM_TEST_TOKEN, TelegramFake } from '../../testing/fakes/telegram.js';
import { expectLedgerClean } from '../../testing/tasks.js';
import type { RunningWorker } from '../../workers/loop.js';
import { startNoticeSender } from '../../workers/notice-sender.js';

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const by = { actor: 'test' };

describe.each(ENGINES)('low-balance notices through Telegram on %s', (engine) => {
  let app: TestApp;
  let telegram: TelegramFake;
  let sender: RunningWorker | undefined;
  beforeAll(async () => {
    telegram = await new TelegramFake().start();
    app = await createTestApp({
      engine,
      config: { webhookRetryDelaysMs: [50, 50], workerPollIntervalMs: 20 },
      env: {
        TELEGRAM_BOT_TOKEN: TELEGRAM_TEST_TOKEN,
        TELEGRAM_BOT_USERNAME: 'gengate_test_bot',
        TELEGRAM_API_URL: telegram.apiUrl,
      },
    });
    sender = startNoticeSender(app.ctx, () => {});
  });
  afterAll(async () => {
    await sender?.stop();
    await expectLedgerClean(app);
    await app.dispose();
    await telegram.close();
  });

  const setThreshold = (key: TestKey, payload: Record<string, unknown>) =>
    app.http.inject({ method: 'PATCH', url: `/admin/accounts/${key.messagingId}`, headers: admin, payload });
  const debit = (key: TestKey, rub: number) => app.ctx.accounts.adjust(key.keyId, -rub, 'spent', by);
  const noticesOf = (key: TestKey): Promise<BalanceNoticeRow[]> =>
    app.ctx.storage.db.selectFrom('balance_notices').selectAll().where('key_id', '=', key.keyId).execute();
  const settled = (key: TestKey, count: number) =>
    vi.waitFor(
      async () => {
        const rows = await noticesOf(key);
        expect(rows).toHaveLength(count);
        expect(rows.every((row) => row.status !== 'pending')).toBe(true);
      },
      { timeout: 10_000, interval: 20 },
    );

  it('PATCH /admin/accounts sets low_balance_rub (null clears) and coefficient; GET shows them', async () => {
    const key = await app.newKey({ balanceRub: 10 });
    const res = await setThreshold(key, { low_balance_rub: 2.5, coefficient: 1.5 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      messaging_id: key.messagingId,
      low_balance_rub: 2.5,
      coefficient: 1.5,
    });
    const shown = await app.http.inject({
      method: 'GET',
      url: `/admin/accounts/${key.messagingId}`,
      headers: admin,
    });
    expect(shown.json()).toMatchObject({ low_balance_rub: 2.5, coefficient: 1.5 });
    // The new coefficient applies to the key at once (its cached copy was evicted).
    expect((await app.ctx.auth.authenticate(key.auth.authorization)).coefficientPpm).toBe(1_500_000);
    for (const [payload, code] of [
      [{ low_balance_rub: 0 }, 'invalid_parameter'],
      [{ low_balance_rub: 'soon' }, 'invalid_parameter'],
      [{ threshold: 1 }, 'unknown_field'],
    ] as const) {
      const refused = await setThreshold(key, payload);
      expect(refused.statusCode).toBe(422);
      expect(refused.json().error.code).toBe(code);
    }
    const cleared = await setThreshold(key, { low_balance_rub: null, coefficient: null });
    expect(cleared.json()).toMatchObject({ low_balance_rub: null, coefficient: 1 });
    const unknown = await app.http.inject({
      method: 'PATCH',
      url: '/admin/accounts/987654321',
      headers: admin,
      payload: { low_balance_rub: 1 },
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('one sendMessage per crossing to chat_id = the messaging id; re-armed by a top-up', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    expect((await setThreshold(key, { low_balance_rub: 50 })).statusCode).toBe(200);
    await debit(key, 30);
    await debit(key, 30);
    await settled(key, 1);
    expect(telegram.deliveredTo(key.messagingId)).toHaveLength(1);
    expect(telegram.deliveredTo(key.messagingId)[0].text).toContain(
      'is 40.00 RUB, below your alert threshold of 50.00 RUB',
    );
    // Still below: spending more sends nothing.
    await debit(key, 10);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(telegram.deliveredTo(key.messagingId)).toHaveLength(1);
    // Back above, then below again: a second notice.
    await app.ctx.accounts.topup(key.keyId, 100, 'top-up', by);
    await debit(key, 90);
    await settled(key, 2);
    expect(telegram.deliveredTo(key.messagingId)).toHaveLength(2);
    expect((await noticesOf(key)).map((row) => row.status)).toEqual(['sent', 'sent']);
  });

  it('a key created after the threshold was set gets it too', async () => {
    const first = await app.newKey({ balanceRub: 0 });
    await setThreshold(first, { low_balance_rub: 5 });
    const second = await app.newKey({ balanceRub: 10, messagingId: first.messagingId });
    await debit(second, 6);
    await settled(second, 1);
    expect(telegram.deliveredTo(first.messagingId)).toHaveLength(1);
  });

  it.each([
    ['blocked', 'Forbidden: bot was blocked by the user'],
    ['not-found', 'Bad Request: chat not found'],
  ] as const)('a refused send (%s) is recorded and not retried', async (behaviour, description) => {
    const key = await app.newKey({ balanceRub: 10 });
    telegram.behaviours.set(key.messagingId, behaviour);
    await setThreshold(key, { low_balance_rub: 5 });
    await debit(key, 6);
    await settled(key, 1);
    const [row] = await noticesOf(key);
    expect(row).toMatchObject({ status: 'refused', attempts: 1 });
    expect(row.last_error).toContain(description);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(telegram.received.filter((m) => m.chatId === key.messagingId)).toHaveLength(1);
  });

  it('a failing Telegram is retried on the schedule, then the notice is given up as failed', async () => {
    const key = await app.newKey({ balanceRub: 10 });
    telegram.behaviours.set(key.messagingId, 'fail');
    await setThreshold(key, { low_balance_rub: 5 });
    await debit(key, 6);
    await settled(key, 1);
    expect((await noticesOf(key))[0]).toMatchObject({ status: 'failed', attempts: 3 });
    expect(telegram.received.filter((m) => m.chatId === key.messagingId)).toHaveLength(3);
  });

  it('20 concurrent chat requests that cross together: one message', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    await setThreshold(key, { low_balance_rub: 99.9999 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        app.http.inject({
          method: 'POST',
          url: '/v1/chat/completions',
          headers: key.auth,
          payload: {
            model: 'gpt-4o',
            messages: [{ role: 'user', content: 'hi [sim:tokens=5]' }],
            max_tokens: 20,
          },
        }),
      ),
    );
    expect(answers.map((res) => res.statusCode)).toEqual(answers.map(() => 200));
    await settled(key, 1);
    expect(telegram.deliveredTo(key.messagingId)).toHaveLength(1);
  });
});
