// Turns a chat-completions chunk stream into the Responses API's event stream:
//   response.created, response.in_progress,
//   per item: response.output_item.added, then for a message response.content_part.added and
//   response.output_text.delta (response.refusal.delta), for a tool call
//   response.function_call_arguments.delta,
//   at the end, per item in output order: …text.done / …arguments.done, response.content_part.done,
//   response.output_item.done; then response.completed (or response.incomplete) with the usage.
// Items are closed only at the end: chat deltas of parallel tool calls may interleave, and no delta
// may follow an item's done event. Every event carries a sequence_number counted from 0.
import type { ChatCompletionChunk, ChatUsage } from '../../chat/types.js';
import { responseErrorCode } from './error-code.js';
import type { ResponseEcho } from './request.js';
import {
  type FunctionCallItem,
  functionCallItemId,
  type MessageItem,
  messageItemId,
  type OutputItem,
  outputText,
  type ResponseIdentity,
  type ResponseState,
  responseObject,
  responsesUsage,
  statusOf,
} from './response.js';

export interface ResponsesEvent {
  type: string;
  sequence_number: number;
  [field: string]: unknown;
}

export interface StreamFailure {
  message: string;
  type?: string;
  code?: string | null;
  param?: string | null;
}

export class ResponsesStreamTranslator {
  private sequence = 0;
  private readonly output: OutputItem[] = [];
  private message: MessageItem | null = null;
  /** Function-call items by the chat delta's tool-call index. */
  private readonly calls = new Map<number, FunctionCallItem>();
  private finishReason: string | null = null;
  private usage: ChatUsage | null = null;

  constructor(
    private readonly identity: ResponseIdentity,
    private readonly echo: ResponseEcho,
  ) {}

  start(): ResponsesEvent[] {
    const response = this.snapshot({ status: 'in_progress' });
    return [this.event('response.created', { response }), this.event('response.in_progress', { response })];
  }

  chunk(chunk: ChatCompletionChunk): ResponsesEvent[] {
    const events: ResponsesEvent[] = [];
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) return events;
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string' && delta.content.length > 0)
      events.push(...this.messageDelta('output_text', delta.content));
    if (typeof delta.refusal === 'string' && delta.refusal.length > 0)
      events.push(...this.messageDelta('refusal', delta.refusal));
    for (const call of delta.tool_calls ?? []) {
      let item = this.calls.get(call.index);
      if (!item) {
        item = {
          type: 'function_call',
          id: functionCallItemId(this.identity.id, this.calls.size),
          call_id: call.id ?? `call_${this.calls.size}`,
          name: call.function?.name ?? '',
          arguments: '',
          status: 'in_progress',
        };
        this.calls.set(call.index, item);
        this.output.push(item);
        events.push(
          this.event('response.output_item.added', { output_index: this.indexOf(item), item: { ...item } }),
        );
      }
      const fragment = call.function?.arguments;
      if (typeof fragment === 'string' && fragment.length > 0) {
        item.arguments += fragment;
        events.push(
          this.event('response.function_call_arguments.delta', {
            item_id: item.id,
            output_index: this.indexOf(item),
            delta: fragment,
          }),
        );
      }
    }
    return events;
  }

  /** The upstream finished: close every item, then response.completed / response.incomplete. */
  complete(completedAt: number): ResponsesEvent[] {
    const { status, incompleteReason } = statusOf(this.finishReason);
    const itemStatus = status === 'completed' ? 'completed' : 'incomplete';
    const events: ResponsesEvent[] = [];
    for (const item of this.output) {
      const output_index = this.indexOf(item);
      if (item.type === 'message') {
        item.content.forEach((part, content_index) => {
          const at = { item_id: item.id, output_index, content_index };
          events.push(
            part.type === 'output_text'
              ? this.event('response.output_text.done', { ...at, text: part.text, logprobs: [] })
              : this.event('response.refusal.done', { ...at, refusal: part.refusal }),
          );
          events.push(this.event('response.content_part.done', { ...at, part: { ...part } }));
        });
      } else {
        events.push(
          this.event('response.function_call_arguments.done', {
            item_id: item.id,
            output_index,
            name: item.name,
            arguments: item.arguments,
          }),
        );
      }
      item.status = itemStatus;
      events.push(this.event('response.output_item.done', { output_index, item: structuredClone(item) }));
    }
    const response = this.snapshot({
      status,
      incompleteReason,
      usage: responsesUsage(this.usage, null),
      completedAt,
    });
    events.push(
      this.event(status === 'completed' ? 'response.completed' : 'response.incomplete', { response }),
    );
    return events;
  }

  /**
   * The upstream broke after the stream started: an `error` event, then response.failed. The error
   * event carries gengate's own code, both flat (OpenAI's documented shape) and nested under `error`
   * (so the openai SDK raises it as an APIError, as it does for chat streams); response.failed
   * carries the nearest value of OpenAI's closed `ResponseErrorCode` enum.
   */
  fail(failure: StreamFailure): ResponsesEvent[] {
    const code = failure.code ?? 'upstream_error';
    const error = {
      type: failure.type ?? 'api_error',
      code,
      message: failure.message,
      param: failure.param ?? null,
    };
    return [
      this.event('error', { code, message: failure.message, param: error.param, error }),
      this.event('response.failed', {
        response: this.snapshot({
          status: 'failed',
          error: { code: responseErrorCode(failure), message: failure.message },
          usage: responsesUsage(this.usage, null),
        }),
      }),
    ];
  }

  private messageDelta(kind: 'output_text' | 'refusal', text: string): ResponsesEvent[] {
    const events: ResponsesEvent[] = [];
    if (!this.message) {
      this.message = {
        type: 'message',
        id: messageItemId(this.identity.id),
        status: 'in_progress',
        role: 'assistant',
        content: [],
      };
      this.output.push(this.message);
      events.push(
        this.event('response.output_item.added', {
          output_index: this.indexOf(this.message),
          item: structuredClone(this.message),
        }),
      );
    }
    const message = this.message;
    const output_index = this.indexOf(message);
    let part = message.content.at(-1);
    if (part?.type !== kind) {
      part = kind === 'output_text' ? outputText('') : { type: 'refusal', refusal: '' };
      message.content.push(part);
      events.push(
        this.event('response.content_part.added', {
          item_id: message.id,
          output_index,
          content_index: message.content.length - 1,
          part: { ...part },
        }),
      );
    }
    const at = { item_id: message.id, output_index, content_index: message.content.length - 1 };
    if (part.type === 'output_text') {
      part.text += text;
      events.push(this.event('response.output_text.delta', { ...at, delta: text, logprobs: [] }));
    } else {
      part.refusal += text;
      events.push(this.event('response.refusal.delta', { ...at, delta: text }));
    }
    return events;
  }

  private indexOf(item: OutputItem): number {
    return this.output.indexOf(item);
  }

  private snapshot(state: Omit<ResponseState, 'output'>): Record<string, unknown> {
    return responseObject(this.identity, this.echo, { ...state, output: structuredClone(this.output) });
  }

  private event(type: string, fields: Record<string, unknown>): ResponsesEvent {
    return { type, sequence_number: this.sequence++, ...fields };
  }
}
