// A held Messages request on a native Anthropic route: the upstream's answer reaches the client as
// it was sent, with only `model` rewritten to the public id (in the body, or in message_start).
// Stream events are relayed in order without being parsed, except the few billing reads:
// message_start (model, and the prompt's usage) and message_delta (the final usage); content
// deltas are kept as text, and read only to bill a stream cut before its final usage
// (event-reader.ts).
//   completed  → the reported usage at the model's prices (cache writes/reads, server-tool uses);
//   failed     → upstream error: nothing billed before message_start, else what was delivered;
//   cancelled  → client gone: the upstream is read on for up to cutStreamDrainMs (drain-on-leave.ts)
//                and its final usage billed; cut before it, what was read is billed.
import {
  EMPTY_MESSAGES_USAGE,
  type MessagesPrices,
  type MessagesUsage,
  messagesCost,
} from '../../domain/billing/messages-cost.js';
import { chatProviderCost, type RouteCost } from '../../domain/billing/provider-cost.js';
import { tokenizerFamily } from '../../domain/chat/token-count.js';
import { AppError } from '../../domain/errors.js';
import { anthropicError } from '../../domain/messages/errors.js';
import { readMessagesUsage } from '../../domain/messages/usage.js';
import type { Cancellation } from '../../providers/cancellation.js';
import type { MessagesUpstreamAnswer } from '../../providers/chat-provider.js';
import type { UsageStatus } from '../../storage/repositories/usage.js';
import type { ChatService, HeldChatRequest } from '../chat/chat-service.js';
import { drainOnLeave, type LeaveWatch } from '../chat/drain-on-leave.js';
import { type UpstreamTiming, upstreamMsOf } from '../upstream-timing.js';
import { EventReader } from './event-reader.js';
import { type MessagesCall, type MessagesStreamSink, sseEvent } from './messages-call.js';

/** The upstream call under way, timed from the request sent to its answer's headers. */
export interface PassThroughUpstream extends UpstreamTiming {
  cancellation: Cancellation;
  answer: Promise<MessagesUpstreamAnswer>;
}

export class PassThroughCall implements MessagesCall {
  constructor(
    private readonly chat: ChatService,
    private readonly held: HeldChatRequest<PassThroughUpstream>,
    private readonly details: {
      stream: boolean;
      prices: MessagesPrices;
      provider: string;
      /** The route's cost to the operator (PROVIDERS_FILE cost_rub); null when it carries none. */
      providerCost: RouteCost | null;
      /** The prompt's estimate (parseMessagesRequest), for an answer that reports no usage. */
      promptEstimate: number;
    },
  ) {}

  get id(): string {
    return this.held.id;
  }

  get stream(): boolean {
    return this.details.stream;
  }

  get upstreamMs(): number | undefined {
    return upstreamMsOf(this.held.call);
  }

  async complete(client: Cancellation): Promise<Record<string, unknown>> {
    const upstream = this.held.call;
    // A client that leaves leaves the upstream cutStreamDrainMs to answer: what it bills is billed.
    const leave = drainOnLeave(client, upstream.cancellation, this.chat.cutStreamDrainMs, () => true);
    let message: Record<string, unknown>;
    try {
      const text = await (await upstream.answer).text();
      try {
        message = JSON.parse(text) as Record<string, unknown>;
      } catch {
        throw new AppError('upstream_error', 'The upstream provider answered with a body that is not JSON');
      }
      if (message?.type !== 'message')
        throw new AppError(
          'upstream_error',
          'The upstream provider answered with something other than a message',
        );
    } catch (error) {
      await this.settle(client.aborted ? 'cancelled' : 'failed', null);
      throw error;
    } finally {
      leave.release();
    }
    // Anthropic always reports usage; an answer without it is billed from the gateway's estimate
    // (the prompt's, and 4 bytes a token of the content), as chat does.
    const usage = readMessagesUsage(message.usage) ?? {
      ...EMPTY_MESSAGES_USAGE,
      inputTokens: this.details.promptEstimate,
      outputTokens: Math.ceil(Buffer.byteLength(JSON.stringify(message.content ?? [])) / 4),
    };
    if (client.aborted) {
      // The answer came after the client left: nothing was delivered, but the upstream billed it.
      await this.settle('cancelled', usage);
      throw new AppError('upstream_error', 'The client disconnected before the answer was ready');
    }
    await this.settle('completed', usage);
    message.model = this.held.model.id;
    return message;
  }

