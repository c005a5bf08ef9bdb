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
}
