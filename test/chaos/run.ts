// `npm run test:chaos`: 2 API and 2 worker processes on a fresh PostgreSQL schema and a private
// Redis, a few thousand mixed tasks and chat requests, a SIGKILL of a random process every few
// seconds (restarted), one Redis restart; then the checks of checks.ts. Prints a report with the seed
// and the fault schedule; exits 1 on any violation. One model (provider-pool.ts) routes to a pool of
// two accounts, one of which never answers: its breaker must open and no task may fail for it.
//   --seed N          reproduce a run's choices (default: random)
//   --tasks N         tasks to send at most (default 2500)
//   --duration S      seconds of load and faults (default 90): the load stops then, sent or not
//   --save            also write the report to bench/results/chaos/
//   --keep            keep the database schema for inspection
// Environment: CHAOS_DATABASE_URL (else TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test).
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { openPostgres } from '../../src/storage/db.js';
import { migrateToLatest } from '../../src/storage/migrations.js';
import { freeTcpPort, RedisServer } from '../../src/testing/redis-server.js';
import { compileSources } from './build.js';
import { runChecks } from './checks.js';
import { GengateProcess, ROOT, runCli, type Submission, useEntry } from './cluster.js';
import { type KeyInfo, LoadDriver, sleep } from './load.js';
import { providerPoolCheck, writeProvidersFile } from './provider-pool.js';
import { Random } from './random.js';
import { FlakyReceiver } from './receiver.js';
import { type FaultEvent, formatReport } from './report.js';
import { CHAOS_RECONCILE_MS, TopupLoad } from './topups.js';

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(`--${name}`);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};

const seed = option('seed', randomBytes(4).readUInt32LE(0));
const totalTasks = option('tasks', 2_500);
const durationS = option('duration', 90);
// Short, so that work of a killed process is taken over within seconds; long enough that a worker
// slowed down by a loaded machine keeps its tasks.
const LEASE_MS = 5_000;
const PROVIDER_TIMEOUT_MS = 20_000;
const ADMIN_TOKEN = `chaos-admin-${randomBytes(12).toString('hex')}`;
const BASE_URL =
  process.env.CHAOS_DATABASE_URL ??
  process.env.TEST_DATABASE_URL ??
  'postgres://postgres@127.0.0.1:5432/test';

const random = new Random(seed);
const faults: FaultEvent[] = [];
const submissions: Submission[] = [];
/** `role: message` → how often the processes logged it at level error. */
const loggedErrors = new Map<string, number>();
const startedAt = Date.now();
const at = () => (Date.now() - startedAt) / 1000;
const log = (message: string) => console.error(`[chaos ${at().toFixed(1)}s] ${message}`);

const schema = `chaos_${randomBytes(5).toString('hex')}`;
const databaseUrl = `${BASE_URL}${BASE_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
let redis: RedisServer | undefined;
let processes: GengateProcess[] = [];
const receiver = new FlakyReceiver(new Random(seed ^ 0x5eed), 0.2);
const topupLoad = new TopupLoad(new Random(seed ^ 0x70b0));
const buildDir = join(ROOT, 'test/chaos', `.build-${schema}`);

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: BASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function adminCall(api: GengateProcess, method: string, path: string, body?: unknown) {
  const res = await fetch(`${api.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json as Record<string, unknown>;
}

