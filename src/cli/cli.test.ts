// The `gengate` CLI, run as an operator runs it: `node bin/gengate.mjs …` on a DATA_DIR of its own.
// Independent command chains run concurrently.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DatabaseSync } from '@photostructure/sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../domain/keys/api-key.js';
import { FAL_TEST_KEY, FalFake } from '../testing/fakes/fal.js';

const ROOT = resolve(import.meta.dirname, '../..');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gengate-cli-'));
  dirs.push(dir);
  return dir;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with only the settings a test names: nothing leaks in from the caller's environment. */
function gengate(dir: string, ...args: string[]): Promise<Run> {
  return gengateWith({}, dir, ...args);
}

function gengateWith(extraEnv: Record<string, string>, dir: string, ...args: string[]): Promise<Run> {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dir,
    DATA_DIR: dir,
    NODE_ENV: 'test',
    ...extraEnv,
  };
  return new Promise((resolvePromise) => {
    execFile(
      process.execPath,
      ['bin/gengate.mjs', ...args],
      { cwd: ROOT, env, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolvePromise({ code, stdout, stderr });
      },
    );
  });
}

function database(dir: string) {
  return new DatabaseSync(join(dir, 'gengate.db'));
}

// Each command is a process paying the whole start-up; on a loaded machine that takes seconds.
describe.concurrent('gengate CLI', { timeout: 240_000 }, () => {
  it('providers check calls each provider once and prints reachable, auth ok and latency', async () => {
    const fal = await new FalFake().start();
    try {
      const dir = dataDir();
      const file = join(dir, 'providers.yaml');
      writeFileSync(
        file,
        [
          'providers:',
          `  fal_ok: {type: fal, base_url: "${fal.origin}", api_key: "env:FAL_KEY"}`,
          `  fal_wrong_key: {type: fal, base_url: "${fal.origin}", api_key: "not-the-key"}`,
          '  fal_down: {type: fal, base_url: "http://127.0.0.1:1", api_key: "k"}',
          '  claude: {type: anthropic, base_url: "http://127.0.0.1:1", api_key: "k"}',
          'routes:',
          '  kling-2-1: {provider: fal_ok, model: fal-ai/kling-video/v2.1/standard/text-to-video}',
        ].join('\n'),
      );
      const run = await gengateWith(
        { PROVIDERS_FILE: file, FAL_KEY: FAL_TEST_KEY },
        dir,
        'providers',
        'check',
      );
      expect(run.code).toBe(1);
      const lines = run.stdout.trim().split('\n');
      expect(lines[0]).toMatch(/^provider\s+type\s+reachable\s+auth ok\s+latency\s+detail$/);
      const row = (name: string) => lines.find((line) => line.startsWith(`${name} `)) ?? '';
      expect(row('fal_ok')).toMatch(/^fal_ok\s+fal\s+yes\s+yes\s+\d+ ms$/);
      expect(row('fal_wrong_key')).toMatch(/^fal_wrong_key\s+fal\s+yes\s+NO\s+\d+ ms\s+HTTP 401/);
      expect(row('fal_down')).toMatch(/^fal_down\s+fal\s+NO\s+/);
      expect(row('claude')).toMatch(/^claude\s+anthropic\s+-\s+-\s+-\s+no check for this type$/);
      // Only status reads, never a generation.
      expect(fal.server.requests.every((r) => r.method === 'GET')).toBe(true);
    } finally {
      await fal.close();
    }
  });

  it('a PROVIDERS_FILE that routes a media model to a type without a task adapter stops the start, listing every problem', async () => {
    const dir = dataDir();
    const file = join(dir, 'providers.json');
    writeFileSync(
      file,
      JSON.stringify({
        providers: {
          claude: { type: 'anthropic', base_url: 'http://127.0.0.1:1', api_key: 'k' },
          kling: { type: 'kling', base_url: 'http://127.0.0.1:1' },
          odd: { type: 'midjourney', base_url: 'http://127.0.0.1:1' },
        },
        routes: {
          'kling-2-1': [{ provider: 'kling', model: 'kling-v2-1' }, { provider: 'claude' }],
          'flux-1-1-pro': { provider: 'nowhere' },
          'claude-sonnet-4': { provider: 'claude', model: 'claude-sonnet-4-20250514' },
        },
      }),
    );
    const run = await gengateWith({ PROVIDERS_FILE: file }, dir, 'providers', 'check');
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('providers.odd.type must be one of');
    expect(run.stderr).toContain('routes.flux-1-1-pro.provider must name a configured provider');
    // With the shape fixed, the adapter problems are listed together.
    writeFileSync(
      file,
      JSON.stringify({
        providers: {
          claude: { type: 'anthropic', base_url: 'http://127.0.0.1:1', api_key: 'k' },
          kling: { type: 'kling', base_url: 'http://127.0.0.1:1' },
        },
        routes: {
          'kling-2-1': [{ provider: 'kling', model: 'kling-v2-1' }, { provider: 'claude' }],
          'claude-sonnet-4': { provider: 'claude', model: 'claude-sonnet-4-20250514' },
        },
      }),
    );
    const fixed = await gengateWith({ PROVIDERS_FILE: file }, dir, 'serve');
    expect(fixed.code).not.toBe(0);
    expect(fixed.stderr).toContain('providers.kling.access_key is required');
    expect(fixed.stderr).toContain('providers.kling.secret_key is required');
    expect(fixed.stderr).toContain(
      'routes.kling-2-1[1]: kling-2-1 is a video model and provider "claude" is of type anthropic',
    );
    expect(fixed.stderr).not.toContain('claude-sonnet-4');
  });

  it('migrate creates the schema once, then has nothing to do', async () => {
    const dir = dataDir();
    const first = await gengate(dir, 'migrate');
    expect(first.code).toBe(0);
    // Every migration, in order, from the first one; later issues add their own to the list.
    expect(first.stdout).toMatch(
      /^applied: 001_foundation, 002_provider_jobs, 003_video_list(, \d{3}_\w+)*\n$/,
    );
    const second = await gengate(dir, 'migrate');
    expect(second).toMatchObject({ code: 0, stdout: 'database is up to date\n' });
    const db = database(dir);
    const tables = db.prepare("select name from sqlite_master where type = 'table'").all() as {
      name: string;
    }[];
    db.close();
    expect(tables.map((t) => t.name)).toEqual(
      expect.arrayContaining(['accounts', 'api_keys', 'ledger_entries', 'tasks', 'models', 'settings']),
    );
  });

  it('account create, key create (the full key printed once), topup, adjust, then ledger check passes and catches corruption', async () => {
    const dir = dataDir();
    const account = await gengate(dir, 'account', 'create', '--messaging-id', '42', '--coefficient', '1.25');
    expect(account.code).toBe(0);
    expect(JSON.parse(account.stdout)).toMatchObject({
      messaging_id: 42,
      coefficient: 1.25,
      webhook_secret: expect.stringMatching(/^whsec_/),
    });

    const created = await gengate(
      dir,
      'key',
      'create',
      '--account',
      '42',
      '--name',
      'prod',
      '--rate',
      '120',
      '--models',
      'seedance-2,gpt-4o',
    );
    expect(created.code).toBe(0);
    const { id, key_value } = JSON.parse(created.stdout) as { id: number; key_value: string };
    expect(key_value).toMatch(/^sk_live_[0-9A-Za-z]{43,}$/);
    expect(created.stdout.split(key_value)).toHaveLength(2);

    const topup = await gengate(dir, 'topup', String(id), '12.5', '--note', 'invoice 1');
    expect(topup).toMatchObject({ code: 0 });
    expect(JSON.parse(topup.stdout)).toEqual({ balance: 12.5 });
    const adjust = await gengate(dir, 'adjust', String(id), '-2.25', '--note', 'correction');
    expect(JSON.parse(adjust.stdout)).toEqual({ balance: 10.25 });

    const db = database(dir);
    const row = db.prepare('select * from api_keys where id = ?').get(id) as Record<string, unknown>;
    expect(row).toMatchObject({
      key_hash: hashApiKey(key_value),
      balance: 10_250_000,
      held: 0,
      rate_limit_per_min: 120,
      allowed_models: '["seedance-2","gpt-4o"]',
    });
    expect(JSON.stringify(row)).not.toContain(key_value);
    const entries = db
      .prepare('select kind, amount, balance_after, note from ledger_entries where key_id = ? order by id')
      .all(id);
    expect(entries).toEqual([
      { kind: 'topup', amount: 12_500_000, balance_after: 12_500_000, note: 'invoice 1' },
      { kind: 'adjust', amount: -2_250_000, balance_after: 10_250_000, note: 'correction' },
    ]);

    const clean = await gengate(dir, 'ledger', 'check');
    expect(clean).toMatchObject({ code: 0, stdout: 'ledger ok: every invariant holds\n' });

    // Money appears from nowhere, straight in the file.
    db.prepare('update api_keys set balance = balance + 1000000 where id = ?').run(id);
    db.close();
    const corrupt = await gengate(dir, 'ledger', 'check');
    expect(corrupt.code).toBe(1);
    expect(corrupt.stderr).toContain('ledger check failed: 1 violation(s)');
    expect(corrupt.stderr).toContain(
      `balance + held = sum of ledger entries: key ${id}: balance=11250000 held=0 ledger=10250000`,
    );
  });

  it('key create and key update set the expiry and the spend cap; a bad value is refused', async () => {
    const dir = dataDir();
    expect((await gengate(dir, 'account', 'create', '--messaging-id', '77')).code).toBe(0);
    const created = await gengate(
      dir,
      'key',
      'create',
      '--account',
      '77',
      '--expires',
      '2031-05-06T07:08:09Z',
      '--spend-limit',
      '250',
      '--spend-period',
      'day',
    );
    expect(created.code).toBe(0);
    const { id } = JSON.parse(created.stdout) as { id: number };
    expect(JSON.parse(created.stdout)).toMatchObject({
      expires_at: '2031-05-06T07:08:09.000Z',
      spend_limit_rub: 250,
      spend_limit_period: 'day',
    });
    const updated = await gengate(
      dir,
      'key',
      'update',
      String(id),
      '--expires',
      'none',
      '--spend-limit',
      '12.5',
    );
    expect(updated.code).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({
      expires_at: null,
      spend_limit_rub: 12.5,
      spend_limit_period: 'day',
    });
    const db = database(dir);
    expect(
      db.prepare('select expires_at, spend_limit, spend_limit_period from api_keys where id = ?').get(id),
    ).toEqual({
      expires_at: null,
      spend_limit: 12_500_000,
      spend_limit_period: 'day',
    });
    db.close();
    const bad = await gengate(dir, 'key', 'update', String(id), '--spend-period', 'fortnight');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('spend_limit_period must be one of day, week, month, total');
  });

  it('maintenance on and off', async () => {
    const dir = dataDir();
    const on = await gengate(dir, 'maintenance', 'on');
    expect(on.code).toBe(0);
    expect(JSON.parse(on.stdout)).toEqual({ enabled: true });
    const db = database(dir);
    const read = () =>
      (db.prepare("select value from settings where key = 'maintenance'").get() as { value: string }).value;
    expect(read()).toBe('on');
    const off = await gengate(dir, 'maintenance', 'off');
    expect(JSON.parse(off.stdout)).toEqual({ enabled: false });
    expect(read()).toBe('off');
    db.close();
  });

  it('models import FILE adds and replaces catalog entries', async () => {
    const dir = dataDir();
    const file = join(dir, 'models.json');
    writeFileSync(
      file,
      JSON.stringify({
        models: [
          {
            id: 'acme-video',
            name: 'Acme Video',
            provider: 'Acme',
            kind: 'video',
            unit: 'sec',
            priceRub: 7.5,
          },
          {
            id: 'seedance-2',
            name: 'Seedance 2.0',
            provider: 'ByteDance',
            kind: 'video',
            unit: 'shot',
            priceRub: 50,
          },
        ],
      }),
    );
    const imported = await gengate(dir, 'models', 'import', file);
    expect(imported).toMatchObject({ code: 0, stdout: 'imported 2 models\n' });
    const db = database(dir);
    const price = (id: string) =>
      (
        db.prepare('select price_micro from models where id = ?').get(id) as
          | { price_micro: number }
          | undefined
      )?.price_micro;
    expect(price('acme-video')).toBe(7_500_000);
    expect(price('seedance-2')).toBe(50_000_000);
    // The rest of the default catalog is still there.
    expect(price('sora-2')).toBeGreaterThan(0);
    db.close();

    writeFileSync(
      file,
      JSON.stringify({
        models: [{ id: 'bad', name: 'Bad', provider: 'X', kind: 'audio', unit: 'shot', priceRub: 1 }],
      }),
    );
    const refused = await gengate(dir, 'models', 'import', file);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('kind must be one of video, image, text');
  });

  it('reports operator mistakes with an exit code and a message', async () => {
    const dir = dataDir();
    const unknownKey = await gengate(dir, 'topup', '999', '5');
    expect(unknownKey).toMatchObject({ code: 1, stderr: 'error: Key not found\n' });
    // allowed_models takes catalog ids only, on create and on update; nothing is written.
    expect((await gengate(dir, 'account', 'create', '--messaging-id', '77')).code).toBe(0);
    const typo = await gengate(dir, 'key', 'create', '--account', '77', '--models', 'gpt-4o,gpt-4o-typo');
    expect(typo).toMatchObject({
      code: 1,
      stderr: 'error: allowed_models: "gpt-4o-typo" is not a model of the catalog\n',
    });
    const created = await gengate(dir, 'key', 'create', '--account', '77', '--models', 'gpt-4o');
    const { id } = JSON.parse(created.stdout) as { id: number };
    const update = await gengate(dir, 'key', 'update', String(id), '--models', 'sora-2,nope');
    expect(update).toMatchObject({
      code: 1,
      stderr: 'error: allowed_models: "nope" is not a model of the catalog\n',
    });
    const db = database(dir);
    expect(db.prepare('select count(*) as n from api_keys').get()).toEqual({ n: 1 });
    expect(db.prepare('select allowed_models from api_keys').get()).toEqual({ allowed_models: '["gpt-4o"]' });
    db.close();
    const unknownCommand = await gengate(dir, 'frobnicate');
    expect(unknownCommand.code).toBe(2);
    expect(unknownCommand.stderr).toContain('usage: gengate <command>');
  });
});
