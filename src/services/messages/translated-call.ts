// A Messages request served by a chat upstream: the chat call (ChatService: same checks, hold,
// upstream call and settlement as POST /v1/chat/completions) with its answer presented as a
// Message, or its chunks as Messages stream events.
import { AppError, ERRORS, type ErrorCode } from '../../domain/errors.js';
import { anthropicError } from '../../domain/messages/errors.js';
import {
  completionToMessage,
  type MessageIdentity,
  MessagesStreamTranslator,
  messageIdOf,
} from '../../domain/messages/from-chat.js';
import type { Cancellation } from '../../providers/cancellation.js';
import type { ChatCall, ChatStreamSink } from '../chat/chat-call.js';
import { type MessagesCall, type MessagesStreamSink, sseEvent } from './messages-call.js';

export class TranslatedCall implements MessagesCall {
  private readonly identity: MessageIdentity;

  constructor(private readonly call: ChatCall) {
    this.identity = { id: messageIdOf(call.id), model: call.init.publicModel };
  }

  get id(): string {
    return this.call.id;
  }

  get stream(): boolean {
    return this.call.stream;
  }

  get upstreamMs(): number | undefined {
    return this.call.upstreamMs;
  }

  async complete(client: Cancellation): Promise<Record<string, unknown>> {
    const completion = await this.call.complete(client);
    const billed = (await this.call.settlement)?.usage ?? null;
    return completionToMessage(completion, this.identity, billed);
  }

  streamTo(sink: MessagesStreamSink, client: Cancellation): Promise<void> {
    return this.call.streamTo(chunkSink(sink, new MessagesStreamTranslator(this.identity)), client);
  }
}

/** The chat call writes chunks (JSON), then `[DONE]`, or an error body; these become events. */
function chunkSink(sink: MessagesStreamSink, translator: MessagesStreamTranslator): ChatStreamSink {
  return {
    start: () => sink.start(),
    send(data) {
      let events: { type: string }[];
      if (data === '[DONE]') events = translator.complete();
      else {
        const payload = JSON.parse(data) as Record<string, unknown>;
        events =
          'choices' in payload
            ? translator.chunk(payload as never)
            : translator.fail(anthropicError(chatFailure(payload.error)).body.error);
      }
      if (events.length === 0) return Promise.resolve(true);
      return sink.write(events.map(sseEvent).join(''));
    },
    end: () => sink.end(),
  };
}

/** The chat error body's code back to the AppError it came from. */
function chatFailure(error: unknown): AppError {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  const known = code && Object.hasOwn(ERRORS, code) ? (code as ErrorCode) : 'upstream_error';
  return new AppError(known, message);
}
