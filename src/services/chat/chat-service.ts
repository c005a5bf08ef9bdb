// The chat use case, up to the upstream call: checks in the order of DESIGN.md section 4, then the
// hold and the open-hold row together (ChatBillingRepository). What happens next (call, stream,
// settle) is ChatCall's. A request that finds no other chat request of this process in flight, on a
// key whose recent balance covers its hold twice over (BalanceHints), is sent upstream while its hold
// is on its way: it then waits for the slower of the two instead of both in turn, and its answer is
// still only handed over once the hold committed. Under load the overlap bought no throughput and
// cost some on SQLite (docs/DECISIONS.md), so it is kept for a lone request.
import {
  type ChatHoldInput,
  type ChatHoldPlan,
  fullChatHold,
  planChatHold,
  type TokenPrices,
} from '../../domain/billing/chat-cost.js';
import { type CatalogModel, isInternalModelId } from '../../domain/catalog/model.js';
import { maxCompletionTokensOf } from '../../domain/chat/output-limits.js';
import {
  estimatePromptTokens,
  imageTokenBoundOf,
  measurePrompt,
  promptTokenBound,
} from '../../domain/chat/prompt-size.js';
import { type ChatRequest, parseChatRequest, readChatModel } from '../../domain/chat/request.js';
import { AppError } from '../../domain/errors.js';
import { uuidV7 } from '../../domain/ids.js';
import { spendRoom } from '../../domain/keys/limits.js';
import { modelAllowed } from '../../domain/keys/restrictions.js';
import { Cancellation } from '../../providers/cancellation.js';
import type { ChatRegistry, ChatRoute } from '../../providers/chat-registry.js';
import type { ChatOpening } from '../../storage/ledger/chat-billing.js';
import type { SpendState } from '../../storage/repositories/keys.js';
import type { UsageStatus } from '../../storage/repositories/usage.js';
import type { Storage } from '../../storage/storage.js';
import type { AuthenticatedKey } from '../auth.js';
import type { CatalogService } from '../catalog.js';
import type { Clock } from '../clock.js';
import { capReached } from '../hold-refusal.js';
import type { Metrics } from '../metrics.js';
import { noteAnswer } from '../upstream-timing.js';
import { BalanceHints } from './balance-hints.js';
import { ChatCall, DEFAULT_CUT_STREAM_DRAIN_MS, type EarlyUpstream, settleHold } from './chat-call.js';
import { ChatHoldLease } from './hold-lease.js';

/** Smaller holds tried when the balance keeps moving under a request; then 402. */
const SMALLER_HOLD_ATTEMPTS = 3;

export interface ChatServiceDeps {
  storage: Storage;
  catalog: CatalogService;
  clock: Clock;
  registry: ChatRegistry;
  /** LEASE_MS: how soon after this process dies its open holds are released by another. */
  holdLeaseMs?: number;
  onLeaseError?: (message: string, error: unknown) => void;
  metrics?: Metrics;
  /** How long a stream is read on after its client left, for the upstream's usage (chat-call.ts). */
  cutStreamDrainMs?: number;
}

/** A text model with both token prices set (what textModel() admits). */
export type PricedTextModel = CatalogModel & { priceMicro: number; priceOutputMicro: number };

/** A request held by ChatService.holdFor(): its usage row id, hold, and the upstream call under way. */
export interface HeldChatRequest<E> {
  id: string;
  key: AuthenticatedKey;
  model: PricedTextModel;
  hold: number;
  startedAt: number;
  call: E;
}

/** Without a configured LEASE_MS (config.ts's default). */
const DEFAULT_HOLD_LEASE_MS = 30_000;

export class ChatService {
  /** This process's lease on its open holds (see hold-lease.ts). */
  readonly holdLease: ChatHoldLease;
  private readonly hints = new BalanceHints();
  /** Requests from their hold to their settlement. */
  private requestsInFlight = 0;
  /** How long a stream is read on after its client left (tests shorten it). */
  cutStreamDrainMs: number;

