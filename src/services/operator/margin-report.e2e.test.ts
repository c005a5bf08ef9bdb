// The margin report against the ledger, on both engines: tasks (per shot, per second) and chat
// (tokens) through routes with a cost and routes without one. Every figure is checked to the
// micro-ruble: revenue against the ledger's captures, cost against the route's price × what was
// delivered, and the sealed (rollup) answer against the live one.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestKey } from '../../testing/app.js';
import { settledUsage } from '../../testing/chat.js';
import { ENGINES } from '../../testing/db.js';
import {
  createTaskTestApp,
  expectLedgerClean,
  generate,
  type TaskTestApp,
  waitForFinal,
} from '../../testing/tasks.js';

const DAY_MS = 86_400_000;
const SEEDREAM_COST = 1_234_567; // per shot
const KLING_COST = 2_500_000; // per second
const CHAT_IN = 10_000_000; // per 1M input tokens
const CHAT_OUT = 40_000_000; // per 1M output tokens

describe.each(ENGINES)('margin report (%s)', (engine) => {
  let app: TaskTestApp;
  let key: TestKey;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gengate-margin-'));
    const providersFile = join(dir, 'providers.json');
    writeFileSync(
      providersFile,
      JSON.stringify({
        providers: { sim: { type: 'simulator' } },
        routes: {
          'seedream-4': { provider: 'sim', cost_rub: 1.234567 },
          'kling-2-1': { provider: 'sim', cost_rub: '2.5' },
          // flux-1-1-pro: no route (the built-in simulator), so no cost.
          'gpt-4o-mini': { provider: 'sim', cost_rub: 10, cost_output_rub: 40 },
          'gpt-4o': { provider: 'sim' },
        },
      }),
    );
    app = await createTaskTestApp({ engine, config: { providersFile } });
    key = await app.newKey({ balanceRub: 5000, coefficient: 1.5 });
    const tasks: string[] = [];
    for (const params of [
      { model_name: 'seedream-4', prompt: 'a' },
      { model_name: 'seedream-4', prompt: 'b' },
      { model_name: 'seedream-4', prompt: 'c [sim:fail=reject]' },
      { model_name: 'kling-2-1', prompt: 'd', duration: 5 },
      { model_name: 'flux-1-1-pro', prompt: 'e' },
    ]) {
      const res = await generate(app, key, params);
      expect(res.statusCode).toBe(202);
      tasks.push(res.json().task_id);
    }
    for (const id of tasks) await waitForFinal(app, key, id);
    for (const [model, content] of [
      ['gpt-4o-mini', 'hello there [sim:tokens=37]'],
      ['gpt-4o-mini', 'and again [sim:tokens=5]'],
      ['gpt-4o', 'no cost here'],
    ]) {
      const res = await app.http.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: key.auth,
        payload: { model, messages: [{ role: 'user', content }] },
      });
      expect(res.statusCode).toBe(200);
    }
    await settledUsage(app, key.accountId, key.keyId);
  });
  afterAll(async () => {
    await app?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  const today = () => new Date().toISOString().slice(0, 10);
  const report = async (query = `from=${today()}&to=${today()}`) => {
    const res = await app.http.inject({
      method: 'GET',
      url: `/admin/reports/margin?${query}`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    return res;
  };

  /** Σ captures in the ledger of the requests of one model (tasks and chat). */
  async function capturedFor(model: string): Promise<number> {
    const db = app.ctx.storage.db;
    const taskIds = (await db.selectFrom('tasks').select('id').where('model_id', '=', model).execute()).map(
      (r) => r.id,
    );
    const chatIds = (
      await db.selectFrom('usage_records').select('id').where('model_id', '=', model).execute()
    ).map((r) => r.id);
    const ids = [...taskIds, ...chatIds];
    if (ids.length === 0) return 0;
    const rows = await db
      .selectFrom('ledger_entries')
      .select('amount')
      .where('kind', '=', 'capture')
      .where('task_id', 'in', ids)
      .execute();
    return rows.reduce((sum, r) => sum + Number(r.amount), 0);
  }

  it('answers every (day, model, provider) with revenue equal to the ledger and cost from the route', async () => {
    const res = await report();
    expect(res.statusCode).toBe(200);
    const { data } = res.json() as { data: any[] };
    const row = (model: string) => data.find((r) => r.model === model);
    expect(data.map((r) => r.model).sort()).toEqual([
      'flux-1-1-pro',
      'gpt-4o',
      'gpt-4o-mini',
      'kling-2-1',
      'seedream-4',
    ]);
    for (const r of data) {
      expect(Object.keys(r).sort()).toEqual(
        ['cost_rub', 'day', 'margin_rub', 'model', 'provider', 'requests', 'revenue_rub'].sort(),
      );
      expect(r.day).toBe(today());
      expect(Math.round(r.revenue_rub * 1e6)).toBe(await capturedFor(r.model));
    }
    // Per shot: two delivered; the rejected one cost nothing but is a request.
    expect(row('seedream-4')).toMatchObject({ provider: 'sim', requests: 3 });
    expect(Math.round(row('seedream-4').cost_rub * 1e6)).toBe(2 * SEEDREAM_COST);
    expect(Math.round(row('seedream-4').margin_rub * 1e6)).toBe(
      (await capturedFor('seedream-4')) - 2 * SEEDREAM_COST,
    );
    // Per second of the delivered duration.
    const kling = await app.ctx.storage.db
      .selectFrom('tasks')
      .selectAll()
      .where('model_id', '=', 'kling-2-1')
      .executeTakeFirstOrThrow();
    const seconds = JSON.parse(kling.result!).duration as number;
    expect(seconds).toBe(5);
    expect(Math.round(row('kling-2-1').cost_rub * 1e6)).toBe(KLING_COST * seconds);
    // Chat: from the upstream's reported tokens, rounded up once per request.
    const usage = await app.ctx.storage.db
      .selectFrom('usage_records')
      .select(['input_tokens', 'output_tokens'])
      .where('model_id', '=', 'gpt-4o-mini')
      .execute();
    expect(usage).toHaveLength(2);
    const chatCost = usage.reduce(
      (sum, u) =>
        sum +
        Number(
          (BigInt(u.input_tokens) * BigInt(CHAT_IN) + BigInt(u.output_tokens) * BigInt(CHAT_OUT) + 999_999n) /
            1_000_000n,
        ),
      0,
    );
    expect(Math.round(row('gpt-4o-mini').cost_rub * 1e6)).toBe(chatCost);
    expect(row('gpt-4o-mini')).toMatchObject({ provider: 'sim', requests: 2 });
    // Routes without a cost: null, never zero.
    expect(row('flux-1-1-pro')).toMatchObject({ cost_rub: null, margin_rub: null, requests: 1 });
    expect(row('gpt-4o')).toMatchObject({ cost_rub: null, margin_rub: null, provider: 'sim' });
    const nulls = await app.ctx.storage.db
      .selectFrom('tasks')
      .select('provider_cost')
      .where('model_id', '=', 'flux-1-1-pro')
      .executeTakeFirstOrThrow();
    expect(nulls.provider_cost).toBeNull();
    await expectLedgerClean(app);
  });

  it('reads the same figures from the daily rollup once the day is sealed', async () => {
    const live = (await report()).json().data;
    const day = Math.floor(Date.now() / DAY_MS);
    const sealed = await app.ctx.storage.margin.report(day, day + 1, Date.now() + 3 * DAY_MS);
    const rows = await app.ctx.storage.db.selectFrom('margin_daily').selectAll().execute();
    expect(rows.length).toBe(5);
    const { presentMicro, presentRub } = await import('./margin-report.js');
    expect(sealed.map((c) => presentRub(presentMicro(c)))).toEqual(live);
  });

  it('refuses bad dates with 422 and the one error shape', async () => {
    for (const query of [
      'from=2026-13-01',
      'to=yesterday',
      'from=2026-11-10&to=2026-11-01',
      'from=2020-01-01&to=2026-01-01',
    ]) {
      const res = await report(query);
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'invalid_parameter' });
    }
    const empty = await report('from=2001-01-01&to=2001-01-31');
    expect(empty.json()).toEqual({ data: [] });
    const noAuth = await app.http.inject({ method: 'GET', url: '/admin/reports/margin' });
    expect(noAuth.statusCode).toBe(401);
  });
});
