// The native Anthropic chat adapter: OpenAI chat completions in and out, the Messages API
// (POST {base_url}/v1/messages) in between. Anthropic's documented base is https://api.anthropic.com;
// a base that already ends in /v1 is used as is.
import type { Dispatcher } from 'undici';
import type { ChatCompletion, ChatCompletionChunk } from '../../domain/chat/types.js';
import { AppError } from '../../domain/errors.js';
import type {
  ChatProvider,
  MessagesUpstreamAnswer,
  MessagesUpstreamCall,
  UpstreamChatCall,
} from '../chat-provider.js';
import { readCapped, readJson, upstreamChunks } from '../http/chat-body.js';
import type { UpstreamPools } from '../openai/pools.js';
import { upstreamNetworkError } from '../openai/upstream-errors.js';
import { anthropicHttpError } from './errors.js';
import { defaultMaxTokens } from './max-tokens.js';
import { toMessagesRequest } from './request.js';
import { toChatCompletion } from './response.js';
import { translateStream } from './stream.js';
import type { MessageResponse } from './wire.js';

export const ANTHROPIC_VERSION = '2023-06-01';

export interface AnthropicEndpoint {
  /** The provider name from PROVIDERS_FILE. */
  name: string;
  /** e.g. https://api.anthropic.com */
  baseUrl: string;
  apiKey: string | undefined;
  /** The anthropic-version header. */
  version?: string;
  /** An anthropic-beta header, when the operator opts into a beta. */
  beta?: string;
  /** max_tokens for requests that give none; by default the model's own output limit. */
  maxTokens?: number;
  now?: () => number;
}

const MAX_ERROR_BODY = 64 * 1024;

export class AnthropicChatProvider implements ChatProvider {
  readonly name: string;
  private readonly origin: string;
  private readonly path: string;
  private readonly headers: Record<string, string>;
  private readonly now: () => number;

  constructor(
    private readonly endpoint: AnthropicEndpoint,
    private readonly pools: UpstreamPools,
  ) {
    const url = new URL(endpoint.baseUrl);
    const base = url.pathname.replace(/\/+$/, '');
    this.name = endpoint.name;
    this.origin = url.origin;
    this.path = /\/v1$/.test(base) ? `${base}/messages` : `${base}/v1/messages`;
    this.now = endpoint.now ?? Date.now;
    this.headers = {
      'content-type': 'application/json',
      'user-agent': 'gengate',
      'anthropic-version': endpoint.version ?? ANTHROPIC_VERSION,
      ...(endpoint.beta ? { 'anthropic-beta': endpoint.beta } : {}),
      ...(endpoint.apiKey ? { 'x-api-key': endpoint.apiKey } : {}),
    };
  }

  private async send(call: UpstreamChatCall, accept: string): Promise<Dispatcher.ResponseData> {
    const model = String(call.body.model);
    // Translation refusals (422) happen here, before any network call.
    const request = toMessagesRequest(call.body, {
      maxTokens: this.endpoint.maxTokens ?? defaultMaxTokens(model),
    });
    return this.post(this.path, { ...this.headers, accept }, JSON.stringify(request), call.cancellation);
  }

  /**
   * The Messages API pass-through: the client's body and its anthropic-version / anthropic-beta
   * (the operator's beta, when set, is added to the client's), the gateway's key.
   */
  async passThroughMessages(call: MessagesUpstreamCall): Promise<MessagesUpstreamAnswer> {
    const headers: Record<string, string> = {
      ...this.headers,
      accept: call.stream ? 'text/event-stream' : 'application/json',
    };
    if (call.version) headers['anthropic-version'] = call.version;
    const betas = [call.beta, this.endpoint.beta].filter((beta): beta is string => Boolean(beta));
    if (betas.length > 0) headers['anthropic-beta'] = betas.join(',');
    const path = call.endpoint === 'messages' ? this.path : `${this.path}/count_tokens`;
    const response = await this.post(path, headers, call.body, call.cancellation);
    const body = response.body;
    return {
      chunks: body,
      text: async () => {
        try {
          return await body.text();
        } catch (error) {
          throw call.cancellation.aborted ? error : upstreamNetworkError(error);
        }
      },
      discard: () => {
        if (!body.readableEnded) body.destroy();
      },
    };
  }

  private async post(
    path: string,
    headers: Record<string, string>,
    body: string | Buffer,
    cancellation: UpstreamChatCall['cancellation'],
  ): Promise<Dispatcher.ResponseData> {
    let response: Dispatcher.ResponseData;
    try {
      response = await this.pools.get(this.origin).request({
        method: 'POST',
        path,
        headers,
        body,
        signal: cancellation,
      });
    } catch (error) {
      throw cancellation.aborted ? error : upstreamNetworkError(error);
    }
    if (response.statusCode < 200 || response.statusCode >= 300) {
      const text = await readCapped(response.body, MAX_ERROR_BODY).catch(() => '');
      const retryAfter = response.headers['retry-after'];
      throw anthropicHttpError(
        response.statusCode,
        text,
        Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
      );
    }
    return response;
  }

  async complete(call: UpstreamChatCall): Promise<ChatCompletion> {
    const response = await this.send(call, 'application/json');
    const parsed = (await readJson(response.body, call.cancellation)) as MessageResponse;
    if (parsed?.type !== 'message' || !Array.isArray(parsed.content))
      throw new AppError(
        'upstream_error',
        'The upstream provider answered with something other than a message',
      );
    return toChatCompletion(parsed, Math.floor(this.now() / 1000));
  }

  async stream(call: UpstreamChatCall): Promise<AsyncIterable<ChatCompletionChunk>> {
    const response = await this.send(call, 'text/event-stream');
    return upstreamChunks(
      response.body,
      translateStream(response.body, Math.floor(this.now() / 1000)),
      call.cancellation,
    );
  }

  async close(): Promise<void> {
    // The pools are shared between providers of one origin; the registry closes them.
  }
}
