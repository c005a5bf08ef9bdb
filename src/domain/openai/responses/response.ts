// Builds Responses API objects (the `response` object, its output items and usage) from the chat
// completion the upstream answered. Shared by the JSON answer and the stream's terminal events.
import type { ChatCompletion, ChatUsage } from '../../chat/types.js';
import type { TokenUsage } from '../../chat/usage.js';
import type { ResponseEcho } from './request.js';

export interface ResponseIdentity {
  /** `resp_…`. */
  id: string;
  /** Unix seconds. */
  createdAt: number;
  /** The public model id the client asked for. */
  model: string;
}

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export type OutputTextPart = { type: 'output_text'; text: string; annotations: []; logprobs: [] };
export type RefusalPart = { type: 'refusal'; refusal: string };
export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

export interface MessageItem {
  type: 'message';
  id: string;
  status: ItemStatus;
  role: 'assistant';
  content: (OutputTextPart | RefusalPart)[];
}

export interface FunctionCallItem {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: ItemStatus;
}

export type OutputItem = MessageItem | FunctionCallItem;

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

export interface ResponseState {
  status: ResponseStatus;
  output: OutputItem[];
  usage?: ResponsesUsage | null;
  incompleteReason?: string | null;
  error?: { code: string; message: string } | null;
  /** Unix seconds, once the response is completed or incomplete. */
  completedAt?: number | null;
}

/** The usage id `chat_<uuid>` of the request becomes `resp_<uuid>`, so a response names its usage record. */
export function responseIdOf(usageId: string): string {
  return `resp_${usageId.replace(/^chat_/, '')}`;
}

export const messageItemId = (responseId: string) => `msg_${responseId.replace(/^resp_/, '')}`;
export const functionCallItemId = (responseId: string, index: number) =>
  `fc_${responseId.replace(/^resp_/, '')}_${index}`;

/** The chat finish reason as a Responses status: a cut answer is `incomplete`, with the reason. */
export function statusOf(finishReason: string | null | undefined): {
  status: 'completed' | 'incomplete';
  incompleteReason: string | null;
} {
  if (finishReason === 'length') return { status: 'incomplete', incompleteReason: 'max_output_tokens' };
  if (finishReason === 'content_filter') return { status: 'incomplete', incompleteReason: 'content_filter' };
  return { status: 'completed', incompleteReason: null };
}

/**
 * The upstream's usage (with its cache and reasoning details), else the usage that was billed. Cache
 * reads and writes are always reported (0 when the upstream reported none): OpenAI's ResponseUsage
 * requires both.
 */
export function responsesUsage(
  upstream: ChatUsage | null | undefined,
  billed: TokenUsage | null,
): ResponsesUsage | null {
  const input = upstream?.prompt_tokens ?? billed?.promptTokens;
  const output = upstream?.completion_tokens ?? billed?.completionTokens;
  if (typeof input !== 'number' || typeof output !== 'number') return null;
  const details = (field: string, name: string): number => {
    const value = (upstream?.[field] as Record<string, unknown> | undefined)?.[name];
    return typeof value === 'number' ? value : 0;
  };
  return {
    input_tokens: input,
    input_tokens_details: {
      cached_tokens: details('prompt_tokens_details', 'cached_tokens'),
      cache_write_tokens: details('prompt_tokens_details', 'cache_write_tokens'),
    },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: details('completion_tokens_details', 'reasoning_tokens') },
    total_tokens: input + output,
  };
}

export const outputText = (text: string): OutputTextPart => ({
  type: 'output_text',
  text,
  annotations: [],
  logprobs: [],
});

/** The `response` object in a given state; gengate stores nothing, so `store` is always false. */
export function responseObject(
  identity: ResponseIdentity,
  echo: ResponseEcho,
  state: ResponseState,
): Record<string, unknown> {
  return {
    id: identity.id,
    object: 'response',
    created_at: identity.createdAt,
    status: state.status,
    background: false,
    completed_at: state.completedAt ?? null,
    error: state.error ?? null,
    incomplete_details: state.incompleteReason ? { reason: state.incompleteReason } : null,
    instructions: echo.instructions,
    max_output_tokens: echo.max_output_tokens,
    max_tool_calls: null,
    model: identity.model,
    output: state.output,
    parallel_tool_calls: echo.parallel_tool_calls,
    previous_response_id: null,
    reasoning: echo.reasoning,
    service_tier: 'default',
    store: false,
    temperature: echo.temperature ?? 1,
    text: echo.text,
    tool_choice: echo.tool_choice,
    tools: echo.tools,
    top_logprobs: 0,
    top_p: echo.top_p ?? 1,
    truncation: 'disabled',
    usage: state.usage ?? null,
    ...(echo.user !== undefined ? { user: echo.user } : {}),
    metadata: echo.metadata,
  };
}

/** A non-streaming chat completion as a Response: its text as one message item, then one function_call item per tool call. */
export function completionToResponse(
  completion: ChatCompletion,
  identity: ResponseIdentity,
  echo: ResponseEcho,
  billed: TokenUsage | null,
  completedAt: number,
): Record<string, unknown> {
  const choice = completion.choices?.[0];
  const { status, incompleteReason } = statusOf(choice?.finish_reason);
  const itemStatus: ItemStatus = status === 'completed' ? 'completed' : 'incomplete';
  const output: OutputItem[] = [];
  const message = choice?.message;
  const parts: MessageItem['content'] = [];
  if (typeof message?.content === 'string' && message.content.length > 0)
    parts.push(outputText(message.content));
  if (typeof message?.refusal === 'string' && message.refusal.length > 0)
    parts.push({ type: 'refusal', refusal: message.refusal });
  if (parts.length > 0) {
    output.push({
      type: 'message',
      id: messageItemId(identity.id),
      status: itemStatus,
      role: 'assistant',
      content: parts,
    });
  }
  (message?.tool_calls ?? []).forEach((call, index) => {
    output.push({
      type: 'function_call',
      id: functionCallItemId(identity.id, index),
      call_id: call.id,
      name: call.function?.name ?? '',
      arguments: call.function?.arguments ?? '',
      status: itemStatus,
    });
  });
  return responseObject(identity, echo, {
    status,
    incompleteReason,
    output,
    usage: responsesUsage(completion.usage, billed),
    completedAt,
  });
}
