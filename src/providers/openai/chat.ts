// The OpenAI-compatible chat adapter (OpenAI, and anything that speaks its API: vLLM, Ollama, a
// proxy, Anthropic's compatibility layer). The body goes upstream as the gateway prepared it (the
// client's fields, unknown ones included); only the gateway's credentials are added.
import type { Dispatcher } from 'undici';
import type { ChatCompletion, ChatCompletionChunk } from '../../domain/chat/types.js';
import { AppError } from '../../domain/errors.js';
import type { ChatProvider, UpstreamChatCall } from '../chat-provider.js';
import { readCapped, readJson, upstreamChunks } from '../http/chat-body.js';
import type { UpstreamPools } from './pools.js';
import { readChatChunks } from './sse.js';
import { upstreamHttpError, upstreamNetworkError } from './upstream-errors.js';

export interface OpenAiEndpoint {
  /** The provider name from PROVIDERS_FILE. */
  name: string;
  /** e.g. https://api.openai.com/v1 (OpenAI's documented base, /v1 included). */
  baseUrl: string;
  apiKey: string | undefined;
  /** Path appended to the base URL's path: "/chat/completions", or "/v1/chat/completions" for a base without /v1. */
  chatPath: string;
}

const MAX_ERROR_BODY = 64 * 1024;

export class OpenAiChatProvider implements ChatProvider {
  readonly name: string;
  private readonly origin: string;
  private readonly path: string;
  private readonly headers: Record<string, string>;

  constructor(
    endpoint: OpenAiEndpoint,
    private readonly pools: UpstreamPools,
  ) {
    const url = new URL(endpoint.baseUrl);
    this.name = endpoint.name;
    this.origin = url.origin;
    this.path = `${url.pathname.replace(/\/+$/, '')}${endpoint.chatPath}`;
    this.headers = {
      'content-type': 'application/json',
      'user-agent': 'gengate',
      ...(endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}),
    };
  }

  private async send(call: UpstreamChatCall, accept: string): Promise<Dispatcher.ResponseData> {
    let response: Dispatcher.ResponseData;
    try {
      response = await this.pools.get(this.origin).request({
        method: 'POST',
        path: this.path,
        headers: { ...this.headers, accept },
        body: JSON.stringify(call.body),
        signal: call.cancellation,
      });
    } catch (error) {
      throw call.cancellation.aborted ? error : upstreamNetworkError(error);
    }
    if (response.statusCode < 200 || response.statusCode >= 300) {
      const text = await readCapped(response.body, MAX_ERROR_BODY).catch(() => '');
      throw upstreamHttpError(response.statusCode, text);
    }
    return response;
  }

  async complete(call: UpstreamChatCall): Promise<ChatCompletion> {
    const response = await this.send(call, 'application/json');
    const parsed = await readJson(response.body, call.cancellation);
    if (!parsed || typeof parsed !== 'object' || !Array.isArray((parsed as { choices?: unknown }).choices)) {
      throw new AppError(
        'upstream_error',
        'The upstream provider answered with something other than a chat.completion',
      );
    }
    return parsed as ChatCompletion;
  }

  async stream(call: UpstreamChatCall): Promise<AsyncIterable<ChatCompletionChunk>> {
    const response = await this.send(call, 'text/event-stream');
    return upstreamChunks(response.body, readChatChunks(response.body), call.cancellation);
  }

  async close(): Promise<void> {
    // The pools are shared between providers of one origin; the registry closes them.
  }
}
