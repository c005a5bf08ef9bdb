// The Dockerfile, checked without a Docker engine (these machines have only the client): the
// dockerfilelint linter finds nothing, the stages keep the compiler and the dev dependencies out of
// the final image, the final image runs as a non-root user with a working HEALTHCHECK, and every
// file it copies is in the build context. Then the runtime stage's layout is assembled from the
// Dockerfile's own COPY lines in a temporary directory, built, and served from: the nearest thing
// to running the image.
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  dockerignoreKeeps,
  execForm,
  parseCopy,
  parseDockerfile,
  ROOT,
  readRepoFile,
  type Stage,
  settingNames,
} from './dockerfile.js';

const require = createRequire(import.meta.url);
const dockerfilelint = require('dockerfilelint') as {
  run(configPath: string, content: string): { title: string; line: number; category: string }[];
};

const DOCKERFILE = readRepoFile('Dockerfile');
const IGNORE = readRepoFile('.dockerignore');
const stages = parseDockerfile(DOCKERFILE);
const final = stages.at(-1) as Stage;
const ops = (stage: Stage, op: string) => stage.instructions.filter((i) => i.op === op);

describe('Dockerfile', () => {
  it('passes dockerfilelint with no issue at all', () => {
    expect(dockerfilelint.run(ROOT, DOCKERFILE)).toEqual([]);
    // The linter is live: it does flag a known-bad file.
    const bad = dockerfilelint.run(
      ROOT,
      'FROM node\nRUN apt-get install python3\nHEALTHCHECK --bogus=1 CMD x\n',
    );
    expect(bad.map((item) => item.title)).toEqual(
      expect.arrayContaining(['Base Image Missing Tag', 'Invalid Argument Format']),
    );
  });

  it('is multi-stage, every base image pinned to a tag', () => {
    expect(stages.map((s) => s.name)).toEqual(['deps', 'build', 'runtime']);
    for (const stage of stages) {
      expect(stage.base).toMatch(/^node:\$\{NODE_VERSION\}-bookworm-slim$/);
    }
    expect(DOCKERFILE).toMatch(/^ARG NODE_VERSION=\d+$/m);
  });

  it('installs production dependencies only, with no compiler in any stage', () => {
    const installs = stages.flatMap((stage) =>
      ops(stage, 'RUN')
        .filter((run) => /\bnpm (ci|install|i)\b/.test(run.args))
        .map((run) => ({ stage: stage.name, args: run.args })),
    );
    // One install, in the deps stage, without dev dependencies; nothing installs them anywhere.
    expect(installs).toEqual([{ stage: 'deps', args: expect.stringContaining('npm ci --omit=dev') }]);
    // The SQLite driver ships its binaries: no stage installs a toolchain.
    for (const stage of stages)
      expect(
        ops(stage, 'RUN')
          .map((run) => run.args)
          .join('\n'),
      ).not.toMatch(/apt-get|python3|g\+\+/);

    // The final image gets node_modules from that install and has no toolchain of its own.
    const copies = ops(final, 'COPY').map((i) => parseCopy(i.args));
    expect(copies).toContainEqual({ from: 'deps', sources: ['/app/node_modules'], dest: 'node_modules' });
    expect(
      ops(final, 'RUN')
        .map((run) => run.args)
        .join('\n'),
    ).not.toMatch(/apt-get|python|g\+\+|npm/);
    // The build stage starts from the same production-only node_modules (esbuild is one of them).
    expect(ops(stages[1], 'COPY').map((i) => parseCopy(i.args))).toContainEqual({
      from: 'deps',
      sources: ['/app/node_modules'],
      dest: 'node_modules',
    });
    expect(ops(stages[1], 'RUN').map((run) => run.args)).toEqual(['npm run build']);
    const pkg = JSON.parse(readRepoFile('package.json'));
    expect(pkg.scripts.build).toBe('node scripts/build.mjs');
    expect(Object.keys(pkg.dependencies)).toContain('esbuild');
    // No dev tool is copied in: tsx, vitest, typescript, biome and playwright are dev dependencies.
    for (const tool of ['tsx', 'vitest', 'typescript', '@biomejs/biome', 'playwright-core'])
      expect(pkg.devDependencies[tool], tool).toBeDefined();
  });

  it('runs as a non-root user with a HEALTHCHECK on /healthz, serving on the port it exposes', () => {
    const user = ops(final, 'USER');
    expect(user.map((u) => u.args)).toEqual(['node']);
    // Everything after USER runs unprivileged; nothing switches back.
    const userIndex = final.instructions.findIndex((i) => i.op === 'USER');
    expect(final.instructions.slice(userIndex).some((i) => i.op === 'RUN')).toBe(false);

    const [healthcheck] = ops(final, 'HEALTHCHECK');
    expect(healthcheck.args).toMatch(/--interval=\d+s --timeout=\d+s --retries=\d+ CMD \[/);
    expect(execForm(healthcheck.args)).toEqual(['node', 'deploy/healthcheck.mjs']);
    expect(readRepoFile('deploy/healthcheck.mjs')).toContain('/healthz');

    const env = Object.fromEntries(
      ops(final, 'ENV').flatMap((i) => [...i.args.matchAll(/([A-Z_]+)=(\S+)/g)].map((m) => [m[1], m[2]])),
    );
    expect(env).toEqual({ NODE_ENV: 'production', HOST: '0.0.0.0', PORT: '8080', DATA_DIR: '/data' });
    const settings = settingNames();
    for (const name of Object.keys(env)) expect(settings.has(name), name).toBe(true);
    expect(ops(final, 'EXPOSE').map((i) => i.args)).toEqual([env.PORT]);

    expect(execForm(ops(final, 'ENTRYPOINT')[0].args)).toEqual([
      'node',
      '--max-semi-space-size=32',
      'bin/gengate.mjs',
    ]);
    expect(execForm(ops(final, 'CMD')[0].args)).toEqual(['serve', '--role', 'all']);
  });

  it('copies only files that exist and that .dockerignore keeps in the context', () => {
    const fromContext = stages.flatMap((stage) =>
      ops(stage, 'COPY')
        .map((i) => parseCopy(i.args))
        .filter((copy) => copy.from === undefined)
        .flatMap((copy) => copy.sources),
    );
    expect(fromContext.length).toBeGreaterThan(5);
    for (const source of fromContext) {
      expect(existsSync(join(ROOT, source)), source).toBe(true);
      expect(dockerignoreKeeps(IGNORE, source), source).toBe(true);
    }
    expect(dockerignoreKeeps(IGNORE, 'src/main.ts')).toBe(true);
    for (const left of [
      'node_modules',
      'data/gengate.db',
      'dist/main.js',
      '.git/HEAD',
      'src/app.test.ts',
      '.env',
    ])
      expect(dockerignoreKeeps(IGNORE, left), left).toBe(false);
  });
});

const started: ChildProcess[] = [];
const servers: Server[] = [];
const dirs: string[] = [];
afterAll(() => {
  for (const child of started) child.kill('SIGKILL');
  for (const server of servers) server.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs the image's HEALTHCHECK script; its exit code. (Asynchronously: the servers it probes are ours.) */
function healthcheck(env: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'deploy/healthcheck.mjs')],
      { env: { PATH: process.env.PATH, ...env }, timeout: 10_000 },
      (error) => resolve(error ? Number((error as { code?: unknown }).code ?? 1) : 0),
    );
  });
}

