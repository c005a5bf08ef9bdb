// The chat adapter interface: one upstream API that answers OpenAI-shaped chat completions.
// Adapters throw AppError ('upstream_error' 502, 'upstream_timeout' 504, 'upstream_rejected_request'
// 400) for upstream failures; a cancellation surfaces as its reason (an AbortError).
import type { ChatCompletion, ChatCompletionChunk } from '../domain/chat/types.js';
import type { Cancellation } from './cancellation.js';

export interface UpstreamChatCall {
  /**
   * The body to send: the client's fields as given, with `model` set to the upstream model, the max
   * tokens lowered when the balance required it, and (when streaming) stream_options.include_usage
   * forced on so the gateway can bill from the upstream's own usage.
   */
  body: Record<string, unknown>;
  /** Cancelled when the client disconnects: the adapter must stop the upstream request. */
  cancellation: Cancellation;
}

export interface ChatProvider {
  /** A label for logs and error messages (the PROVIDERS_FILE provider name, or "simulator"). */
  readonly name: string;
  /** A non-streaming completion, as the upstream answered it. */
  complete(call: UpstreamChatCall): Promise<ChatCompletion>;
  /**
   * A streaming completion. Resolves once the upstream has accepted the request (an HTTP error
   * rejects here); iteration yields each chunk as it arrives and ends at the upstream's [DONE].
   */
  stream(call: UpstreamChatCall): Promise<AsyncIterable<ChatCompletionChunk>>;
  /** Releases connections. */
  close(): Promise<void>;
  /**
   * Native Anthropic routes only: POST /v1/messages (or /v1/messages/count_tokens) with the client's
   * body as given, for the Messages API pass-through. Resolves with the 2xx answer's bytes; a non-2xx
   * answer rejects with the mapped AppError, like complete() and stream().
   */
  passThroughMessages?(call: MessagesUpstreamCall): Promise<MessagesUpstreamAnswer>;
}

export interface MessagesUpstreamCall {
  endpoint: 'messages' | 'count_tokens';
  /** The JSON body to send, already serialized. */
  body: string | Buffer;
  stream: boolean;
  /** The client's anthropic-version and anthropic-beta headers, when it sent them. */
  version?: string;
  beta?: string;
  cancellation: Cancellation;
}

export interface MessagesUpstreamAnswer {
  /** The body as it arrives; iterating it to the end (or discard()) frees the connection. */
  chunks: AsyncIterable<Uint8Array>;
  /** The whole body (non-streaming answers). */
  text(): Promise<string>;
  /** Stops reading: the upstream request is dropped. */
  discard(): void;
}
