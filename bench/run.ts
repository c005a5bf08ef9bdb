// `npm run bench`: starts everything it needs on loopback (a fake OpenAI upstream, the bare
// baselines, Portkey's gateway, a webhook receiver, the load process, and gengate on SQLite, then on
// PostgreSQL + Redis with --pg), measures the scenarios of issue 7, prints each figure next to its
// target, writes bench/results/latest.{md,json}, and tears every child process down.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { type GengateInstance, postgresAndRedisProblem, startGengate } from './gengate.js';
import { LoadGenerator } from './load.js';
import { type BenchOptions, parseOptions, USAGE } from './options.js';
import { portkeyVersion, startPortkey } from './portkey.js';
import { ProcessGroup, ROOT } from './processes.js';
import { renderProfileSummary, summarizeProfiles } from './profile.js';
import { writeReport } from './report.js';
import { chatThroughput } from './scenarios/chat.js';
import { type BenchEnvironment, log } from './scenarios/context.js';
import { firstStartTime } from './scenarios/first-start.js';
import { generateThroughput } from './scenarios/generate.js';
import { addedLatency } from './scenarios/latency.js';
import { messagesScenario } from './scenarios/messages.js';
import { taskPipeline } from './scenarios/pipeline.js';
import { startTime } from './scenarios/start-time.js';
import { streaming } from './scenarios/streaming.js';
import { taskGet } from './scenarios/tasks-get.js';
import { taskThroughput } from './scenarios/throughput.js';
import { startBaselines, startFakeUpstream, startWebhookReceiver } from './services.js';
import { makeFigure } from './targets.js';
import type { BenchReport, Engine, RunMeta } from './types.js';
import { wrkAvailable } from './wrk.js';

function commit(): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).trim();
    return dirty ? `${sha} + uncommitted changes` : sha;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

function meta(startedAt: Date, loadAverageAtStart: number[]): RunMeta {
  return {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    commit: commit(),
    node: process.version,
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    totalMemMb: Math.round(os.totalmem() / 2 ** 20),
    loadAverageAtStart,
    portkeyVersion: portkeyVersion(),
  };
}

/** One engine: an API-only gengate for the request scenarios, then fresh full ones for the task scenarios. */
async function benchEngine(
  env: BenchEnvironment,
  options: BenchOptions,
  group: ProcessGroup,
  engine: Engine,
  profileDir?: string,
): Promise<void> {
  const { only, settings } = options;
  const start = (role: 'api' | 'all' | 'worker', purpose: string, joining?: GengateInstance) =>
    startGengate(group, {
      engine,
      role,
      purpose,
      joining,
      upstreamBaseUrl: env.upstreamBaseUrl,
      chatModel: settings.chatModel,
      messagesModel: settings.messagesModel,
      profileDir,
    });
  if (
    only.has('chat') ||
    only.has('latency') ||
    only.has('streaming') ||
    only.has('generate') ||
    only.has('messages')
  ) {
    const api = await start('api', 'requests');
    log(`${api.name} at ${api.origin}`);
    try {
      if (only.has('chat')) await chatThroughput(env, api);
      if (only.has('latency')) await addedLatency(env, api);
      if (only.has('streaming')) await streaming(env, api);
      if (only.has('generate')) await generateThroughput(env, api);
      if (only.has('messages')) await messagesScenario(env, api);
    } finally {
      await api.stop();
    }
  }
  // Fresh processes and databases for the task scenarios: reads happen on an idle gengate, and the
  // task run's peak RSS is its own, with no earlier task queued ahead of it.
  if (only.has('tasks')) {
    const reader = await start('all', 'task reads');
    log(`${reader.name} at ${reader.origin}`);
    try {
      await taskGet(env, reader);
    } finally {
      await reader.stop();
    }
  }
  if (only.has('throughput')) {
    const full = await start('all', 'task run');
    log(`${full.name} at ${full.origin}`);
    try {
      await taskThroughput(env, full);
    } finally {
      await full.stop();
    }
  }
  // Issue 17: the scaled-out mode is PostgreSQL's.
  if (engine === 'postgres' && only.has('pipeline')) await taskPipeline(env, start);
}

