// Which adapter generates a model's tasks: the PROVIDERS_FILE route of the model, else the catalog
// entry's route, else the built-in simulator. Adapters for other provider types register a factory;
// a route to a type with no task adapter is refused before anything is charged.
import type { CatalogModel } from '../domain/catalog/model.js';
import { AppError } from '../domain/errors.js';
import type { ProviderSettings, ProvidersConfig } from './config.js';
import type { TaskProvider } from './task-provider.js';

export const SIMULATOR = 'simulator';

export interface ResolvedRoute {
  /** The provider name stored with the task (a PROVIDERS_FILE provider, or "simulator"). */
  providerName: string;
  upstreamModel: string;
}

export type TaskProviderFactory = (settings: ProviderSettings) => TaskProvider;

export class TaskProviderRegistry {
  private readonly factories = new Map<string, TaskProviderFactory>();
  private readonly instances = new Map<string, TaskProvider>();

  constructor(
    private readonly config: ProvidersConfig,
    private readonly simulator: TaskProvider,
  ) {}

  /** Lets an adapter (fal, replicate, …) serve tasks for every provider of its type. */
  registerType(type: string, factory: TaskProviderFactory): void {
    this.factories.set(type, factory);
    this.instances.clear();
  }

  /** The route of a model at task creation; 502 when it points at a provider that cannot run tasks. */
  resolve(model: CatalogModel): ResolvedRoute {
    const route = this.config.routes.get(model.id) ?? model.route ?? undefined;
    if (!route || route.provider === SIMULATOR)
      return { providerName: SIMULATOR, upstreamModel: route?.model ?? model.id };
    this.providerByName(route.provider);
    return { providerName: route.provider, upstreamModel: route.model };
  }

  /** The adapter for a stored task's provider name. Throws when it is not (or no longer) usable. */
  providerByName(name: string): TaskProvider {
    if (name === SIMULATOR) return this.simulator;
    const existing = this.instances.get(name);
    if (existing) return existing;
    const settings = this.config.providers.get(name);
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
}
