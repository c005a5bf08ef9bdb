// Load runs driven by wrk (C, epoll, one thread per core) instead of autocannon (JavaScript). On a
// 2-core machine autocannon needs about as much CPU per request as a fast server, so it capped the
// bare baselines more than gengate and pulled every ratio toward 1 (GET /tasks read 0.958× a bare GET
// with autocannon, 0.63–0.74× with wrk). A Lua script gives wrk what the scenarios need: a method,
// headers and a body, a unique body per request, or a cycle of paths. The CPU that wrk used (user +
// system, from the shell's `times`) is reported beside every figure it measured.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AutocannonJob, LoadStats } from './types.js';

export const WRK_THREADS = 2;

/** Whether a wrk binary runs here (Debian: `apt-get install wrk`). */
export function wrkAvailable(): boolean {
  const probe = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  return !probe.error && /wrk/i.test(`${probe.stdout}${probe.stderr}`);
}

/** A Lua long string: no escapes inside, whatever the text holds. */
function luaString(text: string): string {
  let level = 1;
  while (text.includes(`]${'='.repeat(level)}]`)) level++;
  const eq = '='.repeat(level);
  return `[${eq}[${text}]${eq}]`;
}

/** The Lua script for one job; its `done` prints one line `WRKJSON {…}` for the bench to read. */
export function wrkScript(job: AutocannonJob, runId: string): string {
  const paths = job.paths?.length ? job.paths : [job.path];
  const headers = Object.entries(job.headers)
    .map(([name, value]) => `[ ${luaString(name)} ] = ${luaString(value)}`)
    .join(', ');
  return `
local method = ${luaString(job.method)}
local paths = { ${paths.map(luaString).join(', ')} }
local body = ${job.body === undefined ? 'nil' : luaString(job.body)}
local unique = ${job.uniqueBodies ? 'true' : 'false'}
local hdrs = { ${headers} }
local count = 0
local next_thread = 1
function setup(thread)
  thread:set("tid", next_thread)
  next_thread = next_thread + 1
end
function request()
  count = count + 1
  local path = paths[(count - 1) % #paths + 1]
  local b = body
  if unique and b then
    b = string.gsub(b, "%[<id>%]", "${runId}-" .. tostring(tid) .. "-" .. tostring(count))
  end
  return wrk.format(method, path, hdrs, b)
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRKJSON {"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50_us":%.1f,"p99_us":%.1f}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
`;
}

interface WrkDone {
  requests: number;
  duration_us: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
  p50_us: number;
  p99_us: number;
}

/** `times` prints the shell's own CPU, then its children's: `0m1.234s 0m0.567s`. */
export function parseChildTimes(output: string): number | undefined {
  const lines = output
    .trim()
    .split('\n')
    .filter((line) => /^\d+m[\d.]+s \d+m[\d.]+s$/.test(line.trim()));
  const children = lines.at(-1);
  if (!children) return undefined;
  const seconds = children
    .trim()
    .split(' ')
    .map((part) => {
      const [, min, sec] = /^(\d+)m([\d.]+)s$/.exec(part) ?? [];
      return Number(min) * 60 + Number(sec);
    });
  return seconds[0] + seconds[1];
}

export function parseWrkOutput(output: string, startedAtMs: number, cpuSec?: number): LoadStats {
  const line = output.split('\n').find((l) => l.startsWith('WRKJSON '));
  if (!line) throw new Error(`wrk printed no summary:\n${output.slice(-2000)}`);
  const done = JSON.parse(line.slice('WRKJSON '.length)) as WrkDone;
  const durationSec = done.duration_us / 1e6;
  const ok = done.requests - done.status;
  const errors = done.connect + done.read + done.write;
  return {
    requestsPerSec: durationSec > 0 ? ok / durationSec : 0,
    p50Ms: done.p50_us / 1000,
    p99Ms: done.p99_us / 1000,
    ok,
    non2xx: done.status,
    errors,
    timeouts: done.timeout,
    durationSec,
    // wrk counts answers that are not 2xx or 3xx, without their codes.
    statusCodes: done.status ? { 'not 2xx/3xx': done.status } : {},
    startedAtMs,
    generator: {
      tool: `wrk, ${WRK_THREADS} threads`,
      cpuPct: cpuSec === undefined || durationSec <= 0 ? null : (cpuSec / durationSec) * 100,
    },
  };
}

/** One timed run (`durationSec`; wrk cannot stop after a number of requests). */
export async function runWrk(job: AutocannonJob): Promise<LoadStats> {
  if (job.amount) throw new Error('wrk runs for a duration; use autocannon for a number of requests');
  const dir = mkdtempSync(join(tmpdir(), 'gengate-wrk-'));
  try {
    const script = join(dir, 'job.lua');
    writeFileSync(script, wrkScript(job, randomBytes(4).toString('hex')));
    const args = [
      `-t${Math.min(WRK_THREADS, job.connections)}`,
      `-c${job.connections}`,
      `-d${job.durationSec ?? 10}s`,
      '--timeout',
      '30s',
      '-s',
      script,
      `${job.origin}${job.path}`,
    ];
    const startedAtMs = Date.now();
    // Through bash, whose `times` then reports the CPU its child (wrk) used.
    const child = spawn('bash', ['-c', 'wrk "$@"; code=$?; times; exit $code', 'wrk', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    if (code !== 0) throw new Error(`wrk exited with ${code}:\n${output.slice(-2000)}`);
    return parseWrkOutput(output, startedAtMs, parseChildTimes(output));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
