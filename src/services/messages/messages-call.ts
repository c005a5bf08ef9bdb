// What the Messages route runs once a request is held: a whole answer, or a stream of Anthropic
// events written as they come. Two implementations: the pass-through (a Claude model on a native
// Anthropic route) and the translation over a chat call (every other text model).
import type { Cancellation } from '../../providers/cancellation.js';

/** Where the events go: the HTTP layer implements it over the raw response. */
export interface MessagesStreamSink {
  /** Called once, when the first bytes are ready: commit the 200 text/event-stream response. */
  start(): void;
  /** Writes SSE text as is and flushes it; resolves false once the client is gone. */
  write(text: string): Promise<boolean>;
  end(): void;
}

export interface MessagesCall {
  /** The usage row id. */
  readonly id: string;
  readonly stream: boolean;
  /** How long the upstream took, from the request sent to its answer's headers (ms), once they came. */
  readonly upstreamMs?: number;
  /** A non-streaming answer (the Message object); the hold is settled before it is returned. */
  complete(client: Cancellation): Promise<Record<string, unknown>>;
  /**
   * A streaming answer. Throws (hold released) when the upstream fails before the stream starts,
   * so the client gets a plain HTTP error; afterwards failures become an `error` event.
   */
  streamTo(sink: MessagesStreamSink, client: Cancellation): Promise<void>;
}

/** One SSE event in Anthropic's framing: the event line, then the data line. */
export const sseEvent = (event: { type: string }) =>
  `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
