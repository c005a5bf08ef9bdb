// gengate as the bench runs it: a child process (`node bin/gengate.mjs serve`) on a random loopback
// port with its own empty database (a temp DATA_DIR for SQLite, a fresh schema for PostgreSQL),
// the simulator at 0 ms, the chat model routed to the fake upstream, and one funded key created
// through the admin API, exactly as an operator would.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { fanOutDirectories } from '../src/objects/local-store.js';
import { brief, call } from './http.js';
import { freePort } from './ports.js';
import type { Child, ProcessGroup } from './processes.js';
import { STARTUP_FILE } from './profile.js';
import type { Engine } from './types.js';

export const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Generous enough that neither the balance nor the rate limit ever answers instead of the code measured. */
const BALANCE_RUB = 100_000_000;
const RATE_LIMIT_PER_MIN = 1_000_000;
const MESSAGING_ID = 700_001;

export interface GengateOptions {
  engine: Engine;
  /**
   * 'api' serves requests only (no workers consume what the load creates); 'all' adds the workers;
   * 'worker' runs the workers only (no HTTP port).
   */
  role: 'api' | 'all' | 'worker';
  /** Join another instance's PostgreSQL schema and use its funded key, instead of a fresh one. */
  joining?: GengateInstance;
  upstreamBaseUrl: string;
  chatModel: string;
  /** A Claude model routed to the fake upstream's Messages API (the Messages scenario). */
  messagesModel?: string;
  /** What this instance is for, in its name and its profile's file name. */
  purpose: string;
  /** Write a V8 CPU profile of the process into this directory when it exits. */
  profileDir?: string;
  /** Settings added to (or overriding) the bench's own, for experiments. */
  env?: Record<string, string>;
  /** Run the build of another checkout (its bin/gengate.mjs and dist/), to compare builds. */
  checkout?: string;
}

export interface GengateInstance {
  name: string;
  engine: Engine;
  origin: string;
  child: Child;
  /** `Authorization` header of the funded bench key. */
  auth: { authorization: string };
  /** The DATABASE_URL of its schema ('' on SQLite). */
  databaseUrl: string;
  settings: Record<string, string>;
  /** Runs `gengate ledger check` against this instance's database. */
  ledgerCheck(): Promise<{ ok: boolean; output: string }>;
  stop(): Promise<void>;
}

