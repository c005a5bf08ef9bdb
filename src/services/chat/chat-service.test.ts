// The chat billing use case on every engine: hold → settle, each together with the usage row,
// exact costs, releases, concurrent holds that never overdraw, and the sweep of abandoned holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measurePrompt, promptTokenBound } from '../../domain/chat/prompt-size.js';
import { parseChatRequest } from '../../domain/chat/request.js';
import { Cancellation } from '../../providers/cancellation.js';
import { checkLedger } from '../../storage/ledger/ledger-check.js';
import { createTestApp, type TestApp, type TestKey } from '../../testing/app.js';
import { balanceOf, countedUsageOf, expectedChatCost, promptEstimateOf } from '../../testing/chat.js';
import { ENGINES } from '../../testing/db.js';
import type { AuthenticatedKey } from '../auth.js';
import { ABANDONED_CHAT_HOLD_MS, releaseAbandonedChatHolds } from './abandoned-holds.js';
import type { ChatStreamSink } from './chat-call.js';

describe.each(ENGINES)('chat billing on %s', (engine) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ engine });
  });
  afterAll(async () => {
    expect(await checkLedger(app.ctx.storage.db)).toEqual([]);
    await app.dispose();
  });

  const authOf = (key: TestKey): Promise<AuthenticatedKey> =>
    app.ctx.auth.authenticate(key.auth.authorization);
  const live = () => new Cancellation();
  const ask = (content: string, extra: Record<string, unknown> = {}) => ({
    model: 'gpt-4o',
    messages: [{ role: 'user', content }],
    ...extra,
  });

  /** A client that reads `limit` output chunks, then goes away. */
  function sinkReading(limit = Number.POSITIVE_INFINITY) {
    const payloads: string[] = [];
    let outputs = 0;
    const sink: ChatStreamSink & { payloads: string[]; started: boolean; ended: boolean } = {
      payloads,
      started: false,
      ended: false,
      start() {
        sink.started = true;
      },
      async send(data) {
        const content = data === '[DONE]' ? undefined : JSON.parse(data).choices?.[0]?.delta?.content;
        if (content && outputs >= limit) return false;
        if (content) outputs++;
        payloads.push(data);
        return true;
      },
      end() {
        sink.ended = true;
      },
    };
    return sink;
  }

  it('holds before the call and settles the exact cost together with the usage row', async () => {
    const key = await app.newKey({ balanceRub: 50, coefficient: 1.2 });
    const call = await app.ctx.chat.open(
      await authOf(key),
      ask('hello [sim:tokens=20]', { max_tokens: 100 }),
    );
    const held = await balanceOf(app, key.keyId);
    expect(held.held).toBe(call.init.hold);
    expect(held.balance).toBe(50_000_000 - call.init.hold);
    // In flight: the hold is open and no usage row exists yet; the settlement writes it, complete.
    expect(await app.ctx.storage.chatHolds.byId(call.id)).toMatchObject({
      key_id: key.keyId,
      amount: call.init.hold,
      model_id: 'gpt-4o',
    });
    expect(await app.ctx.storage.usage.byId(key.accountId, call.id)).toBeUndefined();

    const completion = await call.complete(live());
    const cost = await expectedChatCost(app, 'gpt-4o', completion.usage!.prompt_tokens, 20, 1.2);
    expect(await call.settlement).toMatchObject({ status: 'completed', cost });
    expect(await app.ctx.storage.chatHolds.byId(call.id)).toBeUndefined();
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: 50_000_000 - cost, held: 0 });
    const entries = await app.ctx.storage.ledger.entriesForTask(call.id);
    expect(entries.map((e) => [e.kind, e.amount])).toEqual([
      ['hold', call.init.hold],
      ['capture', cost],
      ['release', call.init.hold - cost],
    ]);
    expect(await app.ctx.storage.usage.byId(key.accountId, call.id)).toMatchObject({
      status: 'completed',
      cost,
      output_tokens: 20,
    });
  });

  it('reads a stream on after the client left, and bills the upstream usage once it arrives', async () => {
    const key = await app.newKey({ balanceRub: 50 });
    const body = ask('a long one [sim:tokens=100]', { stream: true });
    const call = await app.ctx.chat.open(await authOf(key), body);
    const sink = sinkReading(7);
    await call.streamTo(sink, live());
    expect(sink.started && sink.ended).toBe(true);
    expect(sink.payloads.at(-1)).not.toBe('[DONE]');
    // The simulator reports the estimate as its prompt_tokens and 100 completion tokens.
    const cost = await expectedChatCost(app, 'gpt-4o', promptEstimateOf(body), 100);
    expect(await call.settlement).toMatchObject({
      status: 'cancelled',
      cost,
      usage: { completionTokens: 100 },
    });
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: 50_000_000 - cost, held: 0 });
  });

  it('past the drain bound, stops the upstream and bills the output read, tokenized', async () => {
    const key = await app.newKey({ balanceRub: 50 });
    const body = ask('a long one [sim:tokens=400,pace=5]', { stream: true });
    const drain = app.ctx.chat.cutStreamDrainMs;
    app.ctx.chat.cutStreamDrainMs = 30;
    const call = await app.ctx.chat.open(await authOf(key), body);
    app.ctx.chat.cutStreamDrainMs = drain;
    const read: string[] = [];
    const sink = sinkReading(7);
    const send = sink.send;
    sink.send = async (data) => {
      const content = data === '[DONE]' ? undefined : JSON.parse(data).choices?.[0]?.delta?.content;
      if (content) read.push(content);
      return send(data);
    };
    await call.streamTo(sink, live());
    const settlement = (await call.settlement)!;
    expect(settlement.status).toBe('cancelled');
    // Read on for ~30 ms at 5 ms a chunk: more than the 7 delivered, far fewer than 400.
    expect(settlement.usage!.completionTokens).toBeGreaterThan(7);
    expect(settlement.usage!.completionTokens).toBeLessThan(100);
    expect(settlement.usage!.promptTokens).toBe((await countedUsageOf('gpt-4o', body, [])).prompt);
    expect(settlement.cost).toBe(
      await expectedChatCost(
        app,
        'gpt-4o',
        settlement.usage!.promptTokens,
        settlement.usage!.completionTokens,
      ),
    );
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: 50_000_000 - settlement.cost, held: 0 });
  });

  it("holds gpt-4o-mini's inflated image tokens, and n choices of the max tokens", async () => {
    const key = await app.newKey({ balanceRub: 50 });
    const body = {
      model: 'gpt-4o-mini',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is it' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
          ],
        },
      ],
      max_tokens: 100,
      n: 3,
    };
    const call = await app.ctx.chat.open(await authOf(key), body);
    const bound = promptTokenBound(measurePrompt(parseChatRequest(body)), 48_169);
    expect(call.init.hold).toBe(await expectedChatCost(app, 'gpt-4o-mini', bound, 300));
    await call.complete(live());
    expect(await balanceOf(app, key.keyId)).toMatchObject({ held: 0 });
  });

  it('bills nothing for a stream the client left before any output', async () => {
    const key = await app.newKey({ balanceRub: 50 });
    const call = await app.ctx.chat.open(await authOf(key), ask('x [sim:tokens=30]', { stream: true }));
    await call.streamTo(sinkReading(0), live());
    expect(await call.settlement).toMatchObject({ status: 'cancelled', cost: 0 });
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: 50_000_000, held: 0 });
  });

  it('releases the whole hold when the upstream fails, and rethrows its error', async () => {
    const key = await app.newKey({ balanceRub: 50 });
    const call = await app.ctx.chat.open(await authOf(key), ask('x [sim:fail=billing]'));
    await expect(call.complete(live())).rejects.toMatchObject({
      status: 502,
      message: 'Provider billing error',
    });
    expect(await call.settlement).toMatchObject({ status: 'failed', cost: 0 });
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: 50_000_000, held: 0 });
  });

  it('never overdraws under concurrent requests: the holds fit the balance and the rest answer 402', async () => {
    const key = await app.newKey({ balanceRub: 0.05 });
    const auth = await authOf(key);
    const attempts = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        app.ctx.chat.open(auth, ask(`request ${i} [sim:tokens=3]`, { max_tokens: 20 })),
      ),
    );
    const opened = attempts.flatMap((a) => (a.status === 'fulfilled' ? [a.value] : []));
    const refused = attempts.flatMap((a) => (a.status === 'rejected' ? [a.reason] : []));
    expect(opened.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((e) => e.status === 402)).toBe(true);
    const held = opened.reduce((sum, call) => sum + call.init.hold, 0);
    expect(held).toBeLessThanOrEqual(50_000);
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: 50_000 - held, held });

    await Promise.all(opened.map((call) => call.complete(live())));
    const charged = (await Promise.all(opened.map((call) => call.settlement))).reduce(
      (sum, s) => sum + s!.cost,
      0,
    );
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: 50_000 - charged, held: 0 });
    expect(await checkLedger(app.ctx.storage.db)).toEqual([]);
  });

  it('sweeps a hold abandoned by a crashed process, and a late settlement then moves nothing', async () => {
    const key = await app.newKey({ balanceRub: 50 });
    const call = await app.ctx.chat.open(await authOf(key), ask('x', { max_tokens: 10 }));
    const now = app.ctx.clock.now();
    expect(await releaseAbandonedChatHolds(app.ctx.storage, now)).toBe(0);
    expect(await releaseAbandonedChatHolds(app.ctx.storage, now + ABANDONED_CHAT_HOLD_MS + 1)).toBe(1);
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: 50_000_000, held: 0 });
    expect(await app.ctx.storage.usage.byId(key.accountId, call.id)).toMatchObject({
      status: 'failed',
      cost: 0,
    });

    await call.complete(live());
    expect(await call.settlement).toMatchObject({ cost: 0 });
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: 50_000_000, held: 0 });
    expect((await app.ctx.storage.ledger.entriesForTask(call.id)).map((e) => e.kind)).toEqual([
      'hold',
      'capture',
      'release',
    ]);
  });
});
