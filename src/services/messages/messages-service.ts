// The Messages API use case (POST /v1/messages and /v1/messages/count_tokens). Checks, in order:
// the model (404 unknown or internal, 403 not allowed for the key, 400 unpriced), the body (400),
// vision (400), server tools (400 unless the catalog prices them); then one of two paths:
// - a Claude model on a native Anthropic route: the pass-through. The hold covers the prompt bound
//   at the dearest of the input and cache prices, the max tokens at the output price and the
//   allowed server-tool uses (domain/billing/messages-cost.ts), through ChatService's own hold;
// - any other text model: the body translated to chat completions and run by ChatService.open().
import { messagesHoldSizing, messagesPrices } from '../../domain/billing/messages-cost.js';
import { maxCompletionTokensOf } from '../../domain/chat/output-limits.js';
import { estimatePromptTokens, measurePrompt } from '../../domain/chat/prompt-size.js';
import { parseChatRequest } from '../../domain/chat/request.js';
import { AppError } from '../../domain/errors.js';
import type { TopLevelLayout } from '../../domain/json-depth.js';
import { replaceTopLevelModel, replaceTopLevelModelAt } from '../../domain/messages/raw-body.js';
import {
  DEFAULT_SERVER_TOOL_USES,
  type MessagesRequest,
  parseMessagesRequest,
  readMessagesModel,
} from '../../domain/messages/request.js';
import { messagesToChatBody } from '../../domain/messages/to-chat.js';
import { Cancellation } from '../../providers/cancellation.js';
import type { AuthenticatedKey } from '../auth.js';
import type { ChatService, PricedTextModel } from '../chat/chat-service.js';
import { noteAnswer } from '../upstream-timing.js';
import type { MessagesCall } from './messages-call.js';
import { PassThroughCall, type PassThroughUpstream } from './pass-through-call.js';
import { TranslatedCall } from './translated-call.js';

/** The client's anthropic-version and anthropic-beta headers, passed on to an Anthropic upstream. */
export interface AnthropicHeaders {
  version?: string;
  beta?: string;
}

/** The body's bytes, and where its top-level members lie when that was noted as they arrived. */
export interface RawMessagesBody {
  bytes: Buffer;
  layout?: TopLevelLayout;
}

export class MessagesService {
  constructor(private readonly chat: ChatService) {}

  /** Validates, checks access and balance, and holds; the returned call runs the request once. */
  async open(
    key: AuthenticatedKey,
    body: Record<string, unknown>,
    raw: RawMessagesBody,
    headers: AnthropicHeaders,
  ): Promise<MessagesCall> {
    const model = await this.chat.textModel(key, readMessagesModel(body));
    const request = parseMessagesRequest(body, raw.bytes.length);
    if (request.images > 0 && !model.vision)
      throw new AppError('vision_not_supported', `${model.id} does not accept image input`, 'messages');
    const route = this.chat.route(model);
    const provider = route.provider;
    if (!provider.passThroughMessages) {
      const chatBody = messagesToChatBody(body, maxCompletionTokensOf(model.id));
      return new TranslatedCall(await this.chat.open(key, chatBody));
    }
    const pass = provider.passThroughMessages.bind(provider);
    const prices = messagesPrices(model, key.coefficientPpm);
    const sizing = messagesHoldSizing(request.promptTokenBound, serverToolUses(request, model), prices);
    const held = await this.chat.holdFor<PassThroughUpstream>(
      key,
      model,
      {
        promptTokenBound: sizing.promptTokenBound,
        requestedMaxTokens: request.maxTokens,
        modelMaxCompletionTokens: maxCompletionTokensOf(model.id),
        prices: sizing.prices,
      },
      (loweredMax) => {
        const cancellation = new Cancellation();
        const sent = upstreamBody(body, raw, route.upstreamModel, loweredMax);
        const sentAt = performance.now();
        const answer = pass({
          endpoint: 'messages',
          body: sent,
          stream: request.stream,
          ...headers,
          cancellation,
        });
        const upstream: PassThroughUpstream = { cancellation, answer, sentAt };
        // Awaited by the call; until then (or when an early call is aborted) not unhandled.
        noteAnswer(upstream, answer);
        return upstream;
      },
    );
    return new PassThroughCall(this.chat, held, {
      stream: request.stream,
      prices,
      provider: route.providerName ?? provider.name,
      providerCost: route.cost ?? null,
      promptEstimate: request.promptEstimate,
    });
  }

  /**
   * POST /v1/messages/count_tokens: free. Anthropic routes ask Anthropic; the others answer the
   * gateway's own estimate of the translated prompt (4 bytes per token plus framing).
   */
  async countTokens(
    key: AuthenticatedKey,
    body: Record<string, unknown>,
    headers: AnthropicHeaders,
  ): Promise<{ input_tokens: number }> {
    const model = await this.chat.textModel(key, readMessagesModel(body));
    // count_tokens takes no max_tokens: the checks of a request that had one.
    const request = parseMessagesRequest({ ...body, max_tokens: 1 }, 0);
    const route = this.chat.route(model);
    const provider = route.provider;
    if (provider.passThroughMessages) {
      const answer = await provider.passThroughMessages({
        endpoint: 'count_tokens',
        body: JSON.stringify({ ...body, model: route.upstreamModel }),
        stream: false,
        ...headers,
        cancellation: new Cancellation(),
      });
      const counted = JSON.parse(await answer.text()) as { input_tokens?: unknown };
      if (typeof counted?.input_tokens !== 'number')
        throw new AppError('upstream_error', 'The upstream provider answered without input_tokens');
      return { input_tokens: counted.input_tokens };
    }
    const { stream: _stream, ...rest } = request.body;
    const chat = parseChatRequest(messagesToChatBody({ ...rest, max_tokens: 1 }, 1));
    return { input_tokens: estimatePromptTokens(measurePrompt(chat)) };
  }
}

/**
 * The client's body with the upstream model id: its own bytes with the model value replaced, or,
 * when the balance required a lower max_tokens (or the bytes are unusual), the parsed body again.
 */
function upstreamBody(
  body: Record<string, unknown>,
  raw: RawMessagesBody,
  upstreamModel: string,
  loweredMax: number | null,
): Buffer | string {
  if (loweredMax === null) {
    const spliced = raw.layout
      ? replaceTopLevelModelAt(raw.bytes, raw.layout, upstreamModel)
      : replaceTopLevelModel(raw.bytes, upstreamModel);
    if (spliced) return spliced;
  }
  const sent: Record<string, unknown> = { ...body, model: upstreamModel };
  if (loweredMax !== null) sent.max_tokens = loweredMax;
  return JSON.stringify(sent);
}

/** The server-tool uses the hold covers; a server tool the catalog does not price is refused. */
function serverToolUses(request: MessagesRequest, model: PricedTextModel) {
  const uses = { webSearches: 0, webFetches: 0 };
  for (const tool of request.serverTools) {
    const bound = tool.maxUses ?? DEFAULT_SERVER_TOOL_USES;
    if (tool.kind === 'web_search' && model.priceWebSearchMicro != null) uses.webSearches += bound;
    else if (tool.kind === 'web_fetch' && model.priceWebFetchMicro != null) uses.webFetches += bound;
    else
      throw new AppError(
        'unsupported_parameter',
        `tools: the server tool ${tool.type} is not priced for ${model.id} on this gateway`,
        'tools',
      );
  }
  return uses;
}
