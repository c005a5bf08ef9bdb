// Anthropic Messages stream events → OpenAI chat.completion.chunk objects, as the bytes arrive.
//   message_start        → the role chunk; its usage holds the prompt tokens
//   content_block_start  → for tool_use, a tool-call chunk with OUR index (0, 1, 2… in order of
//                          appearance), never Anthropic's block index, which counts text blocks too
//   content_block_delta  → text_delta → content; input_json_delta → that tool call's arguments
//   message_delta        → finish_reason; its usage holds the (cumulative) output tokens
//   message_stop         → the usage chunk (choices: []), then the end
//   ping, unknown events → ignored (Anthropic may add event types)
//   error                → a usage chunk with what was seen so far, then the mapped error: the
//                          gateway bills that usage and ends the client's stream with an error chunk.
//                          Before message_delta, Anthropic has not counted the output yet: the usage
//                          is marked OUTPUT_UNCOUNTED, so the gateway bills the prompt as reported and
//                          counts the output text itself (one token per delta would undercount).
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { ChatChunkDelta, ChatCompletionChunk } from '../../domain/chat/types.js';
import { OUTPUT_UNCOUNTED } from '../../domain/chat/usage.js';
import { AppError } from '../../domain/errors.js';
import { anthropicStreamError } from './errors.js';
import { finishReason } from './response.js';
import { mergeUsage, toChatUsage } from './usage.js';
import type { AnthropicUsage, MessageResponse } from './wire.js';

interface StreamEvent {
  type?: string;
  index?: number;
  message?: Partial<MessageResponse>;
  content_block?: { type?: string; id?: string; name?: string; text?: string };
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string | null };
  usage?: AnthropicUsage;
}

export async function* translateStream(
  body: AsyncIterable<Uint8Array>,
  created: number,
): AsyncGenerator<ChatCompletionChunk> {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  const decoder = new TextDecoder();
  let id = '';
  let model = '';
  let usage: AnthropicUsage = {};
  /** Chunks that carried output: the floor of the output tokens when the stream breaks. */
  let outputChunks = 0;
  /** Anthropic block index → our tool-call index. */
  const toolIndex = new Map<number, number>();
  let stopped = false;

  const chunk = (delta: ChatChunkDelta, finish: string | null = null): ChatCompletionChunk => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });
  /** False until an event reported usage: then the gateway's own estimate bills instead of a zero. */
  let sawUsage = false;
  const usageChunk = (): ChatCompletionChunk => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [],
    usage: toChatUsage(usage),
  });
  /** True once message_delta reported the (final, cumulative) output tokens. */
  let outputCounted = false;
  /** What was used up to a break: the prompt as reported; the output too if Anthropic counted it. */
  const usageSoFar = (): ChatCompletionChunk => {
    if (outputCounted) return usageChunk();
    usage = { ...usage, output_tokens: Math.max(usage.output_tokens ?? 0, outputChunks) };
    const chunk = usageChunk();
    (chunk.usage as Record<string, unknown>)[OUTPUT_UNCOUNTED] = true;
    return chunk;
  };

  for await (const bytes of body) {
    parser.feed(decoder.decode(bytes, { stream: true }));
    while (events.length > 0) {
      const message = events.shift()!;
      // After message_stop, keep reading to the end so the connection returns to the pool.
      if (stopped) continue;
      if (message.event === 'error') {
        if (sawUsage) yield usageSoFar();
        throw anthropicStreamError(message.data);
      }
      let event: StreamEvent;
      try {
        event = JSON.parse(message.data) as StreamEvent;
      } catch {
        throw new AppError('upstream_error', 'The upstream provider sent a stream event that is not JSON');
      }
      switch (event.type ?? message.event) {
        case 'message_start':
          id = event.message?.id ?? id;
          model = event.message?.model ?? model;
          usage = mergeUsage(usage, event.message?.usage);
          sawUsage ||= event.message?.usage !== undefined;
          yield chunk({ role: 'assistant', content: '' });
          break;
        case 'content_block_start': {
          const block = event.content_block;
          if (block?.type === 'tool_use' && typeof event.index === 'number') {
            const index = toolIndex.size;
            toolIndex.set(event.index, index);
            outputChunks++;
            yield chunk({
              tool_calls: [
                { index, id: block.id, type: 'function', function: { name: block.name, arguments: '' } },
              ],
            });
          } else if (block?.type === 'text' && block.text) {
            outputChunks++;
            yield chunk({ content: block.text });
          }
          break;
        }
        case 'content_block_delta': {
          const delta = event.delta;
          if (delta?.type === 'text_delta' && delta.text) {
            outputChunks++;
            yield chunk({ content: delta.text });
          } else if (delta?.type === 'input_json_delta' && delta.partial_json) {
            const index = toolIndex.get(event.index ?? -1);
            if (index === undefined) break;
            outputChunks++;
            yield chunk({ tool_calls: [{ index, function: { arguments: delta.partial_json } }] });
          }
          // thinking, signature and citation deltas have no chat.completion.chunk field
          break;
        }
        case 'message_delta':
          usage = mergeUsage(usage, event.usage);
          sawUsage ||= event.usage !== undefined;
          outputCounted ||= typeof event.usage?.output_tokens === 'number';
          if (event.delta && 'stop_reason' in event.delta)
            yield chunk({}, finishReason(event.delta.stop_reason));
          break;
        case 'message_stop':
          if (sawUsage) yield usageChunk();
          stopped = true;
          break;
        case 'error':
          if (sawUsage) yield usageSoFar();
          throw anthropicStreamError(message.data);
        default:
          // ping, content_block_stop, and event types added later
          break;
      }
    }
  }
  if (!stopped) {
    if (sawUsage) yield usageSoFar();
    throw new AppError('upstream_error', 'The upstream provider ended the stream before it was complete');
  }
}
