// One held chat request: calls the upstream once, relays the answer, and settles the hold exactly
// once, together with the usage row (ChatBillingRepository): capture the exact cost, release the rest.
//   completed  → cost from the upstream usage (else the rules of domain/chat/usage.ts);
//   failed     → upstream error: nothing billed if nothing was delivered, else what was delivered;
//   cancelled  → client gone: a stream with no output yet is aborted and nothing is billed; after
//                some output (or while a whole answer is awaited), the upstream is read on (nothing
//                more is sent) for up to cutStreamDrainMs so that its usage, the upstream's own
//                bill, settles the request. Past that bound, or when the upstream breaks, a
//                stream's output read so far is counted with the model family's tokenizer
//                (domain/chat/token-count.ts); a whole answer that never came bills nothing.
import { chatCost, type TokenPrices } from '../../domain/billing/chat-cost.js';
import { chatProviderCost, type RouteCost } from '../../domain/billing/provider-cost.js';
import type { ChatRequest } from '../../domain/chat/request.js';
import { countPromptTokens, countTokens, tokenizerFamily, utf8Bytes } from '../../domain/chat/token-count.js';
import type { ChatCompletion, ChatCompletionChunk } from '../../domain/chat/types.js';
import {
  collectOutput,
  estimateCompletionTokens,
  presentChunk,
  readPromptTokens,
  readUsage,
  type TokenUsage,
} from '../../domain/chat/usage.js';
import { AppError, errorBody } from '../../domain/errors.js';
import { Cancellation } from '../../providers/cancellation.js';
import type { ChatProvider } from '../../providers/chat-provider.js';
import { LedgerIntegrityError } from '../../storage/ledger/ledger.js';
import type { UsageOutcome, UsageStatus } from '../../storage/repositories/usage.js';
import type { Storage } from '../../storage/storage.js';
import type { AuthenticatedKey } from '../auth.js';
import type { Clock } from '../clock.js';
import type { Metrics } from '../metrics.js';
import { noteAnswer, type UpstreamTiming, upstreamMsOf } from '../upstream-timing.js';
import { drainOnLeave } from './drain-on-leave.js';

/** Where a stream goes: the HTTP layer implements it over the raw response. */
export interface ChatStreamSink {
  /** Called once, when the first chunk is ready: commit the 200 text/event-stream response. */
  start(): void;
  /** Writes one `data:` payload and flushes it; resolves false once the client is gone. */
  send(data: string): Promise<boolean>;
  end(): void;
}

/**
 * The upstream call when ChatService sent it while the hold was still on its way (chat-service.ts):
 * its answer, and the cancellation it was sent with. Nothing of it reaches the client before the
 * hold has committed: the call is only handed over once it has.
 */
export interface EarlyUpstream extends UpstreamTiming {
  cancellation: Cancellation;
  completion?: Promise<ChatCompletion>;
  chunks?: Promise<AsyncIterable<ChatCompletionChunk>>;
}

export interface ChatCallInit {
  /** The usage row id, also the ledger's reference for the hold. */
  id: string;
  key: AuthenticatedKey;
  publicModel: string;
  request: ChatRequest;
  provider: ChatProvider;
  /** The PROVIDERS_FILE provider serving the request, recorded with its usage row. */
  providerName?: string;
  /** The route's cost; null when it carries none (the request's provider cost is then unknown). */
  providerCost?: RouteCost | null;
  upstreamBody: Record<string, unknown>;
  hold: number;
  prices: TokenPrices;
  promptEstimate: number;
  startedAt: number;
  /** Set when the upstream call is already under way (sent alongside the hold). */
  early?: EarlyUpstream;
  /** How long a stream is read on after its client left, waiting for the usage. Default 5 s. */
  cutStreamDrainMs?: number;
}

/** Reading on after the client left costs at most this long of upstream output, billed as read. */
export const DEFAULT_CUT_STREAM_DRAIN_MS = 5_000;

