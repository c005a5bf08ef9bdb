// gpt-image-1 is priced per quality and size, as OpenAI bills it: each of the 9 combinations holds
// and captures its own catalog price (an internal billing variant, gpt-image-1:<quality>-<size>), on
// POST /v1/images/generations and on POST /generate, on both engines. Without `quality` the gateway
// asks for (and bills) medium, never the upstream's "auto", whose price it could not know in advance.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestKey } from '../../../testing/app.js';
import { ENGINES } from '../../../testing/db.js';
import {
  balanceOf,
  createTaskTestApp,
  expectLedgerClean,
  generate,
  ledgerOf,
  type TaskTestApp,
  waitForFinal,
} from '../../../testing/tasks.js';

/** OpenAI's per-image prices (USD) at the catalog's 90 RUB per USD, in micro-rubles. */
const PRICES: Record<string, Record<string, number>> = {
  low: { '1024x1024': 990_000, '1536x1024': 1_440_000, '1024x1536': 1_440_000 },
  medium: { '1024x1024': 3_780_000, '1536x1024': 5_670_000, '1024x1536': 5_670_000 },
  high: { '1024x1024': 15_030_000, '1536x1024': 22_500_000, '1024x1536': 22_500_000 },
};
const RATIO: Record<string, string> = { '1024x1024': '1:1', '1536x1024': '3:2', '1024x1536': '2:3' };

const combos = Object.entries(PRICES).flatMap(([quality, sizes]) =>
  Object.entries(sizes).map(([size, price]) => ({ quality, size, price })),
);

async function onlyTask(app: TaskTestApp, key: TestKey) {
  const rows = await app.ctx.storage.db
    .selectFrom('tasks')
    .selectAll()
    .where('key_id', '=', key.keyId)
    .execute();
  expect(rows).toHaveLength(1);
  return rows[0];
}

describe.each(ENGINES)('gpt-image-1 priced by quality and size on %s', (engine) => {
  let app: TaskTestApp;
  beforeAll(async () => {
    app = await createTaskTestApp({ engine, config: { syncImageWaitMs: 10_000 } });
  });
  afterEach(async () => {
    await expectLedgerClean(app);
  });
  afterAll(async () => {
    await app.dispose();
  });

  const charged = async (key: TestKey, price: number) => {
    expect(await balanceOf(app, key)).toEqual({ balance: 100_000_000 - price, held: 0 });
    expect(await ledgerOf(app, key)).toEqual([
      ['topup', 100_000_000],
      ['hold', price],
      ['capture', price],
      ['release', 0],
    ]);
  };

  it.each(combos)(
    '/v1/images/generations $quality $size holds and captures $price micro-rubles',
    async ({ quality, size, price }) => {
      const key = await app.newKey({ balanceRub: 100 });
      const res = await app.http.inject({
        method: 'POST',
        url: '/v1/images/generations',
        headers: { ...key.auth, 'content-type': 'application/json' },
        payload: { model: 'gpt-image-1', prompt: 'a lighthouse', quality, size },
      });
      expect(res.statusCode, res.body).toBe(200);
      const task = await onlyTask(app, key);
      expect(task.billing_model_id).toBe(`gpt-image-1:${quality}-${size}`);
      expect(Number(task.hold_amount)).toBe(price);
      expect(JSON.parse(task.params)).toMatchObject({ quality, aspect_ratio: RATIO[size] });
      await charged(key, price);
    },
  );

  it.each(combos)(
    'POST /generate $quality $size holds and captures $price micro-rubles',
    async ({ quality, size, price }) => {
      const key = await app.newKey({ balanceRub: 100 });
      const res = await generate(app, key, {
        model_name: 'gpt-image-1',
        prompt: 'a lighthouse',
        quality,
        aspect_ratio: RATIO[size],
      });
      expect(res.statusCode, res.body).toBe(202);
      const final = await waitForFinal(app, key, res.json().task_id);
      expect(final.status).toBe('completed');
      expect((await onlyTask(app, key)).billing_model_id).toBe(`gpt-image-1:${quality}-${size}`);
      await charged(key, price);
    },
  );

  it('without quality or size: medium 1024x1024 is asked for and billed (never "auto")', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    const res = await app.http.inject({
      method: 'POST',
      url: '/v1/images/generations',
      headers: { ...key.auth, 'content-type': 'application/json' },
      payload: { model: 'gpt-image-1', prompt: 'a lighthouse' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const task = await onlyTask(app, key);
    expect(JSON.parse(task.params)).toMatchObject({ quality: 'medium', aspect_ratio: '1:1' });
    await charged(key, PRICES.medium['1024x1024']);
  });

  it('refuses more than one image and the "auto" quality before holding anything', async () => {
    const key = await app.newKey({ balanceRub: 100 });
    for (const extra of [{ n: 4 }, { quality: 'auto' }]) {
      const res = await app.http.inject({
        method: 'POST',
        url: '/v1/images/generations',
        headers: { ...key.auth, 'content-type': 'application/json' },
        payload: { model: 'gpt-image-1', prompt: 'a lighthouse', ...extra },
      });
      expect(res.statusCode, res.body).toBe(422);
    }
    expect(await balanceOf(app, key)).toEqual({ balance: 100_000_000, held: 0 });
  });
});