/** The result files are committed, so they go through the repository's formatter (aligned tables). */
function formatLikeTheRepository(files: string[]): void {
  try {
    execFileSync(join(ROOT, 'node_modules/.bin/biome'), ['format', '--write', ...files], {
      cwd: ROOT,
      stdio: 'ignore',
    });
  } catch {
    // Unformatted Markdown and JSON read just as well.
  }
}

/** The gengate processes wrote their profiles when they stopped; summarize each one. */
function printProfiles(dir: string): void {
  const summaries = summarizeProfiles(dir, ROOT);
  if (summaries.length === 0) {
    log(`no CPU profile was written to ${dir}`);
    return;
  }
  const text = summaries.map(({ file, summary }) => renderProfileSummary(file, summary)).join('\n');
  writeFileSync(join(dir, 'summary.md'), text);
  log(`\n## CPU profiles (${dir}; open a .cpuprofile in Chrome DevTools for the call tree)\n\n${text}`);
}

async function main(group: ProcessGroup): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  if (options.help) {
    log(USAGE);
    return 0;
  }
  const { settings } = options;
  if (!wrkAvailable()) {
    const problem =
      'wrk is not installed (Debian: apt-get install wrk): the load runs fall back to autocannon, which runs in JavaScript and on 2 cores caps the baselines as much as gengate, pulling every ratio toward 1';
    if (options.strict) throw new Error(`--strict: ${problem}`);
    log(`WARNING: ${problem}`);
    settings.loadGenerator = 'autocannon';
  }
  const startedAt = new Date();
  const loadAverageAtStart = os.loadavg();
  log(
    `gengate bench (${settings.quick ? 'quick' : 'full'}): ${os.availableParallelism()} CPU(s), load average ${loadAverageAtStart.map((v) => v.toFixed(2)).join(' ')}`,
  );

  const upstream = await startFakeUpstream(group, settings.streamChunks);
  const upstreamBaseUrl = `${upstream.origin}/v1`;
  const [baselines, receiver, load] = await Promise.all([
    startBaselines(group, upstreamBaseUrl),
    startWebhookReceiver(group),
    LoadGenerator.start(group),
  ]);
  let portkey = null;
  let portkeyProblem: string | undefined;
  try {
    portkey = await startPortkey(group);
  } catch (error) {
    portkeyProblem = (error as Error).message.split('\n')[0];
    log(`Portkey not available: ${portkeyProblem}`);
  }
  log(
    `fake upstream ${upstream.origin}, baselines ${baselines.origin}, webhook receiver ${receiver.origin}${portkey ? `, Portkey ${portkey.origin}` : ''}`,
  );

  const profileDir = options.profile ? mkdtempSync(join(os.tmpdir(), 'gengate-bench-profiles-')) : undefined;
  const env: BenchEnvironment = {
    settings,
    load,
    upstream,
    upstreamBaseUrl,
    baselines,
    portkey,
    portkeyProblem,
    receiver,
    figures: [],
    measurements: [],
  };
  await benchEngine(env, options, group, 'sqlite', profileDir);
  if (options.only.has('start')) {
    await startTime(env);
    await firstStartTime(env, options.checkout ?? ROOT);
  }
  if (settings.pg) {
    const problem = await postgresAndRedisProblem();
    if (problem) {
      env.figures.push(
        makeFigure({
          id: 'postgres',
          label: 'every figure on PostgreSQL + Redis',
          engine: 'postgres',
          unit: '',
          target: null,
          value: null,
          detail: '—',
          skip: problem,
        }),
      );
      log(`SKIP PostgreSQL + Redis: ${problem}`);
    } else {
      await benchEngine(env, options, group, 'postgres', profileDir);
    }
  }

  const report: BenchReport = {
    meta: meta(startedAt, loadAverageAtStart),
    settings,
    figures: env.figures,
    measurements: env.measurements,
  };
  const files = writeReport(report, join(ROOT, 'bench/results'));
  formatLikeTheRepository([files.markdown, files.json]);
  log('');
  log(readFileSync(files.markdown, 'utf8'));
  log(`written: ${files.markdown}, ${files.json}`);
  if (profileDir) printProfiles(profileDir);
  const targets = report.figures.filter((f) => f.target);
  return options.strict && targets.some((f) => f.verdict !== 'PASS') ? 1 : 0;
}

const group = new ProcessGroup();
group.installTeardown();
let exitCode = 1;
try {
  exitCode = await main(group);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
} finally {
  await group.stopAll();
}
process.exit(exitCode);