async function main(): Promise<number> {
  log(`seed ${seed}, ${totalTasks} tasks over ${durationS} s, schema ${schema}`);
  useEntry(await compileSources(ROOT, buildDir));
  await withAdmin((c) => c.query(`create schema ${schema}`));
  const db = openPostgres(databaseUrl, 2);
  await migrateToLatest(db);
  await db.close();
  redis = await RedisServer.start();
  const webhookUrl = await receiver.start();
  // Top-ups by card against a loopback YooKassa, with duplicate and lost notifications.
  const paymentEnv = await topupLoad.start();
  // A free port, left closed: the failing account of the provider pool.
  const providersFile = writeProvidersFile(buildDir, await freeTcpPort());

  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NODE_ENV: 'production',
    DEMO: 'false',
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url,
    ADMIN_TOKEN,
    LEASE_MS: String(LEASE_MS),
    WORKER_POLL_INTERVAL_MS: '50',
    SIM_LATENCY_MS: '500',
    REQUEUE_DELAY_MS: '300',
    PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS),
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_TIMEOUT_MS: '3000',
    WEBHOOK_RETRY_DELAYS_MS: '300,1000',
    DEFAULT_RATE_LIMIT_PER_MIN: '1000000',
    LOG_LEVEL: 'warn',
    ...paymentEnv,
    PROVIDERS_FILE: providersFile,
    // Short, so the failing account is probed (and found failing) several times within a run.
    PROVIDER_BREAKER_COOLDOWN_MS: '2000',
    PROVIDER_RECHECK_MS: '1000',
  };
  const onSubmission = (s: Submission) => submissions.push(s);
  const onError = (name: string, message: string) => {
    const key = `${name.replace(/-\d$/, '')}: ${message}`;
    loggedErrors.set(key, (loggedErrors.get(key) ?? 0) + 1);
  };
  const [apiPort1, apiPort2] = [await freeTcpPort(), await freeTcpPort()];
  processes = [
    new GengateProcess('api-1', 'api', env, onSubmission, onError, apiPort1),
    new GengateProcess('api-2', 'api', env, onSubmission, onError, apiPort2),
    // Workers log at info: the 'task submitted' lines count submissions.
    new GengateProcess('worker-1', 'worker', { ...env, LOG_LEVEL: 'info' }, onSubmission, onError),
    new GengateProcess('worker-2', 'worker', { ...env, LOG_LEVEL: 'info' }, onSubmission, onError),
  ];
  await Promise.all(processes.map((p) => p.start()));
  const apis = processes.filter((p) => p.role === 'api');
  log('cluster up');

  // Four funded keys and one kept short of money.
  let creditedMicro = 0;
  const keys: KeyInfo[] = [];
  for (let i = 0; i < 5; i++) {
    const messagingId = 900_000 + i;
    await adminCall(apis[0], 'POST', '/admin/accounts', { messaging_id: messagingId });
    const key = await adminCall(apis[0], 'POST', `/admin/accounts/${messagingId}/keys`, {
      name: `chaos-${i}`,
    });
    const poor = i === 4;
    const amountRub = poor ? 30 : 1_000_000;
    await adminCall(apis[0], 'POST', `/admin/keys/${key.id}/topup`, { amount_rub: amountRub });
    creditedMicro += amountRub * 1_000_000;
    keys.push({ id: Number(key.id), secret: String(key.key_value), poor });
  }

  const load = new LoadDriver(random, apis, keys, webhookUrl);
  topupLoad.attach(apis, keys);
  const deadline = Date.now() + durationS * 1000;
  const restarts: Promise<void>[] = [];

  const faultLoop = (async () => {
    let redisRestarted = false;
    while (Date.now() < deadline) {
      await sleep(random.int(2_500, 5_000));
      if (Date.now() >= deadline) break;
      if (!redisRestarted && Date.now() > deadline - (durationS * 1000) / 2) {
        redisRestarted = true;
        faults.push({ at: at(), target: 'redis', action: 'SIGKILL, restarted after 1 s' });
        log('redis: SIGKILL');
        await redis!.kill();
        await sleep(1_000);
        await redis!.restart();
        log('redis: back');
        continue;
      }
      // A process still starting is left alone: each fault hits a process at work.
      const serving = processes.filter((p) => p.serving);
      if (serving.length === 0) continue;
      const victim = random.pick(serving);
      const downMs = random.int(200, 1_500);
      faults.push({ at: at(), target: victim.name, action: `SIGKILL, restarted after ${downMs} ms` });
      log(`${victim.name}: SIGKILL`);
      await victim.kill();
      restarts.push(
        sleep(downMs)
          .then(() => victim.start())
          .catch((error) => log(`${victim.name} did not restart: ${error}`)),
      );
    }
  })();

  const topUps = (async () => {
    let count = 0;
    while (Date.now() < deadline) {
      await sleep(random.int(3_000, 6_000));
      const key = random.chance(0.5) ? keys[4] : random.pick(keys);
      const amountRub = random.int(5, 25);
      const out = await runCli(['topup', String(key.id), String(amountRub), '--note', 'chaos'], env);
      if (out.code === 0) {
        creditedMicro += amountRub * 1_000_000;
        count++;
      } else log(`CLI top-up failed (${out.code}): ${out.stderr.slice(0, 300)}`);
    }
    return count;
  })();

  const paymentLoad = topupLoad.run(deadline);
  const taskLoad = load.tasks(totalTasks, 16);
  const chatLoad = load.chats(3);
  // The load and the faults end together: at the deadline, or once every task was sent.
  const stopAtDeadline = setTimeout(() => load.stop(), Math.max(0, deadline - Date.now()));
  await Promise.all([taskLoad, faultLoop]);
  clearTimeout(stopAtDeadline);
  load.stop();
  await chatLoad;
  const cliTopUps = await topUps;
  topupLoad.stop();
  await paymentLoad;
  await Promise.all(restarts);
  log(`load done: ${load.records.tasks.length} task requests, ${load.records.chats.length} chat requests`);

  // Every process back, then the work drains.
  for (const p of processes) if (!p.alive) await p.start();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const drainStarted = Date.now();
  const drainLimitMs = PROVIDER_TIMEOUT_MS + 90_000;
  for (;;) {
    const { rows } = await client.query(
      `select (select count(*) from tasks where status not in ('completed', 'failed')) as tasks,
              (select count(*) from webhook_deliveries where status = 'pending') as hooks,
              (select count(*) from chat_holds) as chats`,
    );
    const left = rows[0];
    if (Number(left.tasks) + Number(left.hooks) + Number(left.chats) === 0) break;
    if (Date.now() - drainStarted > drainLimitMs) {
      log(`drain limit reached: ${JSON.stringify(left)}`);
      break;
    }
    await sleep(500);
  }
  // Paid top-ups whose notifications were lost: reconcile credits them within a few passes.
  await topupLoad.settle(client, CHAOS_RECONCILE_MS * 10);
  const drainS = (Date.now() - drainStarted) / 1000;
  log(`drained in ${drainS.toFixed(1)} s`);

  const ledgerCheck = await runCli(['ledger', 'check'], env);
  const results = await runChecks({
    db: client,
    tasks: load.records.tasks,
    submissions,
    acknowledged: receiver.acknowledged,
    creditedMicro: creditedMicro + topupLoad.paidMicro,
  });
  results.push(await topupLoad.check(client));
  results.push({
    name: '`gengate ledger check` is clean',
    violations:
      ledgerCheck.code === 0 ? [] : [`exit ${ledgerCheck.code}: ${ledgerCheck.stderr.trim().slice(0, 1000)}`],
    figures: { exit: ledgerCheck.code ?? 'signal' },
  });
  results.push(await providerPoolCheck(client));
  results.push({
    name: 'no unexpected answer',
    violations: load.records.unexpected.slice(0, 10),
    figures: { unexpected: load.records.unexpected.length },
  });
  await client.end();

  const report = formatReport({
    seed,
    schema,
    durationS,
    drainS,
    totalS: at(),
    faults,
    results,
    records: load.records,
    receiver: receiver.stats,
    cliTopUps,
    loggedErrors: [...loggedErrors].sort((a, b) => b[1] - a[1]),
    starts: Object.fromEntries(processes.map((p) => [p.name, p.starts])),
  });
  console.log(report);
  if (flag('save')) {
    const dir = join(ROOT, 'bench/results/chaos');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-seed-${seed}.md`);
    writeFileSync(file, report);
    log(`report written to ${file}`);
  }
  return results.some((r) => r.violations.length > 0) ? 1 : 0;
}

async function cleanup(): Promise<void> {
  await Promise.all(processes.map((p) => p.stop().catch(() => undefined)));
  await redis?.kill().catch(() => undefined);
  await receiver.stop().catch(() => undefined);
  await topupLoad.close().catch(() => undefined);
  rmSync(buildDir, { recursive: true, force: true });
  if (!flag('keep'))
    await withAdmin((c) => c.query(`drop schema if exists ${schema} cascade`)).catch(() => undefined);
}

// Interrupted: stop what this run started (by PID) before leaving.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    log(`${signal}: stopping`);
    void cleanup().finally(() => process.exit(130));
  });

let code = 1;
try {
  code = await main();
} catch (error) {
  console.error('chaos run failed:', error);
  for (const p of processes) console.error(`--- ${p.name} (pid ${p.pid})\n${p.lastOutput()}`);
} finally {
  await cleanup();
}
process.exit(code);
