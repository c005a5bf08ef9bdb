// The README's examples, run as written (plain `node example.mjs` importing '@gengate/client' from
// the built package) against a real gengate; then `npm pack`, installed into an empty folder, runs
// the quick start there.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../src/testing/tasks.js';
import { Gengate } from '../src/index.js';
import { startDroppingProxy } from './dropping-proxy.js';
import { startTestServer, type TestServer, tasksOfAccount } from './server.js';

const run = promisify(execFile);
const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TSC = resolve(PACKAGE_DIR, '../../node_modules/typescript/bin/tsc');

/** The README's ```js blocks whose first line is `// example: <file name>`. */
export function readmeExamples(markdown: string): Map<string, string> {
  const examples = new Map<string, string>();
  for (const match of markdown.matchAll(/```js\n\/\/ example: (\S+)\n([\s\S]*?)```/g)) {
    examples.set(match[1]!, match[2]!);
  }
  return examples;
}

const examples = readmeExamples(readFileSync(join(PACKAGE_DIR, 'README.md'), 'utf8'));
let server: TestServer;
let scratch: string;

/** The environment of an example: this process's, without GENGATE_* or test-runner options. */
function envFor(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of Object.keys(env)) {
    if ((name.startsWith('GENGATE_') && !(name in extra)) || name === 'NODE_OPTIONS') delete env[name];
  }
  return env;
}

/** Writes the example into `dir` and runs it there with node. */
async function runExample(name: string, env: Record<string, string>, dir = scratch) {
  const code = examples.get(name);
  if (!code) throw new Error(`README has no example ${name}`);
  writeFileSync(join(dir, name), code);
  return run(process.execPath, [name], { cwd: dir, env: envFor(env), timeout: 60_000 });
}