  constructor(private readonly deps: ChatServiceDeps) {
    this.cutStreamDrainMs = deps.cutStreamDrainMs ?? DEFAULT_CUT_STREAM_DRAIN_MS;
    this.holdLease = new ChatHoldLease(deps, {
      leaseMs: deps.holdLeaseMs ?? DEFAULT_HOLD_LEASE_MS,
      onError: deps.onLeaseError,
    });
  }

  /** Validates, checks access and balance, and holds; the returned call runs the request once. */
  async open(key: AuthenticatedKey, body: Record<string, unknown>): Promise<ChatCall> {
    const startedAt = this.deps.clock.now();
    const modelId = readChatModel(body);
    const model = await this.textModel(key, modelId);
    const request = parseChatRequest(body);
    if (request.imageParts > 0 && !model.vision) {
      throw new AppError('vision_not_supported', `${modelId} does not accept image input`, 'messages');
    }
    const route = this.deps.registry.resolve(model);

    const size = measurePrompt(request);
    const bound = promptTokenBound(size, imageTokenBoundOf(model.id));
    const prices: TokenPrices = {
      inputPerMillion: model.priceMicro,
      outputPerMillion: model.priceOutputMicro,
      coefficientPpm: key.coefficientPpm,
    };
    const id = `chat_${uuidV7()}`;
    const sizing = {
      promptTokenBound: bound,
      requestedMaxTokens: request.maxTokens,
      modelMaxCompletionTokens: maxCompletionTokensOf(model.id),
      // Every choice of `n` is generated and billed; a prediction's rejected tokens are billed as output.
      choices: request.choices,
      extraCompletionTokens: request.predictionBytes,
      prices,
    };
    // Written once per process (the first request); afterwards a flag check, no round trip.
    if (!this.holdLease.live) await this.holdLease.start();
    const opening = {
      id,
      modelId: model.id,
      ref: { keyId: key.keyId, accountId: key.accountId, now: startedAt },
      processId: this.holdLease.processId,
    };
    const full = fullChatHold(sizing);
    const fullBody = upstreamBody(request, route.upstreamModel, null);
    let early =
      this.requestsInFlight === 0 && this.hints.covers(key.keyId, full.amount, startedAt)
        ? sendEarly(route, request.stream, fullBody)
        : undefined;
    let plan: ChatHoldPlan;
    this.requestsInFlight++;
    try {
      plan = await this.hold(opening, sizing, full);
    } catch (error) {
      this.requestsInFlight--;
      this.abortEarly(early);
      throw error;
    }
    // A smaller hold than the full one lowers the upstream's max tokens: that call goes out anew.
    if (early && plan !== full) {
      this.abortEarly(early);
      early = undefined;
    }
    this.deps.metrics?.chatHeld(model.id, plan.amount);

    return new ChatCall(
      {
        storage: this.deps.storage,
        clock: this.deps.clock,
        metrics: this.deps.metrics,
        onSettled: () => {
          this.requestsInFlight--;
        },
      },
      {
        id,
        key,
        publicModel: model.id,
        request,
        provider: route.provider,
        providerName: route.providerName,
        providerCost: route.cost ?? null,
        upstreamBody: plan.lowered
          ? upstreamBody(request, route.upstreamModel, plan.maxCompletionTokens)
          : fullBody,
        hold: plan.amount,
        prices,
        promptEstimate: estimatePromptTokens(size),
        startedAt,
        early,
        cutStreamDrainMs: this.cutStreamDrainMs,
      },
    );
  }

