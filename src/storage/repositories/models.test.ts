// Storage contract: catalog models, with the Messages API's prices (migration 018). The same suite
// runs on SQLite and, when reachable, on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogModel } from '../../domain/catalog/model.js';
import { ENGINES, openTestDb, type TestDb } from '../../testing/db.js';
import { Storage } from '../storage.js';

const model = (id: string, prices: Partial<CatalogModel>): CatalogModel => ({
  id,
  name: id,
  provider: 'Anthropic',
  kind: 'text',
  unit: 'mtok',
  priceMicro: 270_000_000,
  priceOutputMicro: 1_350_000_000,
  active: true,
  visible: true,
  vision: true,
  route: null,
  paramsSchema: null,
  billing: null,
  updatedAt: 1_700_000_000_000,
  ...prices,
});

describe.each(ENGINES)('models repository on %s', (engine) => {
  let db: TestDb;
  let storage: Storage;
  beforeAll(async () => {
    db = await openTestDb(engine);
    storage = Storage.from(db);
  });
  afterAll(() => db.dispose());

  it('keeps the cache and server-tool prices as integers, and null where none is set', async () => {
    const priced = model('claude-test', {
      priceCacheWriteMicro: 337_500_000,
      priceCacheReadMicro: 27_000_000,
      priceWebSearchMicro: 900_000_000_000,
      priceWebFetchMicro: 0,
    });
    await storage.models.upsert(priced);
    expect(await storage.models.byId('claude-test')).toEqual(priced);

    await storage.models.upsert(model('claude-plain', {}));
    expect(await storage.models.byId('claude-plain')).toMatchObject({
      priceCacheWriteMicro: null,
      priceCacheReadMicro: null,
      priceWebSearchMicro: null,
      priceWebFetchMicro: null,
    });

    // An update clears a price back to the default.
    await storage.models.upsert({ ...priced, priceCacheReadMicro: null });
    expect((await storage.models.byId('claude-test'))?.priceCacheReadMicro).toBeNull();
  });
});