beforeAll(async () => {
  server = await startTestServer();
  await run(process.execPath, [TSC, '-p', PACKAGE_DIR], { timeout: 120_000 });
  // '@gengate/client' resolves to this package (its dist/) from the scratch folder.
  scratch = mkdtempSync(join(tmpdir(), 'gengate-readme-'));
  mkdirSync(join(scratch, 'node_modules/@gengate'), { recursive: true });
  symlinkSync(PACKAGE_DIR, join(scratch, 'node_modules/@gengate/client'), 'dir');
  writeFileSync(join(scratch, 'package.json'), '{"private": true, "type": "module"}');
}, 180_000);
afterAll(async () => {
  await server?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('README examples against a real gengate', () => {
  it('has the examples the tests run', () => {
    expect([...examples.keys()]).toEqual([
      'quick-start.mjs',
      'step-by-step.mjs',
      'errors.mjs',
      'webhook-receiver.mjs',
      'account.mjs',
    ]);
  });

  it('quick start: a seedance-2 video is generated, awaited and downloaded', async () => {
    const key = await server.newKey(100);
    const { stdout } = await runExample('quick-start.mjs', {
      GENGATE_API_KEY: key.secret,
      GENGATE_BASE_URL: server.baseUrl,
    });
    const [url, saved] = stdout.trim().split('\n');
    expect(url).toMatch(new RegExp(`^${server.baseUrl}/objects/[\\w-]+\\.mp4$`));
    expect(saved).toBe('saved lighthouse.mp4');
    const video = readFileSync(join(scratch, 'lighthouse.mp4'));
    expect(video.subarray(4, 8).toString('latin1')).toBe('ftyp');
    const download = await fetch(url!);
    expect(Buffer.from(await download.arrayBuffer()).equals(video)).toBe(true);
    const client = new Gengate({ apiKey: key.secret, baseUrl: server.baseUrl });
    expect((await client.balance()).key_balance).toBe(100 - 45);
  }, 60_000);

  it('step by step, through a connection dropped after the server created the task: one task, not two', async () => {
    const key = await server.newKey(100);
    // The proxy cuts the answer to the first POST only: the retry goes through.
    const proxy = await startDroppingProxy(
      server.baseUrl,
      (request, index) => request.method === 'POST' && index === 0,
    );
    try {
      const { stdout } = await runExample('step-by-step.mjs', {
        GENGATE_API_KEY: key.secret,
        GENGATE_BASE_URL: proxy.url,
      });
      const taskId = /^created (\S+)$/m.exec(stdout)?.[1];
      expect(taskId).toBeTruthy();
      expect(stdout).toMatch(/^status (pending|processing|completed)$/m);
      expect(stdout).toMatch(new RegExp(`^image ${server.baseUrl}/objects/\\S+\\.png$`, 'm'));

      const posts = proxy.requests.filter((r) => r.method === 'POST');
      expect(posts.map((p) => [p.upstreamStatus, p.dropped])).toEqual([
        [202, true],
        [202, false],
      ]);
      expect(posts.map((p) => p.headers['idempotency-key'])).toEqual([
        'order-1842-image',
        'order-1842-image',
      ]);
      expect(await tasksOfAccount(server, key)).toEqual([taskId]);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('errors: a 402 is caught as InsufficientBalanceError', async () => {
    const poor = await server.newKey(0);
    const { stdout } = await runExample('errors.mjs', {
      GENGATE_API_KEY: poor.secret,
      GENGATE_BASE_URL: server.baseUrl,
    });
    expect(stdout.trim()).toMatch(/^Top up the key: Balance is below the cost of this request/);
    expect(await tasksOfAccount(server, poor)).toEqual([]);
  }, 60_000);

  it("webhooks: the receiver verifies the server's real webhook and refuses a forged one", async () => {
    const key = await server.newKey(100);
    const secret = await server.webhookSecret(key);
    const port = await freePort();
    writeFileSync(join(scratch, 'webhook-receiver.mjs'), examples.get('webhook-receiver.mjs')!);
    const receiver: ChildProcess = spawn(process.execPath, ['webhook-receiver.mjs'], {
      cwd: scratch,
      env: envFor({ GENGATE_WEBHOOK_SECRET: secret, PORT: String(port) }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    receiver.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    receiver.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const waitFor = async (pattern: RegExp, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(output)) {
        if (Date.now() > deadline) throw new Error(`no ${pattern} in receiver output: ${output}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    try {
      await waitFor(/^listening$/m);
      const hook = `http://127.0.0.1:${port}/hooks/gengate`;
      const forged = await fetch(hook, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': 'msg_forged',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
        },
        body: '{"task_id":"x","status":"completed","result":{}}',
      });
      expect(forged.status).toBe(400);

      const client = new Gengate({ apiKey: key.secret, baseUrl: server.baseUrl });
      const { task_id } = await client.generate({
        model_name: 'flux-1-1-pro',
        prompt: 'a red fox',
        webhook_url: hook,
      });
      await waitFor(new RegExp(`^${task_id} completed ${server.baseUrl}/objects/\\S+\\.png$`, 'm'));
      const task = await client.getTask(task_id);
      expect(output).toContain(`${task_id} completed ${(task.result as { image_url: string }).image_url}`);
      const delivery = await server.app.ctx.storage.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('task_id', '=', task_id)
        .executeTakeFirstOrThrow();
      expect(delivery.status).toBe('delivered');
    } finally {
      receiver.kill();
    }
  }, 60_000);

  it('account: balance, task list, models and one model', async () => {
    const key = await server.newKey(50);
    const client = new Gengate({ apiKey: key.secret, baseUrl: server.baseUrl });
    const done = await client.run({ model_name: 'flux-1-1-pro', prompt: 'listed' }, { intervalMs: 50 });
    const { stdout } = await runExample('account.mjs', {
      GENGATE_API_KEY: key.secret,
      GENGATE_BASE_URL: server.baseUrl,
    });
    expect(stdout).toContain('balance 45.5\n');
    expect(stdout).toContain(`${done.task_id} flux-1-1-pro 4.5\n`);
    expect(stdout).toMatch(/^seedance-2 45 RUB\/shot$/m);
    expect(stdout).toContain('{"params":{"model_name":"kling-2-1","prompt":"a lighthouse at dawn"}}');
  }, 60_000);
});

describe('npm pack', () => {
  it('the packed package installs into an empty folder and runs the quick start there', async () => {
    const work = mkdtempSync(join(tmpdir(), 'gengate-pack-'));
    try {
      const npmEnv = envFor({ npm_config_update_notifier: 'false', npm_config_fund: 'false' });
      const packed = await run('npm', ['pack', '--pack-destination', work], {
        cwd: PACKAGE_DIR,
        env: npmEnv,
        timeout: 120_000,
      });
      const tarball = join(work, packed.stdout.trim().split('\n').at(-1)!);
      expect(existsSync(tarball)).toBe(true);
      const listing = (await run('tar', ['-tzf', tarball])).stdout.split('\n');
      expect(listing).toEqual(
        expect.arrayContaining([
          'package/package.json',
          'package/README.md',
          'package/CHANGELOG.md',
          'package/dist/index.js',
          'package/dist/index.d.ts',
        ]),
      );
      expect(listing.filter((f) => /\/(src|test|scripts)\//.test(f))).toEqual([]);

      const folder = join(work, 'app');
      mkdirSync(folder);
      writeFileSync(join(folder, 'package.json'), '{"name": "scratch", "private": true, "type": "module"}');
      await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], {
        cwd: folder,
        env: npmEnv,
        timeout: 120_000,
      });
      const installed = JSON.parse(
        readFileSync(join(folder, 'node_modules/@gengate/client/package.json'), 'utf8'),
      );
      expect(installed.name).toBe('@gengate/client');

      const key = await server.newKey(100);
      const { stdout } = await runExample(
        'quick-start.mjs',
        { GENGATE_API_KEY: key.secret, GENGATE_BASE_URL: server.baseUrl },
        folder,
      );
      expect(stdout).toMatch(new RegExp(`^${server.baseUrl}/objects/\\S+\\.mp4\\nsaved lighthouse.mp4\\n$`));
      expect(readFileSync(join(folder, 'lighthouse.mp4')).subarray(4, 8).toString('latin1')).toBe('ftyp');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 180_000);
});
