// How fast the panel's Analytics page answers at one million usage rows.
//
//   node bin/run-ts.mjs bench/panel-analytics.ts [--rows=1000000] [--tasks=50000] [--days=90] [--runs=7] [--pg]
//
// It also times the operator's margin report (GET /admin/reports/margin, every account) over the
// last 30 days and over every day seeded; `--days=30` puts the million rows in one month.
//
// Seeds a fresh temporary SQLite database (and, with --pg, a fresh PostgreSQL schema at
// BENCH_PG_URL) with one account owning ROWS chat usage rows and TASKS tasks spread over the last 90
// days (5 keys, 17 models), signs in through the real panel routes, then times GET /panel/analytics
// (the whole page: session, SQL aggregation, shaping, HTML) through Fastify's inject for each range:
// the last day (by hour), week, month and a custom 90-day range (every row). Prints the median and
// the slowest of RUNS answers against the 300 ms target, and the first answer apart. The janitor
// seals finished days into daily totals (usage_daily) hourly; it runs once before the pages, as in
// production, and its time is printed too. A first view of days it has not sealed yet seals them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { buildGengate } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { type Db, openPostgres, openSqlite } from '../src/storage/db.js';
import { runJanitorOnce } from '../src/workers/janitor.js';

const TARGET_MS = 300;
const DAY = 86_400_000;
const ADMIN = 'bench-admin-token-0123456789';

const arg = (name: string, fallback: number) => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found ? Number(found.split('=')[1]) : fallback;
};
const ROWS = arg('rows', 1_000_000);
const TASKS = arg('tasks', 50_000);
const RUNS = arg('runs', 7);
const DAYS = arg('days', 90);
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

interface Result {
  engine: string;
  page: string;
  /** The first answer, after the janitor has sealed the finished days (caches are cold). */
  first: number;
  median: number;
  max: number;
}

async function seed(db: Db, accountId: number, keyIds: number[], now: number): Promise<void> {
  const span = DAYS * DAY;
  const keys = `array[${keyIds.join(',')}]`;
  if (db.engine === 'postgres') {
    await sql`insert into usage_records (id, account_id, key_id, model_id, input_tokens, output_tokens, cost, status, latency_ms, created_at, provider, provider_cost)
      select 'u' || i, ${accountId}, (${sql.raw(keys)})[1 + i % ${keyIds.length}], 'model-' || (i % 17),
             100 + i % 900, 20 + i % 300, 1000 + i % 50000, 'completed', 500, ${now}::bigint - (i::bigint * ${span}::bigint / ${ROWS}),
             'provider-' || (i % 2), case when i % 17 < 12 then 800 + i % 40000 else null end
      from generate_series(0, ${ROWS - 1}) i`.execute(db.kysely);
    await sql`insert into tasks (id, account_id, key_id, model_id, billing_model_id, kind, status, params, hold_amount, cost, error, provider, run_at, created_at, updated_at, finished_at)
      select 't' || i, ${accountId}, (${sql.raw(keys)})[1 + i % ${keyIds.length}], 'media-' || (i % 5), 'media-' || (i % 5), 'image',
             case when i % 10 = 0 then 'failed' else 'completed' end, '{}', 5000000,
             case when i % 10 = 0 then 0 else 4500000 end,
             case when i % 20 = 0 then 'Timeout while waiting for provider response' when i % 10 = 0 then 'Provider billing error' else null end,
             'simulator', 0, ${now}::bigint - (i::bigint * ${span}::bigint / ${TASKS}), 0, 0
      from generate_series(0, ${TASKS - 1}) i`.execute(db.kysely);
    await sql`vacuum analyze usage_records`.execute(db.kysely);
    await sql`vacuum analyze tasks`.execute(db.kysely);
    return;
  }
  const keyAt = (i: string) =>
    sql.raw(`case ${keyIds.map((k, n) => `when ${i} % ${keyIds.length} = ${n} then ${k}`).join(' ')} end`);
  await sql`with recursive n(i) as (select 0 union all select i + 1 from n where i < ${ROWS - 1})
    insert into usage_records (id, account_id, key_id, model_id, input_tokens, output_tokens, cost, status, latency_ms, created_at, provider, provider_cost)
    select 'u' || i, ${accountId}, ${keyAt('i')}, 'model-' || (i % 17), 100 + i % 900, 20 + i % 300,
           1000 + i % 50000, 'completed', 500, ${now} - (i * ${span} / ${ROWS}),
           'provider-' || (i % 2), case when i % 17 < 12 then 800 + i % 40000 else null end
    from n`.execute(db.kysely);
  await sql`with recursive n(i) as (select 0 union all select i + 1 from n where i < ${TASKS - 1})
    insert into tasks (id, account_id, key_id, model_id, billing_model_id, kind, status, params, hold_amount, cost, error, provider, run_at, created_at, updated_at, finished_at)
    select 't' || i, ${accountId}, ${keyAt('i')}, 'media-' || (i % 5), 'media-' || (i % 5), 'image',
           case when i % 10 = 0 then 'failed' else 'completed' end, '{}', 5000000,
           case when i % 10 = 0 then 0 else 4500000 end,
           case when i % 20 = 0 then 'Timeout while waiting for provider response' when i % 10 = 0 then 'Provider billing error' else null end,
           'simulator', 0, ${now} - (i * ${span} / ${TASKS}), 0, 0
    from n`.execute(db.kysely);
}

