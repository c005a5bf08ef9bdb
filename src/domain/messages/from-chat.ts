// A chat completion → the Messages API answer, whole or as stream events:
//   content → a text block; tool_calls → tool_use blocks (arguments parsed back into input)
//   finish_reason stop / length / tool_calls / content_filter → end_turn / max_tokens / tool_use / refusal
//   usage → input_tokens / output_tokens (the billed usage; no cache tokens on this path)
// The stream: message_start, then per block content_block_start, its deltas (text_delta,
// input_json_delta) and content_block_stop, then message_delta (stop reason, usage) and
// message_stop. A failure is an `error` event, as Anthropic ends a stream that breaks.
import type { ChatCompletion, ChatCompletionChunk } from '../chat/types.js';
import type { TokenUsage } from '../chat/usage.js';

export interface MessageIdentity {
  id: string;
  model: string;
}

const STOP_REASONS: Record<string, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
};

export const stopReasonOf = (finish: string | null | undefined): string =>
  (finish && STOP_REASONS[finish]) || 'end_turn';

/** msg_ + the usage row's id: the same id the client can find in its usage. */
export const messageIdOf = (callId: string) => `msg_${callId.replace(/^chat_/, '')}`;

function parseInput(args: string): unknown {
  try {
    const value = JSON.parse(args || '{}');
    return typeof value === 'object' && value !== null ? value : {};
  } catch {
    return {};
  }
}

const usageOf = (usage: TokenUsage | null) => ({
  input_tokens: usage?.promptTokens ?? 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  output_tokens: usage?.completionTokens ?? 0,
});

export function completionToMessage(
  completion: ChatCompletion,
  identity: MessageIdentity,
  billed: TokenUsage | null,
): Record<string, unknown> {
  const choice = completion.choices?.[0];
  const content: Record<string, unknown>[] = [];
  const text = choice?.message?.content;
  if (typeof text === 'string' && text.length > 0) content.push({ type: 'text', text });
  for (const call of choice?.message?.tool_calls ?? [])
    content.push({
      type: 'tool_use',
      id: call.id,
      name: call.function?.name ?? '',
      input: parseInput(call.function?.arguments ?? ''),
    });
  return {
    id: identity.id,
    type: 'message',
    role: 'assistant',
    model: identity.model,
    content,
    stop_reason: stopReasonOf(choice?.finish_reason),
    stop_sequence: null,
    usage: usageOf(billed),
  };
}

export interface MessagesEvent {
  type: string;
  [field: string]: unknown;
}

/** Chat chunks in, Messages events out; one translator per stream. */
export class MessagesStreamTranslator {
  private started = false;
  /** The open content block: its index and kind (a text block, or the tool call of a chat index). */
  private open: { index: number; toolIndex: number | null } | null = null;
  private nextIndex = 0;
  private stopReason = 'end_turn';
  private usage: TokenUsage | null = null;

  constructor(private readonly identity: MessageIdentity) {}

  private start(events: MessagesEvent[]): void {
    if (this.started) return;
    this.started = true;
    events.push({
      type: 'message_start',
      message: {
        id: this.identity.id,
        type: 'message',
        role: 'assistant',
        model: this.identity.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: usageOf(null),
      },
    });
  }

  private close(events: MessagesEvent[]): void {
    if (!this.open) return;
    events.push({ type: 'content_block_stop', index: this.open.index });
    this.open = null;
  }

  private openBlock(
    events: MessagesEvent[],
    toolIndex: number | null,
    block: Record<string, unknown>,
  ): number {
    this.close(events);
    const index = this.nextIndex++;
    this.open = { index, toolIndex };
    events.push({ type: 'content_block_start', index, content_block: block });
    return index;
  }

  chunk(chunk: ChatCompletionChunk): MessagesEvent[] {
    const events: MessagesEvent[] = [];
    this.start(events);
    if (chunk.usage && typeof chunk.usage.prompt_tokens === 'number')
      this.usage = {
        promptTokens: chunk.usage.prompt_tokens,
        completionTokens: chunk.usage.completion_tokens,
      };
    const choice = chunk.choices?.[0];
    if (!choice) return events;
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string' && delta.content.length > 0) {
      const index =
        this.open && this.open.toolIndex === null
          ? this.open.index
          : this.openBlock(events, null, { type: 'text', text: '' });
      events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: delta.content } });
    }
    for (const call of delta.tool_calls ?? []) {
      let index = this.open?.toolIndex === call.index ? this.open.index : -1;
      if (index < 0)
        index = this.openBlock(events, call.index, {
          type: 'tool_use',
          id: call.id ?? `toolu_${this.identity.id}_${call.index}`,
          name: call.function?.name ?? '',
          input: {},
        });
      const partial = call.function?.arguments;
      if (typeof partial === 'string' && partial.length > 0)
        events.push({
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: partial },
        });
    }
    if (choice.finish_reason) this.stopReason = stopReasonOf(choice.finish_reason);
    return events;
  }

  /** The end of a complete stream: the stop reason, and the usage the upstream's chunks reported. */
  complete(): MessagesEvent[] {
    const events: MessagesEvent[] = [];
    this.start(events);
    this.close(events);
    const usage = usageOf(this.usage);
    events.push({
      type: 'message_delta',
      delta: { stop_reason: this.stopReason, stop_sequence: null },
      usage: { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens },
    });
    events.push({ type: 'message_stop' });
    return events;
  }

  /** A failure after the stream started: Anthropic's `error` event. */
  fail(error: { type?: string; message?: string }): MessagesEvent[] {
    const events: MessagesEvent[] = [];
    this.start(events);
    events.push({
      type: 'error',
      error: { type: error.type ?? 'api_error', message: error.message ?? 'The upstream stream failed' },
    });
    return events;
  }
}