export interface Settlement {
  status: UsageStatus;
  usage: TokenUsage | null;
  /** Micro-rubles captured. */
  cost: number;
}

export class ChatCall {
  private settled: Promise<Settlement> | null = null;
  /** Set by leaveWatch: what to do once the client is found gone. */
  private clientGone: () => void = () => {};
  private upstreamTiming: UpstreamTiming | undefined;

  constructor(
    private readonly deps: {
      storage: Storage;
      clock: Clock;
      metrics?: Metrics;
      /** Called once the settlement has ended, whatever its outcome. */
      onSettled?: () => void;
    },
    readonly init: ChatCallInit,
  ) {}

  get id(): string {
    return this.init.id;
  }

  get stream(): boolean {
    return this.init.request.stream;
  }

  /** The upstream's time from the request sent to its answer (its headers, for a stream), in ms. */
  get upstreamMs(): number | undefined {
    return upstreamMsOf(this.upstreamTiming);
  }

  /** The early upstream call, or one started now; either way timed (the early one since it went). */
  private timed<T>(early: Promise<T> | undefined, send: () => Promise<T>): Promise<T> {
    if (early) {
      this.upstreamTiming = this.init.early;
      return early;
    }
    const timing: UpstreamTiming = { sentAt: performance.now() };
    this.upstreamTiming = timing;
    const answer = send();
    noteAnswer(timing, answer);
    return answer;
  }

  /** Resolves with the settlement once the hold is resolved (for tests and logs). */
  get settlement(): Promise<Settlement> | null {
    return this.settled;
  }

  /** A non-streaming completion. The hold is settled before the answer is returned. */
  async complete(client: Cancellation): Promise<ChatCompletion> {
    let completion: ChatCompletion;
    // The client leaving does not stop the upstream at once: it is given cutStreamDrainMs to answer,
    // so that what it bills is billed (it generates, and bills, whether or not anyone waits).
    const upstream = this.init.early?.cancellation ?? new Cancellation();
    const leave = this.leaveWatch(client, upstream, () => true);
    try {
      completion = await this.timed(this.init.early?.completion, () =>
        this.init.provider.complete({ body: this.init.upstreamBody, cancellation: upstream }),
      );
    } catch (error) {
      await this.settle(client.aborted ? 'cancelled' : 'failed', null);
      throw error;
    } finally {
      leave();
    }
    const usage = readUsage(completion.usage) ?? {
      promptTokens: this.init.promptEstimate,
      completionTokens: estimateCompletionTokens(completion),
    };
    if (client.aborted) {
      // The answer came after the client left: nothing was delivered, but the upstream billed it.
      await this.settle('cancelled', usage);
      throw new AppError('upstream_error', 'The client disconnected before the answer was ready');
    }
    await this.settle('completed', usage);
    completion.model = this.init.publicModel;
    return completion;
  }

  /** drainOnLeave with this call's drain bound; a write that finds the client gone calls clientGone. */
  private leaveWatch(client: Cancellation, upstream: Cancellation, readOn: () => boolean): () => void {
    const watch = drainOnLeave(
      client,
      upstream,
      this.init.cutStreamDrainMs ?? DEFAULT_CUT_STREAM_DRAIN_MS,
      readOn,
    );
    this.clientGone = watch.gone;
    return watch.release;
  }

  /**
   * A streaming completion relayed chunk by chunk into `sink`. Throws (with the hold released) when
   * the upstream fails before its first chunk, so the client gets a plain HTTP error; once the sink
   * has started, failures become an SSE error event and this resolves normally.
   */
  async streamTo(sink: ChatStreamSink, client: Cancellation): Promise<void> {
    // Cancelled when the client leaves before any output, or by us when we stop reading (the drain
    // bound passed, an error), so the upstream request always ends.
    const upstream = this.init.early?.cancellation ?? new Cancellation();
    const output: string[][] = [];
    const leave = this.leaveWatch(client, upstream, () => output.length > 0);
    try {
      await this.relay(sink, upstream, client, output);
    } finally {
      leave();
    }
  }

