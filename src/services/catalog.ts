// The model catalog, cached in memory. Admin changes update the local cache at once; other
// processes notice within `refreshMs` through a cheap version query.
import { readFileSync } from 'node:fs';
import { type CatalogEntryInput, parseCatalogEntry } from '../domain/catalog/catalog-file.js';
import { type CatalogModel, isPublic } from '../domain/catalog/model.js';
import type { Storage } from '../storage/storage.js';
import type { Clock } from './clock.js';

const DEFAULT_CATALOG = new URL('../domain/catalog/default-models.json', import.meta.url);

export function readCatalogFile(path: string | URL, now: number): CatalogModel[] {
  const text = readFileSync(path, 'utf8');
  const data = JSON.parse(text) as { models?: (CatalogEntryInput & { id: string })[] };
  if (!Array.isArray(data.models)) throw new Error(`${String(path)}: expected {"models": [...]}`);
  return data.models.map((entry) => parseCatalogEntry(String(entry.id), entry, now));
}

export class CatalogService {
  private models = new Map<string, CatalogModel>();
  private ordered: CatalogModel[] = [];
  private version = '';
  private checkedAt = 0;
  private refreshing: Promise<void> | null = null;

  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly refreshMs = 1000,
  ) {}

  /** Seeds the default catalog into an empty database, then loads the cache. */
  async init(): Promise<void> {
    if ((await this.storage.models.count()) === 0)
      await this.importModels(readCatalogFile(DEFAULT_CATALOG, this.clock.now()));
    await this.reload();
  }

  async importModels(models: CatalogModel[]): Promise<void> {
    await this.storage.transaction(async (tx) => {
      for (const [index, model] of models.entries()) await tx.models.upsert(model, index + 1);
    });
    await this.reload();
  }

  async upsert(model: CatalogModel): Promise<CatalogModel> {
    await this.storage.models.upsert(model);
    await this.reload();
    return this.models.get(model.id)!;
  }

  private async reload(): Promise<void> {
    const all = await this.storage.models.listAll();
    this.ordered = all;
    this.models = new Map(all.map((m) => [m.id, m]));
    this.version = await this.storage.models.version();
    this.checkedAt = this.clock.now();
  }

  /** Keeps the cache fresh across processes without a query on every request. */
  private async maybeRefresh(): Promise<void> {
    if (this.clock.now() - this.checkedAt < this.refreshMs) return;
    this.refreshing ??= (async () => {
      try {
        this.checkedAt = this.clock.now();
        if ((await this.storage.models.version()) !== this.version) await this.reload();
      } finally {
        this.refreshing = null;
      }
    })();
    await this.refreshing;
  }

  async get(id: string): Promise<CatalogModel | undefined> {
    await this.maybeRefresh();
    return this.models.get(id);
  }

  async all(): Promise<CatalogModel[]> {
    await this.maybeRefresh();
    return this.ordered;
  }

  async publicModels(): Promise<CatalogModel[]> {
    return (await this.all()).filter(isPublic);
  }
}
