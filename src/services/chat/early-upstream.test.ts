// The upstream call sent alongside the chat hold, on every engine: only for a lone request, on a key
// whose recent balance covers the hold twice over; its answer handed over only after the hold
// committed; aborted (and counted) when the hold is refused or smaller after all, nothing billed.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ChatCompletion, ChatCompletionChunk } from '../../domain/chat/types.js';
import { Cancellation } from '../../providers/cancellation.js';
import type { ChatProvider, UpstreamChatCall } from '../../providers/chat-provider.js';
import type { ChatRegistry } from '../../providers/chat-registry.js';
import type { ChatOpening } from '../../storage/ledger/chat-billing.js';
import { checkLedger } from '../../storage/ledger/ledger-check.js';
import { createTestApp, type TestApp, type TestKey } from '../../testing/app.js';
import { balanceOf } from '../../testing/chat.js';
import { ENGINES } from '../../testing/db.js';
import { ChatService } from './chat-service.js';

interface SentCall {
  body: Record<string, unknown>;
  cancellation: Cancellation;
}

const completion = (): ChatCompletion =>
  ({
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 0,
    model: 'upstream-model',
    choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
  }) as ChatCompletion;

/** An upstream that answers at once, unless the call was aborted first. */
function recordingProvider(sent: SentCall[]): ChatProvider {
  const answer = <T>(call: UpstreamChatCall, value: T): Promise<T> => {
    sent.push({ body: call.body, cancellation: call.cancellation });
    return new Promise((resolve, reject) => {
      const fail = () => reject(new DOMException('aborted', 'AbortError'));
      if (call.cancellation.aborted) return fail();
      call.cancellation.once('abort', fail);
      setImmediate(() => resolve(value));
    });
  };
  return {
    name: 'recording',
    complete: (call) => answer(call, completion()),
    stream: (call) =>
      answer<AsyncIterable<ChatCompletionChunk>>(call, {
        async *[Symbol.asyncIterator]() {
          yield {
            id: 'chatcmpl-test',
            object: 'chat.completion.chunk',
            created: 0,
            model: 'upstream-model',
            choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
          } as ChatCompletionChunk;
        },
      }),
    close: async () => undefined,
  };
}