  /** The checks open() makes of a model, in its order: found and active, text, allowed, priced. */
  async textModel(key: AuthenticatedKey, modelId: string): Promise<PricedTextModel> {
    const model = isInternalModelId(modelId) ? undefined : await this.deps.catalog.get(modelId);
    if (!model?.active)
      throw new AppError('model_not_found', `Model ${modelId} not found or inactive`, 'model');
    if (model.kind !== 'text') {
      throw new AppError(
        'model_not_found',
        `${modelId} is not a chat model; ${model.kind} models are served by POST /generate`,
        'model',
      );
    }
    if (!modelAllowed(modelId, key.allowedModels))
      throw new AppError('model_not_allowed', `This key may not use ${modelId}`, 'model');
    if (model.priceMicro === null || model.priceOutputMicro === null) {
      throw new AppError('model_has_no_price', `No price is set for ${modelId}`, 'model');
    }
    return model as PricedTextModel;
  }

  /** The adapter and upstream id serving a text model. */
  route(model: CatalogModel): ChatRoute {
    return this.deps.registry.resolve(model);
  }

  /**
   * A hold for a request whose upstream call another use case makes itself (the Messages API
   * pass-through), with open()'s machinery: the lease, the full hold first and smaller ones after,
   * and the call sent alongside the hold when this process is idle and the key's balance surely
   * covers it. `send(null)` sends the request as asked; `send(max)` with the max tokens lowered to
   * what the balance covers. The returned request must be settled once with settleHeld().
   */
  async holdFor<E extends { cancellation: Cancellation }>(
    key: AuthenticatedKey,
    model: PricedTextModel,
    sizing: Omit<ChatHoldInput, 'balance'>,
    send: (loweredMax: number | null) => E,
  ): Promise<HeldChatRequest<E>> {
    const startedAt = this.deps.clock.now();
    const id = `chat_${uuidV7()}`;
    if (!this.holdLease.live) await this.holdLease.start();
    const opening = {
      id,
      modelId: model.id,
      ref: { keyId: key.keyId, accountId: key.accountId, now: startedAt },
      processId: this.holdLease.processId,
    };
    const full = fullChatHold(sizing);
    let early =
      this.requestsInFlight === 0 && this.hints.covers(key.keyId, full.amount, startedAt)
        ? send(null)
        : undefined;
    let plan: ChatHoldPlan;
    this.requestsInFlight++;
    try {
      plan = await this.hold(opening, sizing, full);
    } catch (error) {
      this.requestsInFlight--;
      this.abortEarly(early);
      throw error;
    }
    if (early && plan !== full) {
      this.abortEarly(early);
      early = undefined;
    }
    this.deps.metrics?.chatHeld(model.id, plan.amount);
    return {
      id,
      key,
      model,
      hold: plan.amount,
      startedAt,
      call: early ?? send(plan.lowered ? plan.maxCompletionTokens : null),
    };
  }

  /**
   * Settles a request of holdFor(), once: captures `cost` (never above the hold) with its token
   * counts, releases the rest, retrying through database failures like a chat settlement.
   */
  async settleHeld(
    held: HeldChatRequest<unknown>,
    provider: string,
    outcome: {
      status: UsageStatus;
      inputTokens: number;
      outputTokens: number;
      cost: number;
      /** What the upstream cost the operator (micro-rubles); null when the route carries no cost. */
      providerCost?: number | null;
    },
  ): Promise<number> {
    try {
      const now = this.deps.clock.now();
      const cost = Math.min(outcome.cost, held.hold);
      const settled = await settleHold(
        this.deps,
        held.key,
        held.id,
        held.hold,
        held.startedAt,
        now,
        held.model.id,
        provider,
        {
          status: outcome.status,
          inputTokens: outcome.inputTokens,
          outputTokens: outcome.outputTokens,
          cost,
          latencyMs: Math.max(0, now - held.startedAt),
          provider,
          providerCost: outcome.providerCost ?? null,
        },
      );
      return settled ? cost : 0;
    } finally {
      this.requestsInFlight--;
    }
  }

