// The OpenAI chat-completions wire shapes the gateway reads. Only the fields the gateway looks at are
// typed; the other allow-listed request fields (chat-fields.ts) and an upstream answer's pass through untouched.

export interface ChatTextPart {
  type: 'text';
  text: string;
}

export interface ChatImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: string };
}

/** Other part types (file, refusal…) pass through to OpenAI-type upstreams; input_audio is refused (request.ts). */
export interface ChatOtherPart {
  type: string;
  [field: string]: unknown;
}

export type ChatContentPart = ChatTextPart | ChatImagePart | ChatOtherPart;

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: string;
  content?: string | ChatContentPart[] | null;
  name?: string;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
  [field: string]: unknown;
}

export interface ChatFunctionTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens?: number;
  [field: string]: unknown;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: number;
    message: {
      role: 'assistant';
      content: string | null;
      refusal?: string | null;
      tool_calls?: ChatToolCall[];
    };
    finish_reason: string | null;
    logprobs?: unknown;
  }[];
  usage?: ChatUsage | null;
  [field: string]: unknown;
}

export interface ChatChunkDelta {
  role?: 'assistant';
  content?: string | null;
  refusal?: string | null;
  reasoning_content?: string | null;
  tool_calls?: {
    index: number;
    id?: string;
    type?: 'function';
    function?: { name?: string; arguments?: string };
  }[];
  [field: string]: unknown;
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: { index: number; delta: ChatChunkDelta; finish_reason: string | null; logprobs?: unknown }[];
  usage?: ChatUsage | null;
  [field: string]: unknown;
}