export async function startGengate(group: ProcessGroup, options: GengateOptions): Promise<GengateInstance> {
  const name = `gengate (${options.engine}, role ${options.role}, ${options.purpose})`;
  const dir = mkdtempSync(join(tmpdir(), 'gengate-bench-'));
  const cleanups: (() => Promise<void>)[] = [async () => rmSync(dir, { recursive: true, force: true })];
  const cleanup = async () => {
    forget();
    for (const step of cleanups.reverse()) await step().catch(() => {});
  };
  // An interrupted bench still removes the temp directory and the schema.
  const forget = group.onTeardown(cleanup);
  try {
    const providersFile = join(dir, 'providers.json');
    writeFileSync(
      providersFile,
      JSON.stringify({
        providers: {
          fake: { type: 'openai', base_url: options.upstreamBaseUrl, api_key: 'sk-fake' },
          // The same fake upstream's /v1/messages, as Anthropic: the Messages scenario's Claude model.
          'fake-anthropic': { type: 'anthropic', base_url: options.upstreamBaseUrl, api_key: 'sk-fake' },
        },
        routes: {
          [options.chatModel]: { provider: 'fake', model: options.chatModel },
          ...(options.messagesModel
            ? {
                [options.messagesModel]: {
                  provider: 'fake-anthropic',
                  model: `${options.messagesModel}-upstream`,
                },
              }
            : {}),
        },
      }),
    );
    // A process that stores results starts with the object store's fan-out directories in place, as
    // on a server that has stored results before: creating them is a one-time cost of a new data dir
    // (0.57 ms of CPU per mkdir on the bench VM, 2.3 s for all 4,096), which a fresh temp dir would
    // otherwise put inside the timed task runs (bench/NOTES.md, round 6).
    if (options.role !== 'api') createObjectFanOut(join(dir, 'data', 'objects'));
    const port = await freePort();
    const adminToken = randomBytes(24).toString('hex');
    const databaseUrl =
      options.joining?.databaseUrl ?? (options.engine === 'postgres' ? await createSchema(cleanups) : '');
    const env: Record<string, string> = {
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      DATA_DIR: join(dir, 'data'),
      DATABASE_URL: databaseUrl,
      REDIS_URL: options.engine === 'postgres' ? REDIS_URL : '',
      ADMIN_TOKEN: adminToken,
      PROVIDERS_FILE: providersFile,
      LOG_LEVEL: 'silent',
      SIM_LATENCY_MS: '0',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      DEMO: 'false',
      ...options.env,
    };
    const profileDir = options.profileDir
      ? join(options.profileDir, `gengate-${options.engine}-${options.purpose.replace(/\W+/g, '-')}`)
      : undefined;
    const profile = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
    // Extra node flags for every gengate child, for investigations (e.g. --perf-basic-prof).
    const extra = process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
    const entry = options.checkout ? join(options.checkout, 'bin', 'gengate.mjs') : 'bin/gengate.mjs';
    const spawnedAt = Date.now();
    const child = group.spawnNode(
      name,
      [...profile, ...extra, ...npmStartNodeFlags(), entry, 'serve', '--role', options.role],
      {
        env,
      },
    );
    cleanups.push(() => child.stop());
    const origin = `http://127.0.0.1:${port}`;
    if (options.role === 'worker') {
      await child.waitFor(/gengate worker running/, 60_000);
    } else {
      await child.waitFor(/gengate listening on/, 60_000);
      const health = await call(origin, 'GET', '/healthz');
      if (health.status !== 200) throw new Error(`${name}: /healthz answered ${brief(health)}`);
    }
    const auth = options.joining?.auth ?? (await createFundedKey(origin, adminToken));
    if (profileDir) {
      mkdirSync(profileDir, { recursive: true });
      writeFileSync(join(profileDir, STARTUP_FILE), JSON.stringify({ readyAfterMs: Date.now() - spawnedAt }));
    }
    const reported = {
      ...env,
      ADMIN_TOKEN: '(random)',
      PROVIDERS_FILE: '(temp file routing the chat and Messages models to the fake upstream)',
    };
    return {
      name,
      engine: options.engine,
      origin,
      child,
      auth,
      databaseUrl,
      settings: reported,
      async ledgerCheck() {
        const check = group.spawnNode(`${name} ledger check`, [entry, 'ledger', 'check'], {
          env: { ...env, PORT: '0' },
        });
        const code = await check.exited;
        return { ok: code === 0, output: check.tail() };
      },
      stop: cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/** The 4,096 directories LocalObjectStore files objects under. */
export function createObjectFanOut(root: string): void {
  for (const directory of fanOutDirectories()) mkdirSync(join(root, directory), { recursive: true });
}

/**
 * The Node flags of `npm start` (package.json), so that the bench measures gengate as it is started:
 * `node --max-semi-space-size=32 bin/gengate.mjs serve` gives `['--max-semi-space-size=32']`.
 */
export function npmStartNodeFlags(
  startScript: string = JSON.parse(readFileSync('package.json', 'utf8')).scripts.start,
): string[] {
  const words = startScript.trim().split(/\s+/);
  if (words[0] !== 'node') throw new Error(`npm start does not run node: ${startScript}`);
  const entry = words.indexOf('bin/gengate.mjs');
  if (entry < 0) throw new Error(`npm start does not run bin/gengate.mjs: ${startScript}`);
  return words.slice(1, entry);
}

/** A fresh schema in the test database; DATABASE_URL selects it through search_path. */
async function createSchema(cleanups: (() => Promise<void>)[]): Promise<string> {
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    await admin.query(`create schema ${schema}`);
  } finally {
    await admin.end();
  }
  cleanups.push(async () => {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      await client.query(`drop schema if exists ${schema} cascade`);
    } finally {
      await client.end();
    }
  });
  return `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

async function createFundedKey(origin: string, adminToken: string): Promise<{ authorization: string }> {
  const admin = { authorization: `Bearer ${adminToken}` };
  const account = await call(origin, 'POST', '/admin/accounts', {
    headers: admin,
    body: { messaging_id: MESSAGING_ID },
  });
  if (account.status !== 201) throw new Error(`POST /admin/accounts answered ${brief(account)}`);
  const key = await call(origin, 'POST', `/admin/accounts/${MESSAGING_ID}/keys`, {
    headers: admin,
    body: { name: 'bench', rate_limit_per_min: RATE_LIMIT_PER_MIN },
  });
  if (key.status !== 201) throw new Error(`POST /admin/accounts/${MESSAGING_ID}/keys answered ${brief(key)}`);
  const topup = await call(origin, 'POST', `/admin/keys/${key.json.id}/topup`, {
    headers: admin,
    body: { amount_rub: BALANCE_RUB },
  });
  if (topup.status !== 200) throw new Error(`POST /admin/keys/${key.json.id}/topup answered ${brief(topup)}`);
  return { authorization: `Bearer ${key.json.key_value}` };
}

/** Whether PostgreSQL and Redis answer, for --pg; the reason when they do not. */
export async function postgresAndRedisProblem(): Promise<string | undefined> {
  const problems: string[] = [];
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (error) {
    problems.push(`PostgreSQL at ${PG_URL} not reachable (${(error as Error).message})`);
  } finally {
    await client.end().catch(() => {});
  }
  const { hostname, port } = new URL(REDIS_URL);
  const redisOk = await new Promise<boolean>((resolve) => {
    import('node:net').then(({ connect }) => {
      const socket = connect({ host: hostname, port: Number(port || 6379) }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.setTimeout(3000, () => {
        socket.destroy();
        resolve(false);
      });
      socket.on('error', () => resolve(false));
    });
  });
  if (!redisOk) problems.push(`Redis at ${REDIS_URL} not reachable`);
  return problems.length ? problems.join('; ') : undefined;
}
