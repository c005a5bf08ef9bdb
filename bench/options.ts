// Command-line flags → the bench settings. `--quick` is for a check that the harness works end to
// end (under 2 minutes); the full run is what the figures are tracked with.
import type { BenchSettings } from './types.js';

export const SCENARIOS = [
  'chat',
  'latency',
  'streaming',
  'generate',
  'tasks',
  'throughput',
  'start',
  'pipeline',
  'messages',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export interface BenchOptions {
  settings: BenchSettings;
  only: Set<ScenarioName>;
  /** Exit 1 unless every target says PASS. */
  strict: boolean;
  /** Run gengate with --cpu-prof and print where its CPU time went. */
  profile: boolean;
  /** The repository the first-start rounds clone (default: this checkout). */
  checkout?: string;
  help: boolean;
}

export const USAGE = `usage: npm run bench -- [--quick] [--pg] [--only=${SCENARIOS.join(',')}] [--strict]
  --quick    short runs and 1,000 tasks: checks the harness end to end in under 2 minutes
  --pg       after SQLite, run gengate again on PostgreSQL (BENCH_PG_URL) and Redis (BENCH_REDIS_URL)
  --only=…   run only these scenarios (tasks = GET /tasks/{id}, throughput = the task run,
             start = restart time and a fresh clone's first start, pipeline = 2 API + 2 worker processes on PostgreSQL,
             messages = POST /v1/messages with a Claude Code-sized body)
  --strict   exit with status 1 unless every target says PASS
  --profile  run gengate with --cpu-prof and print a self-time summary per gengate process
  --checkout=DIR  the repository whose fresh clones the first-start row times (default: this one)`;

export function parseOptions(argv: string[]): BenchOptions {
  const flags = new Set(argv.filter((a) => !a.startsWith('--only=') && !a.startsWith('--checkout=')));
  const onlyArg = argv.find((a) => a.startsWith('--only='));
  const checkoutArg = argv.find((a) => a.startsWith('--checkout='));
  const unknown = [...flags].filter(
    (f) => !['--quick', '--pg', '--strict', '--profile', '--help', '-h'].includes(f),
  );
  if (unknown.length) throw new Error(`unknown option(s): ${unknown.join(' ')}\n${USAGE}`);
  let only = new Set<ScenarioName>(SCENARIOS);
  if (onlyArg) {
    const names = onlyArg.slice('--only='.length).split(',').filter(Boolean);
    const bad = names.filter((n) => !(SCENARIOS as readonly string[]).includes(n));
    if (bad.length) throw new Error(`unknown scenario(s): ${bad.join(', ')}\n${USAGE}`);
    only = new Set(names as ScenarioName[]);
  }
  const quick = flags.has('--quick');
  const settings: BenchSettings = {
    quick,
    pg: flags.has('--pg'),
    connections: 32,
    durationSec: quick ? 3 : 10,
    warmupSec: quick ? 1 : 3,
    // On freshly started processes 200 requests left part of the JIT's work in the measured ones:
    // run alone, the latency scenario read 0.3-0.5 ms above a run that followed the chat load
    // (bench/NOTES.md, round 12). The load runs get their warm-up seconds for the same reason.
    latencyWarmup: quick ? 100 : 2_000,
    latencyRounds: quick ? 4 : 10,
    latencyPerRound: quick ? 100 : 200,
    streamRounds: quick ? 4 : 10,
    streamsPerRound: quick ? 5 : 10,
    // The Messages first event is judged within hundredths of a ms of its target: three times the
    // streams of the streaming scenario narrow its medians (still about 10 s in all).
    messagesStreamsPerRound: quick ? 5 : 30,
    streamChunks: 64,
    tasks: quick ? 1_000 : 10_000,
    taskTimeoutSec: quick ? 20 : 180,
    readTasks: quick ? 50 : 200,
    chatModel: 'gpt-4o-mini',
    messagesModel: 'claude-sonnet-4-5',
    taskModel: 'seedream-4',
    // run.ts falls back to autocannon (or, with --strict, stops) when wrk is not installed.
    loadGenerator: 'wrk',
  };
  return {
    settings,
    only,
    strict: flags.has('--strict'),
    profile: flags.has('--profile'),
    checkout: checkoutArg ? checkoutArg.slice('--checkout='.length) : undefined,
    help: flags.has('--help') || flags.has('-h'),
  };
}