  async streamTo(sink: MessagesStreamSink, client: Cancellation): Promise<void> {
    const upstream = this.held.call;
    // Before any event reached the client the upstream stops at once when it leaves; after, it is
    // read on for cutStreamDrainMs, so that its own final usage can settle the request.
    let delivered = false;
    const leave = drainOnLeave(client, upstream.cancellation, this.chat.cutStreamDrainMs, () => delivered);
    const counted: MessagesStreamSink = {
      ...sink,
      write: (text) => {
        delivered = true;
        return sink.write(text);
      },
    };
    try {
      await this.relay(counted, upstream, client, leave);
    } finally {
      leave.release();
    }
  }

  private async relay(
    sink: MessagesStreamSink,
    upstream: PassThroughUpstream,
    client: Cancellation,
    leave: LeaveWatch,
  ) {
    let answer: MessagesUpstreamAnswer;
    let iterator: AsyncIterator<Uint8Array>;
    let next: IteratorResult<Uint8Array>;
    try {
      answer = await upstream.answer;
      iterator = answer.chunks[Symbol.asyncIterator]();
      next = await iterator.next();
    } catch (error) {
      upstream.cancellation.cancel();
      await this.settle(client.aborted ? 'cancelled' : 'failed', null);
      throw error;
    }
    sink.start();
    const reader = new EventReader(this.held.model.id);
    let status: UsageStatus = 'completed';
    try {
      for (; !next.done; next = await iterator.next()) {
        const out = reader.push(next.value);
        if (status === 'completed' && out.length > 0 && (client.aborted || !(await sink.write(out)))) {
          // Read on (the drain) unless the upstream was stopped: the rest is billed as it is read.
          status = 'cancelled';
          leave.gone();
          if (upstream.cancellation.aborted) break;
        }
      }
      if (status === 'completed') {
        // The line ends after the last event (a \r\n cut between chunks leaves its \n here).
        const rest = reader.rest();
        if (rest.length > 0) await sink.write(rest);
        // A stream that ended without message_stop broke somewhere upstream.
        if (reader.failed || !reader.stopped) status = 'failed';
        if (!reader.failed && !reader.stopped)
          await sink.write(
            sseEvent(streamError(new AppError('upstream_error', 'The upstream stream ended early'))),
          );
      }
    } catch {
      if (client.aborted || status === 'cancelled') status = 'cancelled';
      else {
        status = 'failed';
        await sink.write(sseEvent(streamError(new AppError('upstream_error', 'The upstream stream failed'))));
      }
    } finally {
      if (status !== 'completed') {
        upstream.cancellation.cancel();
        answer.discard();
        await iterator.return?.().catch(() => undefined);
      }
    }
    try {
      await this.settle(status, await reader.usage(tokenizerFamily(this.held.model.id)));
    } finally {
      sink.end();
    }
  }

  private async settle(status: UsageStatus, usage: MessagesUsage | null): Promise<void> {
    const billed = usage ?? EMPTY_MESSAGES_USAGE;
    const inputTokens =
      billed.inputTokens + billed.cacheWriteTokens + billed.cacheWrite1hTokens + billed.cacheReadTokens;
    await this.chat.settleHeld(this.held, this.details.provider, {
      status,
      inputTokens,
      outputTokens: billed.outputTokens,
      cost: usage ? messagesCost(usage, this.details.prices) : 0,
      // As chat does: every prompt token at the route's input cost; no usage (a failure) costs 0.
      providerCost: chatProviderCost(
        this.details.providerCost,
        usage ? { promptTokens: inputTokens, completionTokens: billed.outputTokens } : null,
      ),
    });
  }
}

const streamError = (error: AppError) => {
  const { body } = anthropicError(error);
  return { type: 'error', error: body.error };
};