  private async relay(
    sink: ChatStreamSink,
    upstream: Cancellation,
    client: Cancellation,
    output: string[][],
  ): Promise<void> {
    let iterator: AsyncIterator<ChatCompletionChunk>;
    let next: IteratorResult<ChatCompletionChunk>;
    try {
      const chunks = await this.timed(this.init.early?.chunks, () =>
        this.init.provider.stream({ body: this.init.upstreamBody, cancellation: upstream }),
      );
      iterator = chunks[Symbol.asyncIterator]();
      next = await iterator.next();
    } catch (error) {
      upstream.cancel();
      await this.settle(client.aborted ? 'cancelled' : 'failed', null);
      throw error;
    }

    sink.start();
    const includeUsage = this.init.request.includeUsage;
    let usage: TokenUsage | null = null;
    /** The prompt tokens of a partial usage (the output uncounted): better than our own count. */
    let reportedPrompt: number | null = null;
    let status: Settlement['status'] = 'completed';
    try {
      for (; !next.done; next = await iterator.next()) {
        const chunk = next.value;
        if (chunk.usage) {
          usage = readUsage(chunk.usage) ?? usage;
          reportedPrompt = readPromptTokens(chunk.usage) ?? reportedPrompt;
        }
        if (status !== 'cancelled') {
          const shown = client.aborted ? null : presentChunk(chunk, this.init.publicModel, includeUsage);
          if (client.aborted || (shown && !(await sink.send(JSON.stringify(shown))))) {
            status = 'cancelled';
            // Nothing delivered yet: the upstream stops now and nothing is billed. Otherwise it is
            // read on, and this chunk with the rest (the upstream bills them all).
            this.clientGone();
            if (upstream.aborted) break;
          }
        }
        collectOutput(chunk, output);
      }
      if (status === 'completed' && !(await sink.send('[DONE]'))) status = 'cancelled';
    } catch (error) {
      if (client.aborted || status === 'cancelled') status = 'cancelled';
      else {
        status = 'failed';
        const failure =
          error instanceof AppError ? error : new AppError('upstream_error', 'The upstream stream failed');
        await sink.send(JSON.stringify(errorBody(failure)));
      }
    } finally {
      if (!next.done) {
        upstream.cancel();
        await iterator.return?.().catch(() => undefined);
      }
    }
    try {
      // The usage chunk comes after all output: once it was read, it covers everything generated.
      await this.settle(status, usage ?? (await this.countedUsage(output, reportedPrompt)));
    } finally {
      sink.end();
    }
  }

  /** A stream without the upstream's usage: its prompt and the output read, tokenized; null when none. */
  private async countedUsage(output: string[][], reportedPrompt: number | null): Promise<TokenUsage | null> {
    const texts = output.filter((pieces) => pieces && pieces.length > 0).map((pieces) => pieces.join(''));
    if (texts.length === 0) return null;
    const family = tokenizerFamily(String(this.init.upstreamBody.model), this.init.publicModel);
    const { body, messages } = this.init.request;
    try {
      const [promptTokens, completionTokens] = await Promise.all([
        reportedPrompt ??
          countPromptTokens(family, messages, [body.tools, body.functions, body.response_format]),
        countTokens(family, texts),
      ]);
      return { promptTokens, completionTokens };
    } catch {
      // The tokenizer failed to load: the settlement must still happen, so bill the output's
      // UTF-8 bytes (never fewer than its tokens) and the prompt estimate.
      return {
        promptTokens: reportedPrompt ?? this.init.promptEstimate,
        completionTokens: utf8Bytes(texts),
      };
    }
  }

