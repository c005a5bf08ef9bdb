// Which adapter generates a model's tasks: the PROVIDERS_FILE routes of the model (a list, tried in
// order), else the catalog entry's route, else the built-in simulator. The adapter of a provider is
// found by its type among the shipped adapter types; the registry never names a provider.
import type { CatalogModel } from '../domain/catalog/model.js';
import { AppError } from '../domain/errors.js';
import type { Clock } from '../services/clock.js';
import type { TaskAdapterType } from './adapter-type.js';
import type { ProviderSettings, ProvidersConfig } from './config.js';
import { TASK_ADAPTER_TYPES } from './task-adapters.js';
import type { TaskProvider } from './task-provider.js';

export const SIMULATOR = 'simulator';

export interface ResolvedRoute {
  /** The provider name stored with the task (a PROVIDERS_FILE provider, or "simulator"). */
  providerName: string;
  upstreamModel: string;
  /** PROVIDERS_FILE's weight of the entry (consecutive weighted entries share traffic). */
  weight?: number;
}

export type TaskProviderFactory = (settings: ProviderSettings) => TaskProvider;

export class TaskProviderRegistry {
  private readonly factories = new Map<string, TaskProviderFactory>();
  private readonly instances = new Map<string, TaskProvider>();

  constructor(
    readonly config: ProvidersConfig,
    private readonly simulator: TaskProvider,
    clock: Clock = { now: () => Date.now() },
    adapterTypes: TaskAdapterType[] = TASK_ADAPTER_TYPES,
  ) {
    for (const adapter of adapterTypes)
      this.factories.set(adapter.type, (settings) => adapter.create(settings, { clock }));
  }

  /** Lets an adapter serve tasks for every provider of its type (tests register fakes this way). */
  registerType(type: string, factory: TaskProviderFactory): void {
    this.factories.set(type, factory);
    this.instances.clear();
  }

  hasAdapter(type: string): boolean {
    return type === SIMULATOR || this.factories.has(type);
  }

  /** Every route of a model, in the order they are tried. */
  routes(model: Pick<CatalogModel, 'id' | 'route'>): ResolvedRoute[] {
    const own = model.route ?? { provider: SIMULATOR, model: model.id };
    return this.routesOr(model.id, { providerName: own.provider, upstreamModel: own.model });
  }

  /** PROVIDERS_FILE's routes of a model, else `fallback` (the catalog's route, or a task's stored one). */
  routesOr(modelId: string, fallback: ResolvedRoute): ResolvedRoute[] {
    const configured = this.config.routes.get(modelId);
    if (!configured || configured.length === 0) return [fallback];
    return configured.map((route) => ({
      providerName: route.provider,
      upstreamModel: route.model,
      ...(route.weight !== undefined ? { weight: route.weight } : {}),
    }));
  }

  /** The first route of a model at task creation; 502 when it cannot run tasks. */
  resolve(model: Pick<CatalogModel, 'id' | 'route'>): ResolvedRoute {
    const first = this.routes(model)[0];
    this.providerByName(first.providerName);
    return first;
  }

  /** The adapter for a stored task's provider name. Throws when it is not (or no longer) usable. */
  providerByName(name: string): TaskProvider {
    const existing = this.instances.get(name);
    if (existing) return existing;
    const settings = this.config.providers.get(name);
    if (name === SIMULATOR && !settings) return this.simulator;
    if (!settings) throw new AppError('upstream_error', `Provider "${name}" is not configured`);
    if (settings.type === SIMULATOR) return this.simulator;
    const factory = this.factories.get(settings.type);
    if (!factory) {
      throw new AppError(
        'upstream_error',
        `Provider "${name}" (type ${settings.type}) cannot run video or image tasks: no task adapter for ${settings.type}`,
      );
    }
    const provider = factory(settings);
    this.instances.set(name, provider);
    return provider;
  }

  /** Every configured provider that is not the simulator, with its adapter (for `providers check`). */
  configured(): Array<{ settings: ProviderSettings; provider: TaskProvider | undefined }> {
    return [...this.config.providers.values()]
      .filter((settings) => settings.type !== SIMULATOR)
      .map((settings) => ({
        settings,
        provider: this.factories.has(settings.type) ? this.providerByName(settings.name) : undefined,
      }));
  }

  /**
   * What stops the start: a media model routed to a type with no task adapter, and adapter
   * settings that are missing. `kindOf` tells a model's kind from the catalog (undefined: unknown).
   */
  problems(
    kindOf: (modelId: string) => 'video' | 'image' | 'text' | undefined,
    adapterTypes: TaskAdapterType[] = TASK_ADAPTER_TYPES,
  ): string[] {
    const problems: string[] = [];
    for (const settings of this.config.providers.values()) {
      const adapter = adapterTypes.find((candidate) => candidate.type === settings.type);
      if (adapter) problems.push(...adapter.validate(settings));
    }
    for (const [modelId, routes] of this.config.routes) {
      const kind = kindOf(modelId);
      if (kind !== 'video' && kind !== 'image') continue;
      routes.forEach((route, index) => {
        const settings = this.config.providers.get(route.provider);
        if (settings && !this.hasAdapter(settings.type)) {
          problems.push(
            `routes.${modelId}${routes.length > 1 ? `[${index}]` : ''}: ${modelId} is a ${kind} model and provider "${route.provider}" is of type ${settings.type}, which has no video/image task adapter`,
          );
        }
      });
    }
    return problems;
  }
}
