import type { Kysely, Selectable } from 'kysely';
import type { CatalogModel } from '../../domain/catalog/model.js';
import type { Database, ModelsTable } from '../schema.js';

type ModelRow = Selectable<ModelsTable>;

const parseJson = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

export function modelFromRow(row: ModelRow): CatalogModel {
  return {
    id: row.id,
    name: row.name,
    provider: row.provider,
    kind: row.kind as CatalogModel['kind'],
    unit: row.unit as CatalogModel['unit'],
    priceMicro: row.price_micro,
    priceOutputMicro: row.price_output_micro,
    priceCacheWriteMicro: row.price_cache_write_micro,
    priceCacheReadMicro: row.price_cache_read_micro,
    priceWebSearchMicro: row.price_web_search_micro,
    priceWebFetchMicro: row.price_web_fetch_micro,
    active: row.active === 1,
    visible: row.visible === 1,
    vision: row.vision === 1,
    route: parseJson(row.route),
    paramsSchema: parseJson(row.params_schema),
    billing: parseJson(row.billing),
    updatedAt: row.updated_at,
  };
}

function rowFromModel(model: CatalogModel, sortOrder: number): ModelRow {
  const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));
  return {
    id: model.id,
    name: model.name,
    provider: model.provider,
    kind: model.kind,
    unit: model.unit,
    price_micro: model.priceMicro,
    price_output_micro: model.priceOutputMicro,
    price_cache_write_micro: model.priceCacheWriteMicro ?? null,
    price_cache_read_micro: model.priceCacheReadMicro ?? null,
    price_web_search_micro: model.priceWebSearchMicro ?? null,
    price_web_fetch_micro: model.priceWebFetchMicro ?? null,
    active: model.active ? 1 : 0,
    visible: model.visible ? 1 : 0,
    vision: model.vision ? 1 : 0,
    route: json(model.route),
    params_schema: json(model.paramsSchema),
    billing: json(model.billing),
    sort_order: sortOrder,
    updated_at: model.updatedAt,
  };
}

export class ModelsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async upsert(model: CatalogModel, sortOrder?: number): Promise<void> {
    const existing = await this.db
      .selectFrom('models')
      .select('sort_order')
      .where('id', '=', model.id)
      .executeTakeFirst();
    const order = sortOrder ?? existing?.sort_order ?? (await this.nextSortOrder());
    const row = rowFromModel(model, order);
    const { id: _id, ...update } = row;
    await this.db
      .insertInto('models')
      .values(row)
      .onConflict((oc) => oc.column('id').doUpdateSet(update))
      .execute();
  }

  private async nextSortOrder(): Promise<number> {
    const row = await this.db
      .selectFrom('models')
      .select((eb) => eb.fn.max('sort_order').as('max'))
      .executeTakeFirst();
    return Number(row?.max ?? 0) + 1;
  }

  async byId(id: string): Promise<CatalogModel | undefined> {
    const row = await this.db.selectFrom('models').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? modelFromRow(row) : undefined;
  }

  async listAll(): Promise<CatalogModel[]> {
    const rows = await this.db.selectFrom('models').selectAll().orderBy('sort_order').orderBy('id').execute();
    return rows.map(modelFromRow);
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('models')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** A version stamp so processes can tell when their cached catalog is stale. */
  async version(): Promise<string> {
    const row = await this.db
      .selectFrom('models')
      .select((eb) => [eb.fn.max('updated_at').as('latest'), eb.fn.countAll<number>().as('n')])
      .executeTakeFirst();
    return `${row?.latest ?? 0}:${row?.n ?? 0}`;
  }
}
