// Which chat adapter serves a model. PROVIDERS_FILE routes win, then the catalog entry's own route;
// a model with neither is answered by the simulator (DESIGN.md section 5).
// Provider types that serve chat:
// - openai: the OpenAI-compatible adapter at {base_url}/chat/completions (base_url includes /v1);
// - anthropic: the native adapter on Anthropic's Messages API, {base_url}/v1/messages; with
//   `compat: true`, the OpenAI-compatible adapter on Anthropic's OpenAI compatibility layer,
//   {base_url}/v1/chat/completions (Anthropic's documented base has no /v1);
// - simulator: the built-in simulator.
// fal and replicate serve media only; a text model routed to one answers 502 with the reason.
import type { RouteCost } from '../domain/billing/provider-cost.js';
import type { CatalogModel } from '../domain/catalog/model.js';
import { AppError } from '../domain/errors.js';
import { AnthropicChatProvider } from './anthropic/chat.js';
import { anthropicEndpoint, usesCompatLayer } from './anthropic/settings.js';
import type { ChatProvider } from './chat-provider.js';
import type { ProviderSettings, ProvidersConfig } from './config.js';
import { OpenAiChatProvider } from './openai/chat.js';
import { UpstreamPools } from './openai/pools.js';
import { SimulatorChatProvider } from './simulator/chat.js';

export interface ChatRoute {
  provider: ChatProvider;
  /** The model id the upstream knows; the client only ever sees the public id. */
  upstreamModel: string;
  /** The PROVIDERS_FILE provider serving it ("simulator" without a route). */
  providerName?: string;
  /** The route's cost (PROVIDERS_FILE cost_rub, cost_output_rub); null when it carries none. */
  cost?: RouteCost | null;
}

export interface ChatRegistryOptions {
  /** PROVIDER_TIMEOUT_MS: upstream headers and each gap in the body. */
  timeoutMs: number;
  now?: () => number;
}

export class ChatRegistry {
  private readonly pools: UpstreamPools;
  private readonly simulator: SimulatorChatProvider;
  private readonly adapters = new Map<string, ChatProvider>();

  constructor(
    private readonly providers: ProvidersConfig,
    options: ChatRegistryOptions,
  ) {
    this.pools = new UpstreamPools({ timeoutMs: options.timeoutMs });
    this.simulator = new SimulatorChatProvider({ timeoutMs: options.timeoutMs, now: options.now });
    for (const settings of providers.providers.values()) {
      const adapter = this.adapterFor(settings);
      if (adapter) this.adapters.set(settings.name, adapter);
    }
  }

  private adapterFor(settings: ProviderSettings): ChatProvider | undefined {
    switch (settings.type) {
      case 'simulator':
        return this.simulator;
      case 'openai':
        return new OpenAiChatProvider({ ...settings, chatPath: '/chat/completions' }, this.pools);
      case 'anthropic':
        if (!usesCompatLayer(settings))
          return new AnthropicChatProvider(anthropicEndpoint(settings), this.pools);
        return new OpenAiChatProvider(
          {
            ...settings,
            chatPath: /\/v1\/?$/.test(settings.baseUrl) ? '/chat/completions' : '/v1/chat/completions',
          },
          this.pools,
        );
      default:
        return undefined;
    }
  }

  resolve(model: CatalogModel): ChatRoute {
    // Chat takes a model's first route; fallback between routes is for media tasks.
    const fileRoute = this.providers.routes.get(model.id)?.[0];
    const route = fileRoute ?? model.route;
    if (!route)
      return { provider: this.simulator, upstreamModel: model.id, providerName: 'simulator', cost: null };
    const cost =
      fileRoute?.costMicro === undefined
        ? null
        : { costMicro: fileRoute.costMicro, costOutputMicro: fileRoute.costOutputMicro };
    const adapter = this.adapters.get(route.provider);
    if (adapter) return { provider: adapter, upstreamModel: route.model, providerName: route.provider, cost };
    if (route.provider === 'simulator' && !this.providers.providers.has('simulator')) {
      return { provider: this.simulator, upstreamModel: route.model, providerName: 'simulator', cost };
    }
    const settings = this.providers.providers.get(route.provider);
    throw new AppError(
      'upstream_error',
      settings
        ? `Model ${model.id} is routed to provider "${route.provider}" of type ${settings.type}, which does not serve chat`
        : `Model ${model.id} is routed to provider "${route.provider}", which PROVIDERS_FILE does not configure`,
    );
  }

  async close(): Promise<void> {
    await this.pools.close();
  }
}
