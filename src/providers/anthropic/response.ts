// An Anthropic message → an OpenAI chat.completion (one choice), and the stop-reason table both
// the answer and the stream use.
import type { ChatCompletion, ChatToolCall } from '../../domain/chat/types.js';
import { toChatUsage } from './usage.js';
import type { MessageResponse, TextBlock, ToolUseBlock } from './wire.js';

/** end_turn, stop_sequence and pause_turn → stop; max_tokens → length; tool_use → tool_calls; refusal → content_filter. */
export function finishReason(stopReason: string | null | undefined): string {
  switch (stopReason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      return 'stop';
  }
}

export function toChatCompletion(message: MessageResponse, created: number): ChatCompletion {
  const text: string[] = [];
  const toolCalls: ChatToolCall[] = [];
  for (const block of message.content) {
    if (block.type === 'text') text.push((block as TextBlock).text);
    else if (block.type === 'tool_use') {
      const use = block as ToolUseBlock;
      toolCalls.push({
        id: use.id,
        type: 'function',
        function: { name: use.name, arguments: JSON.stringify(use.input ?? {}) },
      });
    }
    // Thinking and server-tool blocks have no place in a chat.completion message.
  }
  return {
    id: message.id,
    object: 'chat.completion',
    created,
    model: message.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text.length > 0 ? text.join('') : null,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: finishReason(message.stop_reason),
        logprobs: null,
      },
    ],
    // Without usage (a proxy that drops it) the gateway estimates instead of billing zero.
    ...(message.usage ? { usage: toChatUsage(message.usage) } : {}),
  };
}
