// Migration 012 upgrades a gpt-image-1 row seeded before it (one price for every quality and size,
// no quality default) to the per-quality-and-size billing variants, on both engines, and leaves a row
// the operator edited alone.
import { afterEach, describe, expect, it } from 'vitest';
import { selectBillingModel } from '../domain/tasks/pricing.js';
import { ENGINES, openTestDb, type TestDb } from '../testing/db.js';
import { migrateThrough, migrateToLatest } from './migrations.js';
import { ModelsRepository } from './repositories/models.js';

/** gpt-image-1 as the catalog shipped it before migration 012. */
const SHIPPED_SCHEMA = {
  type: 'object',
  properties: {
    model_name: { type: 'string' },
    prompt: { type: 'string', minLength: 1, maxLength: 4000 },
    aspect_ratio: { type: 'string', enum: ['1:1', '3:2', '2:3'], default: '1:1' },
    seed: { type: 'integer', minimum: 0, maximum: 4294967295 },
    webhook_url: { type: 'string', format: 'uri' },
    quality: { type: 'string', enum: ['low', 'medium', 'high'] },
  },
  required: ['model_name', 'prompt'],
  additionalProperties: false,
};

describe.each(ENGINES)('migration 012 (gpt-image-1 variants) on %s', (engine) => {
  let db: TestDb;
  afterEach(async () => {
    await db.dispose();
  });

  async function seeded(row: { price_micro: number; params_schema: unknown; billing?: unknown }) {
    db = await openTestDb(engine, { migrate: false });
    await migrateThrough(db, '011_task_key_references');
    await db.kysely
      .insertInto('models')
      .values({
        id: 'gpt-image-1',
        name: 'GPT Image 1',
        provider: 'OpenAI',
        kind: 'image',
        unit: 'shot',
        price_micro: row.price_micro,
        price_output_micro: null,
        active: 1,
        visible: 1,
        vision: 0,
        route: null,
        params_schema: JSON.stringify(row.params_schema),
        billing: row.billing === undefined ? null : JSON.stringify(row.billing),
        sort_order: 9,
        updated_at: 1,
      } as never)
      .execute();
    expect(await migrateToLatest(db)).toContain('012_gpt_image_1_variants');
    return new ModelsRepository(db.kysely as never);
  }

  it('upgrades the shipped row: nine priced variants, a medium default, the defaults price', async () => {
    const models = await seeded({ price_micro: 6_000_000, params_schema: SHIPPED_SCHEMA });
    const all = await models.listAll();
    const byId = new Map(all.map((m) => [m.id, m]));
    const image = byId.get('gpt-image-1')!;
    expect(image.priceMicro).toBe(3_780_000);
    expect((image.paramsSchema as typeof SHIPPED_SCHEMA).properties.quality).toMatchObject({
      default: 'medium',
    });
    expect(image.billing?.variants).toHaveLength(9);
    const lookup = (id: string) => byId.get(id);
    const priced = (quality: string, aspect_ratio: string) =>
      selectBillingModel(image, { quality, aspect_ratio }, lookup).priceMicro;
    expect(priced('low', '1:1')).toBe(990_000);
    expect(priced('medium', '3:2')).toBe(5_670_000);
    expect(priced('high', '2:3')).toBe(22_500_000);
    expect(byId.get('gpt-image-1:high-1024x1024')).toMatchObject({ visible: false, priceMicro: 15_030_000 });
  });

  it("leaves an operator's edited row alone", async () => {
    const edited = {
      ...SHIPPED_SCHEMA,
      properties: { ...SHIPPED_SCHEMA.properties, style: { type: 'string' } },
    };
    const models = await seeded({ price_micro: 8_000_000, params_schema: edited });
    const all = await models.listAll();
    expect(all.map((m) => m.id)).toEqual(['gpt-image-1']);
    expect(all[0]).toMatchObject({ priceMicro: 8_000_000, billing: null });
  });
});