describe.each(ENGINES)('the upstream call alongside the chat hold on %s', (engine) => {
  let app: TestApp;
  let chat: ChatService;
  const sent: SentCall[] = [];
  /** Holds in flight: the test decides when the database sees each one. */
  let holdsInFlight = 0;
  let gate: Promise<void> | undefined;

  beforeAll(async () => {
    app = await createTestApp({ engine });
    const provider = recordingProvider(sent);
    const registry = {
      resolve: () => ({ provider, upstreamModel: 'upstream-model' }),
      close: async () => undefined,
    } as unknown as ChatRegistry;
    chat = new ChatService({
      storage: app.ctx.storage,
      catalog: app.ctx.catalog,
      clock: app.ctx.clock,
      registry,
      metrics: app.ctx.metrics,
    });
    const billing = app.ctx.storage.chatBilling;
    const openReporting = billing.openReporting.bind(billing);
    vi.spyOn(billing, 'openReporting').mockImplementation(async (opening: ChatOpening, amount: number) => {
      holdsInFlight++;
      try {
        await gate;
        return await openReporting(opening, amount);
      } finally {
        holdsInFlight--;
      }
    });
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    expect(await checkLedger(app.ctx.storage.db)).toEqual([]);
    await chat.close();
    await app.dispose();
  });

  const authOf = (key: TestKey) => app.ctx.auth.authenticate(key.auth.authorization);
  const ask = (extra: Record<string, unknown> = {}) => ({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'hello' }],
    max_tokens: 100,
    ...extra,
  });
  const aborted = async () =>
    (await app.ctx.metrics.chatEarlyCallsAborted.get()).values.reduce((sum, v) => sum + v.value, 0);
  const live = () => new Cancellation();

  /** Opens a request while its hold waits until the test has seen what went upstream. */
  async function openHeldBack(key: TestKey, body = ask()) {
    let release!: () => void;
    gate = new Promise((resolve) => {
      release = resolve;
    });
    const before = sent.length;
    const opening = chat.open(await authOf(key), body);
    try {
      await vi.waitFor(() => expect(holdsInFlight).toBe(1));
      await new Promise((resolve) => setImmediate(resolve));
      return { opening, sentBeforeHold: sent.slice(before) };
    } finally {
      release();
      gate = undefined;
    }
  }

  it("waits for a key's first hold, then calls upstream alongside the holds of a key known to cover them", async () => {
    const key = await app.newKey({ balanceRub: 50 });
    const first = await openHeldBack(key);
    expect(first.sentBeforeHold).toEqual([]);
    const firstCall = await first.opening;
    await firstCall.complete(live());
    expect(sent).toHaveLength(1);

    const second = await openHeldBack(key);
    expect(second.sentBeforeHold).toHaveLength(1);
    const call = await second.opening;
    // The answer comes out of the call that was already under way, once the hold has committed.
    const answer = await call.complete(live());
    expect(answer.model).toBe('gpt-4o');
    expect(sent).toHaveLength(2);
    const cost = (await call.settlement)!.cost;
    expect(cost).toBeGreaterThan(0);
    const firstCost = (await firstCall.settlement)!.cost;
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: 50_000_000 - firstCost - cost, held: 0 });

    // A stream too: its chunks are relayed from the call sent alongside the hold.
    const streamed = await openHeldBack(key, ask({ stream: true }));
    expect(streamed.sentBeforeHold).toHaveLength(1);
    const payloads: string[] = [];
    await (await streamed.opening).streamTo(
      { start: () => undefined, send: async (data) => payloads.push(data) > 0, end: () => undefined },
      live(),
    );
    expect(payloads.at(-1)).toBe('[DONE]');
  });

  it('sends no call alongside a hold while another request of this process is in flight (load)', async () => {
    const key = await app.newKey({ balanceRub: 50 });
    const auth = await authOf(key);
    await (await chat.open(auth, ask())).complete(live());
    // Held, its upstream call not answered yet: a second request waits for its own hold first.
    const inFlight = await chat.open(auth, ask());
    const second = await openHeldBack(key);
    expect(second.sentBeforeHold).toEqual([]);
    await Promise.all([inFlight.complete(live()), (await second.opening).complete(live())]);
    // Both settled: the next request is alone again.
    const third = await openHeldBack(key);
    expect(third.sentBeforeHold).toHaveLength(1);
    await (await third.opening).complete(live());
  });

  it('aborts the call sent alongside a hold that is refused after all: 402, nothing billed, counted', async () => {
    const key = await app.newKey({ balanceRub: 50 });
    await (await chat.open(await authOf(key), ask())).complete(live());
    // Another process spends the rest of the balance meanwhile.
    const { balance } = await balanceOf(app, key.keyId);
    const ref = { keyId: key.keyId, accountId: key.accountId, now: app.ctx.clock.now() };
    expect(
      await app.ctx.storage.chatBilling.open({ id: 'chat_elsewhere', modelId: 'gpt-4o', ref }, balance),
    ).toBe(true);

    const countedBefore = await aborted();
    const { opening, sentBeforeHold } = await openHeldBack(key);
    expect(sentBeforeHold).toHaveLength(1);
    await expect(opening).rejects.toMatchObject({ status: 402 });
    expect(sentBeforeHold[0].cancellation.aborted).toBe(true);
    expect(await aborted()).toBe(countedBefore + 1);
    expect(await balanceOf(app, key.keyId)).toEqual({ balance: 0, held: balance });
    const outcome = { status: 'failed' as const, inputTokens: 0, outputTokens: 0, cost: 0, latencyMs: 0 };
    expect(await app.ctx.storage.chatBilling.settle(ref, 'chat_elsewhere', balance, outcome)).toBe(true);
  });

  it('sends the call again, with the lowered max tokens, when only a smaller hold fits', async () => {
    const key = await app.newKey({ balanceRub: 50 });
    const firstCall = await chat.open(await authOf(key), ask({ max_tokens: 20 }));
    await firstCall.complete(live());
    const full = firstCall.init.hold;
    // Another process leaves less than one full hold of a larger request, but enough for a smaller one.
    const { balance } = await balanceOf(app, key.keyId);
    const ref = { keyId: key.keyId, accountId: key.accountId, now: app.ctx.clock.now() };
    const spent = balance - Math.floor(full / 2);
    expect(
      await app.ctx.storage.chatBilling.open({ id: 'chat_elsewhere_2', modelId: 'gpt-4o', ref }, spent),
    ).toBe(true);
    // The hint still remembers the balance before that spend: the call goes out alongside the hold.
    const countedBefore = await aborted();
    const { opening, sentBeforeHold } = await openHeldBack(key, ask({ max_tokens: 20 }));
    expect(sentBeforeHold).toHaveLength(1);
    const call = await opening;
    expect(call.init.hold).toBeLessThan(full);
    expect(sentBeforeHold[0].cancellation.aborted).toBe(true);
    expect(await aborted()).toBe(countedBefore + 1);
    const sentBefore = sent.length;
    await call.complete(live());
    expect(sent).toHaveLength(sentBefore + 1);
    const resent = sent.at(-1)!;
    expect(resent.cancellation.aborted).toBe(false);
    expect(resent.body.max_tokens).toBeLessThan(20);
    const outcome = { status: 'failed' as const, inputTokens: 0, outputTokens: 0, cost: 0, latencyMs: 0 };
    expect(await app.ctx.storage.chatBilling.settle(ref, 'chat_elsewhere_2', spent, outcome)).toBe(true);
  });
});