  /** Captures the cost of `usage` (nothing when null) and releases the rest of the hold, once. */
  private settle(status: Settlement['status'], usage: TokenUsage | null): Promise<Settlement> {
    this.settled ??= (async () => {
      const now = this.deps.clock.now();
      const cost = usage
        ? Math.min(chatCost(usage.promptTokens, usage.completionTokens, this.init.prices), this.init.hold)
        : 0;
      const settled = await settleHold(
        this.deps,
        this.init.key,
        this.init.id,
        this.init.hold,
        this.init.startedAt,
        now,
        this.init.publicModel,
        this.init.provider.name,
        {
          status,
          inputTokens: usage?.promptTokens ?? 0,
          outputTokens: usage?.completionTokens ?? 0,
          cost,
          latencyMs: Math.max(0, now - this.init.startedAt),
          provider: this.init.providerName ?? this.init.provider.name,
          providerCost: chatProviderCost(this.init.providerCost ?? null, usage),
        },
      );
      // Not settled: already resolved elsewhere (the janitor, after a stall), nothing more moved.
      return { status, usage, cost: settled ? cost : 0 };
    })().finally(() => this.deps.onSettled?.());
    return this.settled;
  }
}

/**
 * Settles one chat hold with its usage row (ChatBillingRepository), through database failures
 * (settleDurably), and counts it in the metrics under `model` and `metricsProvider`. `outcome.cost`
 * must already be within `hold`. False: already resolved elsewhere (the janitor, after a stall).
 * Shared by ChatCall and ChatService.settleHeld (the Messages API pass-through).
 */
export function settleHold(
  deps: { storage: Storage; metrics?: Metrics },
  key: AuthenticatedKey,
  id: string,
  hold: number,
  startedAt: number,
  now: number,
  model: string,
  metricsProvider: string,
  outcome: UsageOutcome,
): Promise<boolean> {
  const ref = { keyId: key.keyId, accountId: key.accountId, now };
  return settleDurably(async () => {
    const settled = await deps.storage.chatBilling.settle(ref, id, hold, outcome);
    // Counted by the attempt that commits, a retry in the background included.
    if (settled)
      deps.metrics?.chatSettled({
        model,
        provider: metricsProvider,
        status: outcome.status,
        inputTokens: outcome.inputTokens,
        outputTokens: outcome.outputTokens,
        cost: outcome.cost,
        hold,
        durationMs: now - startedAt,
      });
    return settled;
  });
}

/** Waits before each retry of a settlement the database failed (a lost connection, a failover). */
export const SETTLE_RETRY_DELAYS_MS = [50, 250, 1_000, 3_000];
/** Then the request fails, and the settlement is retried in the background this often… */
export const SETTLE_BACKGROUND_RETRY_MS = 5_000;
/** …for up to an hour. A process that dies meanwhile leaves the hold to its lease (hold-lease.ts). */
const SETTLE_BACKGROUND_TRIES = 720;

/**
 * Runs a settlement until the database takes it. A settlement applies once whatever happens (it only
 * moves money while the usage row is pending), so running it again after an error is safe even when
 * the error came after the commit. Without this, a live process would keep the hold open until the
 * 6-hour sweep. A LedgerIntegrityError is a bug, not an outage: never retried.
 */
export async function settleDurably(
  attempt: () => Promise<boolean>,
  delaysMs: readonly number[] = SETTLE_RETRY_DELAYS_MS,
  backgroundMs = SETTLE_BACKGROUND_RETRY_MS,
): Promise<boolean> {
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      if (error instanceof LedgerIntegrityError) throw error;
      if (retry >= delaysMs.length) {
        retryInBackground(attempt, backgroundMs, SETTLE_BACKGROUND_TRIES);
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, delaysMs[retry]));
    }
  }
}

function retryInBackground(attempt: () => Promise<boolean>, everyMs: number, tries: number): void {
  if (tries <= 0) return;
  const timer = setTimeout(() => {
    attempt().catch((error) => {
      if (!(error instanceof LedgerIntegrityError)) retryInBackground(attempt, everyMs, tries - 1);
    });
  }, everyMs);
  // Must not keep a finished process alive: its lease covers the hold once it is gone.
  timer.unref?.();
}