async function serve(status: number): Promise<number> {
  const server = createServer((req, res) => {
    res.writeHead(req.url === '/healthz' ? status : 404);
    res.end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function freePort(): Promise<number> {
  const port = await serve(200);
  await new Promise((resolve) => servers.pop()?.close(resolve));
  return port;
}

describe('the image at run time', () => {
  it('HEALTHCHECK: healthy when /healthz answers 2xx on PORT, else on METRICS_PORT (a worker)', async () => {
    const healthy = await serve(200);
    const failing = await serve(503);
    const closed = await freePort();
    expect(await healthcheck({ PORT: String(healthy) })).toBe(0);
    expect(await healthcheck({ PORT: String(failing) })).toBe(1);
    expect(await healthcheck({ PORT: String(closed) })).toBe(1);
    // A worker: nothing on PORT, its metrics listener answers.
    expect(await healthcheck({ PORT: String(closed), METRICS_PORT: String(healthy) })).toBe(0);
    // An API that answers badly is unhealthy, whatever else listens.
    expect(await healthcheck({ PORT: String(failing), METRICS_PORT: String(healthy) })).toBe(1);
  });

  it('the runtime stage, laid out from its COPY lines, runs the compiled build and serves /healthz', {
    timeout: 120_000,
  }, async () => {
    const app = mkdtempSync(join(tmpdir(), 'gengate-image-'));
    dirs.push(app);
    // The build stage's src/ and dist/ are the repository's src/ and a fresh build of it.
    for (const instruction of ops(final, 'COPY')) {
      const copy = parseCopy(instruction.args);
      for (const source of copy.sources) {
        const from = copy.from === 'deps' || copy.from === 'build' ? source.replace(/^\/app\//, '') : source;
        if (from === 'dist') continue;
        const target = join(app, copy.dest.endsWith('/') ? join(copy.dest, basename(from)) : copy.dest);
        mkdirSync(dirname(target), { recursive: true });
        // node_modules is linked, not copied (the test machine's has dev dependencies too).
        if (from === 'node_modules') symlinkSync(join(ROOT, 'node_modules'), target, 'dir');
        else
          cpSync(join(ROOT, from), target, { recursive: true, filter: (path) => !path.endsWith('.test.ts') });
      }
    }
    for (const expected of [
      'package.json',
      'bin/gengate.mjs',
      'scripts/build.mjs',
      'src/main.ts',
      'deploy/healthcheck.mjs',
    ])
      expect(existsSync(join(app, expected)), expected).toBe(true);
    execFileSync(process.execPath, [join(app, 'scripts/build.mjs')], { stdio: 'ignore', timeout: 90_000 });
    // The RUN line: the build is the newest thing, so bin/gengate.mjs takes dist/ (never tsx).
    const now = new Date();
    utimesSync(join(app, 'dist/.built'), now, now);
    const fresh = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import('./scripts/build.mjs').then((m) => console.log(m.buildIsFresh()))",
      ],
      { cwd: app, encoding: 'utf8' },
    );
    expect(fresh.trim()).toBe('true');
    execFileSync(process.execPath, ['bin/gengate.mjs', 'help'], { cwd: app, stdio: 'ignore' });

    const port = await freePort();
    const data = mkdtempSync(join(tmpdir(), 'gengate-image-data-'));
    dirs.push(data);
    const entrypoint = execForm(ops(final, 'ENTRYPOINT')[0].args);
    const command = execForm(ops(final, 'CMD')[0].args);
    const child = spawn(process.execPath, [...entrypoint.slice(1), ...command], {
      cwd: app,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: String(port),
        DATA_DIR: data,
      },
      stdio: 'ignore',
    });
    started.push(child);
    const deadline = Date.now() + 30_000;
    let code = 1;
    while (Date.now() < deadline) {
      code = await healthcheck({ PORT: String(port) });
      if (code === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(code).toBe(0);
    // The compiled build serves the whole app: its status page sees the process's own worker.
    const status = (await (await fetch(`http://127.0.0.1:${port}/status.json`)).json()) as {
      components: { id: string; status: string }[];
    };
    expect(status.components.find((c) => c.id === 'workers')?.status).toBe('operational');
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  });
});
