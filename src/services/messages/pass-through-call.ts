// A held Messages request on a native Anthropic route: the upstream's answer reaches the client as
// it was sent, with only `model` rewritten to the public id (in the body, or in message_start).
// Stream events are relayed in order without being parsed, except the few billing reads:
// message_start (model, and the prompt's usage) and message_delta (the final usage); content
// deltas are only counted, to bill a stream that is cut before its usage arrives.
//   completed  → the reported usage at the model's prices (cache writes/reads, server-tool uses);
//   failed     → upstream error: nothing billed before message_start, else what was delivered;
//   cancelled  → client gone: the upstream request is dropped, and what was delivered is billed.
import {
  EMPTY_MESSAGES_USAGE,
  type MessagesPrices,
  type MessagesUsage,
  messagesCost,
} from '../../domain/billing/messages-cost.js';
import { chatProviderCost, type RouteCost } from '../../domain/billing/provider-cost.js';
import { AppError } from '../../domain/errors.js';
import { anthropicError } from '../../domain/messages/errors.js';
import { mergeMessagesUsage, readMessagesUsage } from '../../domain/messages/usage.js';
import type { Cancellation } from '../../providers/cancellation.js';
import type { MessagesUpstreamAnswer } from '../../providers/chat-provider.js';
import type { UsageStatus } from '../../storage/repositories/usage.js';
import type { ChatService, HeldChatRequest } from '../chat/chat-service.js';
import { follow, type MessagesCall, type MessagesStreamSink, sseEvent } from './messages-call.js';

export interface PassThroughUpstream {
  cancellation: Cancellation;
  answer: Promise<MessagesUpstreamAnswer>;
  /** performance.now() when the request went to the upstream, and when its answer's headers came. */
  sentAt: number;
  answeredAt?: number;
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
    const { sentAt, answeredAt } = this.held.call;
    return answeredAt === undefined ? undefined : answeredAt - sentAt;
  }

  async complete(client: Cancellation): Promise<Record<string, unknown>> {
    const upstream = this.held.call;
    const unfollow = follow(client, upstream.cancellation);
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
      unfollow();
    }
    if (client.aborted) {
      await this.settle('cancelled', null);
      throw new AppError('upstream_error', 'The client disconnected before the answer was ready');
    }
    // Anthropic always reports usage; an answer without it is billed from the gateway's estimate
    // (the prompt's, and 4 bytes a token of the content), as chat does.
    const usage = readMessagesUsage(message.usage) ?? {
      ...EMPTY_MESSAGES_USAGE,
      inputTokens: this.details.promptEstimate,
      outputTokens: Math.ceil(Buffer.byteLength(JSON.stringify(message.content ?? [])) / 4),
    };
    await this.settle('completed', usage);
    message.model = this.held.model.id;
    return message;
  }

  async streamTo(sink: MessagesStreamSink, client: Cancellation): Promise<void> {
    const upstream = this.held.call;
    const unfollow = follow(client, upstream.cancellation);
    try {
      await this.relay(sink, upstream, client);
    } finally {
      unfollow();
    }
  }

  private async relay(sink: MessagesStreamSink, upstream: PassThroughUpstream, client: Cancellation) {
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
        if (out.length > 0 && !(await sink.write(out))) {
          status = 'cancelled';
          break;
        }
      }
      if (status === 'completed') {
        // A stream that ended without message_stop broke somewhere upstream.
        if (reader.failed || !reader.stopped) status = 'failed';
        if (!reader.failed && !reader.stopped)
          await sink.write(
            sseEvent(streamError(new AppError('upstream_error', 'The upstream stream ended early'))),
          );
      }
    } catch {
      if (client.aborted) status = 'cancelled';
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
      await this.settle(status, reader.usage(status === 'completed'));
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

const MESSAGE_START = 'event: message_start';
const MESSAGE_DELTA = 'event: message_delta';
const CONTENT_DELTA = 'event: content_block_delta';
const MESSAGE_STOP = 'event: message_stop';
const ERROR = 'event: error';

/**
 * Splits the upstream's bytes into SSE events and hands them back ready to write: every event as
 * received except message_start, whose message.model becomes the public id. Keeps the usage.
 */
class EventReader {
  private readonly decoder = new TextDecoder();
  private pending = '';
  private seen: Record<string, unknown> | null = null;
  private final = false;
  private deltas = 0;
  stopped = false;
  failed = false;

  constructor(private readonly publicModel: string) {}

  push(bytes: Uint8Array): string {
    this.pending += this.decoder.decode(bytes, { stream: true });
    let out = '';
    let start = 0;
    for (;;) {
      const end = this.pending.indexOf('\n\n', start);
      if (end < 0) break;
      out += this.event(this.pending.slice(start, end + 2));
      start = end + 2;
    }
    this.pending = start === 0 ? this.pending : this.pending.slice(start);
    return out;
  }

  private event(text: string): string {
    if (text.startsWith(CONTENT_DELTA)) {
      this.deltas++;
      return text;
    }
    if (text.startsWith(MESSAGE_START)) {
      const data = dataOf(text);
      const message = data?.message as Record<string, unknown> | undefined;
      if (!message) return text;
      this.seen = (message.usage as Record<string, unknown>) ?? {};
      message.model = this.publicModel;
      return `${MESSAGE_START}\ndata: ${JSON.stringify(data)}\n\n`;
    }
    if (text.startsWith(MESSAGE_DELTA)) {
      const usage = dataOf(text)?.usage;
      if (usage && typeof usage === 'object') {
        this.seen = { ...(this.seen ?? {}), ...(usage as Record<string, unknown>) };
        this.final = true;
      }
      return text;
    }
    if (text.startsWith(MESSAGE_STOP)) this.stopped = true;
    else if (text.startsWith(ERROR)) this.failed = true;
    return text;
  }

  /**
   * The usage to bill: the last reported; when the stream was cut before message_delta, the
   * output is at least one token per content delta delivered. Null when nothing was reported.
   */
  usage(complete: boolean): MessagesUsage | null {
    if (!this.seen) return null;
    const usage = readMessagesUsage(this.seen) ?? EMPTY_MESSAGES_USAGE;
    if (complete && this.final) return usage;
    return mergeMessagesUsage(usage, { outputTokens: Math.max(usage.outputTokens, this.deltas) });
  }
}

function dataOf(text: string): Record<string, unknown> | null {
  const at = text.indexOf('\ndata:');
  if (at < 0) return null;
  const end = text.indexOf('\n', at + 6);
  try {
    return JSON.parse(text.slice(at + 6, end < 0 ? undefined : end)) as Record<string, unknown>;
  } catch {
    return null;
  }
}
