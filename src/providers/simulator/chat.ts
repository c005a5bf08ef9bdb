// The simulator's chat adapter: answers like an OpenAI upstream (same objects, same stream chunks,
// usage on request) from the deterministic script of chat-script.ts, scripted by [sim:...]
// directives in the last user message. Fast by default: a stream only yields to the event loop
// between chunks, so it is observable without sleeping.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep, setImmediate as yieldToLoop } from 'node:timers/promises';
import { estimatePromptTokens, measurePrompt } from '../../domain/chat/prompt-size.js';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatFunctionTool,
  ChatMessage,
  ChatUsage,
} from '../../domain/chat/types.js';
import { AppError } from '../../domain/errors.js';
import { ownEntry } from '../../domain/own-entry.js';
import type { ChatProvider, UpstreamChatCall } from '../chat-provider.js';
import {
  type ChatDirectives,
  type ChatScript,
  lastUserMessage,
  parseDirectives,
  scriptReply,
  scriptTokens,
  textOf,
} from './chat-script.js';

const FAILURES: Record<string, () => AppError> = {
  reject: () => new AppError('upstream_error', 'Provider rejected prompt: contains restricted content'),
  billing: () => new AppError('upstream_error', 'Provider billing error'),
  overload: () => new AppError('upstream_error', 'Service temporarily unavailable (code E-294, high load)'),
  stream: () => new AppError('upstream_error', 'Service temporarily unavailable (code E-294, high load)'),
  params: () =>
    new AppError('upstream_rejected_request', 'Parameter validation failed: unexpected parameter'),
};

interface Prepared {
  model: string;
  directives: ChatDirectives;
  script: ChatScript;
  usage: ChatUsage;
  includeUsage: boolean;
}

export class SimulatorChatProvider implements ChatProvider {
  readonly name = 'simulator';

  constructor(private readonly options: { timeoutMs: number; now?: () => number } = { timeoutMs: 600_000 }) {}

  private created(): number {
    return Math.floor((this.options.now?.() ?? Date.now()) / 1000);
  }

  private prepare(body: Record<string, unknown>): Prepared {
    const messages = body.messages as ChatMessage[];
    const tools = (Array.isArray(body.tools) ? body.tools : []).filter(
      (t: { type?: string }) => t?.type === 'function',
    ) as ChatFunctionTool[];
    const maxTokens = (body.max_completion_tokens ?? body.max_tokens ?? null) as number | null;
    const directives = parseDirectives(textOf(lastUserMessage(messages)?.content));
    const model = String(body.model);
    const script = scriptReply(
      { model, messages, tools, toolChoice: body.tool_choice, maxTokens },
      directives,
    );
    const promptTokens = estimatePromptTokens(measurePrompt({ messages, body }));
    const completionTokens = scriptTokens(script);
    const options = body.stream_options as { include_usage?: boolean } | undefined;
    return {
      model,
      directives,
      script,
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
      includeUsage: options?.include_usage === true,
    };
  }

  /** The delay and the scripted failures that happen before any output. */
  private async start(prepared: Prepared, signal: AbortSignal, streaming: boolean): Promise<void> {
    const { directives } = prepared;
    if (directives.fail === 'timeout') {
      await sleep(this.options.timeoutMs, undefined, { signal });
      throw new AppError('upstream_timeout', 'Timeout while waiting for provider response');
    }
    if (directives.delayMs > 0) await sleep(directives.delayMs, undefined, { signal });
    signal.throwIfAborted();
    if (directives.fail && !(streaming && directives.fail === 'stream')) {
      throw (
        ownEntry(FAILURES, directives.fail) ??
        (() => new AppError('upstream_error', `Simulated failure: ${directives.fail}`))
      )();
    }
  }

  async complete(call: UpstreamChatCall): Promise<ChatCompletion> {
    const prepared = this.prepare(call.body);
    await this.start(prepared, call.cancellation.signal, false);
    const { script } = prepared;
    const message: ChatCompletion['choices'][number]['message'] =
      script.kind === 'text'
        ? { role: 'assistant', content: script.tokens.join(''), refusal: null }
        : {
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: [
              {
                id: script.id,
                type: 'function',
                function: { name: script.name, arguments: script.fragments.join('') },
              },
            ],
          };
    return {
      id: completionId(),
      object: 'chat.completion',
      created: this.created(),
      model: prepared.model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: script.finishReason }],
      usage: prepared.usage,
      system_fingerprint: 'gengate-simulator',
    };
  }

  async stream(call: UpstreamChatCall): Promise<AsyncIterable<ChatCompletionChunk>> {
    const prepared = this.prepare(call.body);
    await this.start(prepared, call.cancellation.signal, true);
    return this.chunks(prepared, call.cancellation.signal);
  }

  private async *chunks(prepared: Prepared, signal: AbortSignal): AsyncGenerator<ChatCompletionChunk> {
    const { script, directives } = prepared;
    const id = completionId();
    const created = this.created();
    const chunk = (
      delta: ChatCompletionChunk['choices'][number]['delta'],
      finish: string | null = null,
    ): ChatCompletionChunk => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model: prepared.model,
      system_fingerprint: 'gengate-simulator',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(prepared.includeUsage ? { usage: null } : {}),
    });
    const pace = async () => {
      if (directives.paceMs > 0) await sleep(directives.paceMs, undefined, { signal });
      else await yieldToLoop();
      signal.throwIfAborted();
    };
    // With [sim:fail=stream] the stream breaks after half of its tokens.
    const total = scriptTokens(script);
    const breakAfter = directives.fail === 'stream' ? Math.floor(total / 2) : Number.POSITIVE_INFINITY;
    let sent = 0;
    const sendToken = async (delta: ChatCompletionChunk['choices'][number]['delta']) => {
      if (sent >= breakAfter) throw FAILURES.stream();
      await pace();
      sent++;
      return chunk(delta);
    };

    if (script.kind === 'text') {
      yield chunk({ role: 'assistant', content: '', refusal: null });
      for (const token of script.tokens) yield await sendToken({ content: token });
    } else {
      yield await sendToken({
        role: 'assistant',
        content: null,
        tool_calls: [
          { index: 0, id: script.id, type: 'function', function: { name: script.name, arguments: '' } },
        ],
      });
      for (const fragment of script.fragments)
        yield await sendToken({ tool_calls: [{ index: 0, function: { arguments: fragment } }] });
    }
    if (sent >= breakAfter && directives.fail === 'stream') throw FAILURES.stream();
    await pace();
    yield chunk({}, script.finishReason);
    if (prepared.includeUsage) yield { ...chunk({}), choices: [], usage: prepared.usage };
  }

  async close(): Promise<void> {}
}

function completionId(): string {
  return `chatcmpl-${randomBytes(12).toString('hex')}`;
}