  /** Aborts an upstream call sent alongside a hold that did not go through as planned. */
  private abortEarly(early: Pick<EarlyUpstream, 'cancellation'> | undefined): void {
    if (!early) return;
    early.cancellation.cancel();
    this.deps.metrics?.chatEarlyCallsAborted.inc();
  }

  /**
   * Opens the usage row with its hold. Most requests are covered in full: the guarded hold of the
   * full amount either succeeds or writes nothing, and only then is the balance read to size a
   * smaller hold (or answer 402). A spend landing between that read and the smaller hold refuses it;
   * the balance is then read again, a few times at most.
   */
  private async hold(
    opening: ChatOpening,
    sizing: Omit<ChatHoldInput, 'balance'>,
    full: ChatHoldPlan,
  ): Promise<ChatHoldPlan> {
    const { storage } = this.deps;
    const { keyId, now } = opening.ref;
    const held = (balanceAfter: number | null): boolean => {
      if (balanceAfter === null) this.hints.forget(keyId);
      else this.hints.record(keyId, balanceAfter, now);
      return balanceAfter !== null;
    };
    if (held(await storage.chatBilling.openReporting(opening, full.amount))) return full;
    let capped: { state: SpendState; room: number } | null = null;
    for (let attempt = 0; attempt < SMALLER_HOLD_ATTEMPTS; attempt++) {
      const state = await storage.keys.spendState(keyId);
      if (state === undefined) throw new AppError('invalid_api_key');
      // What the key may hold: its balance, and no more than its spend cap leaves.
      const room = spendRoom(state, now);
      const balance = Number(state.balance);
      capped = room !== null && room < balance ? { state, room } : null;
      let planned: ChatHoldPlan;
      try {
        planned = planChatHold({ ...sizing, balance: capped ? capped.room : balance });
      } catch (error) {
        throw capped && error instanceof AppError ? capReached(capped.state, capped.room) : error;
      }
      if (held(await storage.chatBilling.openReporting(opening, planned.amount))) return planned;
    }
    throw capped ? capReached(capped.state, capped.room) : new AppError('insufficient_balance');
  }

  /** Closes the upstream connection pools and gives up this process's hold lease. */
  async close(): Promise<void> {
    await this.holdLease.close();
    await this.deps.registry.close();
  }
}

/**
 * The client's body with the upstream model id; the max tokens lowered to what the balance covers
 * (rewriting whichever field the client used, else setting max_completion_tokens); and usage
 * requested on streams, whatever the client asked.
 */
function upstreamBody(
  request: ChatRequest,
  upstreamModel: string,
  loweredMax: number | null,
): Record<string, unknown> {
  const body: Record<string, unknown> = { ...request.body, model: upstreamModel };
  if (loweredMax !== null) {
    const usedField = body.max_completion_tokens != null || body.max_tokens != null;
    if (body.max_completion_tokens != null || !usedField) body.max_completion_tokens = loweredMax;
    if (body.max_tokens != null) body.max_tokens = loweredMax;
  }
  if (request.stream) {
    const options = body.stream_options && typeof body.stream_options === 'object' ? body.stream_options : {};
    body.stream_options = { ...options, include_usage: true };
  }
  return body;
}

/**
 * Sends the call before its hold has committed. A failure is kept in the promise for ChatCall; until
 * ChatCall awaits it (or when it is aborted and never awaited), it must not count as unhandled.
 */
function sendEarly(route: ChatRoute, stream: boolean, body: Record<string, unknown>): EarlyUpstream {
  const cancellation = new Cancellation();
  const call = { body, cancellation };
  const early: EarlyUpstream = { cancellation, sentAt: performance.now() };
  // Timed from here: the answer may come before the hold ends.
  if (stream) {
    early.chunks = route.provider.stream(call);
    noteAnswer(early, early.chunks);
  } else {
    early.completion = route.provider.complete(call);
    noteAnswer(early, early.completion);
  }
  return early;
}