async function measure(engine: 'sqlite' | 'postgres', db: Db): Promise<Result[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gengate-bench-panel-'));
  const config = loadConfig(
    { NODE_ENV: 'test', DEMO: 'false' },
    { adminToken: ADMIN, logLevel: 'silent', dataDir },
  );
  const gengate = await buildGengate(config, { db });
  try {
    const { ctx, http } = gengate;
    const account = await ctx.accounts.createAccount({ messaging_id: 4242 }, { actor: 'bench' });
    const keyIds: number[] = [];
    for (let i = 0; i < 5; i++)
      keyIds.push(
        (await ctx.accounts.createKey(account.id, { name: `key ${i}` }, { actor: 'bench' })).key.id,
      );
    const now = Date.now();
    const started = performance.now();
    await seed(db, account.id, keyIds, now);
    console.error(
      `[${engine}] seeded ${ROWS} usage rows and ${TASKS} tasks in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    const sealStarted = performance.now();
    await runJanitorOnce(ctx);
    console.error(
      `[${engine}] the janitor sealed the finished days in ${((performance.now() - sealStarted) / 1000).toFixed(1)} s`,
    );

    const link = await http.inject({
      method: 'POST',
      url: '/admin/accounts/4242/login-link',
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    const token = new URL(link.json().url).searchParams.get('token')!;
    const login = await http.inject({
      method: 'POST',
      url: '/panel/login',
      payload: new URLSearchParams({ token }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    const setCookie = [login.headers['set-cookie']]
      .flat()
      .find((c) => String(c).startsWith('gengate_session='));
    if (!setCookie) throw new Error(`sign-in failed: ${login.statusCode} ${login.body.slice(0, 200)}`);
    const cookie = String(setCookie).split(';')[0];

    const today = new Date(now).toISOString().slice(0, 10);
    const from90 = new Date(now - 89 * DAY).toISOString().slice(0, 10);
    const from30 = new Date(now - 29 * DAY).toISOString().slice(0, 10);
    const fromAll = new Date(now - (DAYS - 1) * DAY).toISOString().slice(0, 10);
    const adminAuth = { authorization: `Bearer ${ADMIN}` };
    const pages: [string, string, Record<string, string>?][] = [
      [
        'margin report, last 30 days (admin API)',
        `/admin/reports/margin?from=${from30}&to=${today}`,
        adminAuth,
      ],
      [
        `margin report, all ${DAYS} days (admin API)`,
        `/admin/reports/margin?from=${fromAll}&to=${today}`,
        adminAuth,
      ],
      ['analytics, last 24 hours (by hour)', '/panel/analytics?range=day'],
      ['analytics, last 7 days', '/panel/analytics?range=week'],
      ['analytics, last 30 days (default)', '/panel/analytics'],
      ['analytics, custom 90 days (every row)', `/panel/analytics?range=custom&from=${from90}&to=${today}`],
      ['analytics, one key, 30 days', `/panel/analytics?key=${keyIds[0]}`],
    ];
    const results: Result[] = [];
    for (const [name, url, headers = { cookie }] of pages) {
      const times: number[] = [];
      let first = 0;
      for (let run = 0; run <= RUNS; run++) {
        const t0 = performance.now();
        const res = await http.inject({ method: 'GET', url, headers });
        const ms = performance.now() - t0;
        if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
        if (run > 0) times.push(ms);
        else first = ms; // reported apart: the first view of a range warms the page's caches
      }
      times.sort((a, b) => a - b);
      results.push({
        engine,
        page: name,
        first,
        median: times[Math.floor(times.length / 2)],
        max: times[times.length - 1],
      });
    }
    return results;
  } finally {
    await gengate.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function pgReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

const results: Result[] = [];
const dir = mkdtempSync(join(tmpdir(), 'gengate-bench-sqlite-'));
const sqlite = openSqlite(join(dir, 'bench.db'));
try {
  results.push(...(await measure('sqlite', sqlite)));
} finally {
  await sqlite.close();
  rmSync(dir, { recursive: true, force: true });
}

if (process.argv.includes('--pg')) {
  if (!(await pgReachable())) console.error(`[postgres] SKIP: nothing answers at ${PG_URL}`);
  else {
    const schema = `bench_panel_${process.pid}`;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    const url = `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const db = openPostgres(url);
    try {
      results.push(...(await measure('postgres', db)));
    } finally {
      await db.close();
      await admin.query(`drop schema ${schema} cascade`);
      await admin.end();
    }
  }
}

console.log(
  `\nPanel analytics page and margin report, ${DAYS} days, ${ROWS.toLocaleString('en')} usage rows + ${TASKS.toLocaleString('en')} tasks, median and slowest of ${RUNS} (load: ${(
    await import('node:os')
  )
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')})\n`,
);
console.log('| engine | page | first view ms | median ms | slowest ms | target (median) |');
console.log('|---|---|---:|---:|---:|---|');
for (const r of results) {
  const verdict = r.median <= TARGET_MS ? 'PASS' : 'MISS';
  console.log(
    `| ${r.engine} | ${r.page} | ${r.first.toFixed(0)} | ${r.median.toFixed(0)} | ${r.max.toFixed(0)} | ${verdict} (≤ ${TARGET_MS}) |`,
  );
}
