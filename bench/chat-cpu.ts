// CPU time per chat request, gengate against the bare pass-through, read from /proc. Throughput runs
// of the same code move by ±10–15% on a 2-vCPU VM; the CPU each server spends per request is much
// steadier, so small changes are judged by it (bench/NOTES.md). Starts the fake upstream, the
// baselines and gengate (`--role api`, as `npm start` runs it) on loopback, warms both up, then
// sends `requests` chat requests to each, in alternating rounds: at 32 connections, or with
// `connections` 1 one after another on one connection (as the added-latency figure does).
// Run: `node bin/run-ts.mjs bench/chat-cpu.ts [requests per round] [rounds] [connections]` (Linux only).
import { readFileSync } from 'node:fs';
import { startGengate } from './gengate.js';
import { type AutocannonJob, LoadGenerator } from './load.js';
import { parseProcStat } from './proc-stat.js';
import { ProcessGroup } from './processes.js';
import { CHAT_PATH, chatBody } from './scenarios/chat-targets.js';
import { startBaselines, startFakeUpstream } from './services.js';

const requests = Number(process.argv[2] ?? 30_000);
const rounds = Number(process.argv[3] ?? 3);
const connections = Number(process.argv[4] ?? 32);
const MODEL = 'gpt-4o-mini';

/** utime + stime in ms, of the whole process or (with `thread`) of one of its threads. */
function cpuMs(pid: number, thread?: number): number {
  const path = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
  return parseProcStat(readFileSync(path, 'utf8')).cpuMs;
}

const group = new ProcessGroup();
group.installTeardown();
try {
  const upstream = await startFakeUpstream(group, 20);
  const upstreamBaseUrl = `${upstream.origin}/v1`;
  const baselines = await startBaselines(group, upstreamBaseUrl);
  const gengate = await startGengate(group, {
    engine: 'sqlite',
    role: 'api',
    upstreamBaseUrl,
    chatModel: MODEL,
    purpose: 'chat CPU',
  });
  const load = await LoadGenerator.start(group);
  const job = (origin: string, headers: Record<string, string>): Omit<AutocannonJob, 'amount'> => ({
    origin,
    method: 'POST',
    path: CHAT_PATH,
    headers: { 'content-type': 'application/json', ...headers },
    body: chatBody(MODEL, false),
    connections,
  });
  const systems = [
    {
      name: 'bare pass-through',
      pid: baselines.child.pid,
      job: job(baselines.origin, { authorization: 'Bearer sk-fake' }),
    },
    { name: 'gengate', pid: gengate.child.pid, job: job(gengate.origin, gengate.auth) },
  ];
  /** Sends `amount` requests; returns how many failed and, on one connection, the p50 in ms. */
  const send = async (target: (typeof systems)[number], amount: number) => {
    if (connections > 1) {
      const stats = await load.autocannon({ ...target.job, amount });
      return { failed: stats.non2xx + stats.errors + stats.timeouts, p50: null };
    }
    const { origin, path, method, headers, body } = target.job;
    const summary = await load.latency({
      targets: [{ name: target.name, origin, path, method, headers, body }],
      warmup: 0,
      rounds: 1,
      perRound: amount,
    });
    return { failed: summary[target.name].failures, p50: summary[target.name].p50Ms };
  };
  for (const system of systems) await send(system, 5_000);

  console.log(`${connections} connection(s), ${requests} requests per round`);
  console.log('| round | system | main thread, µs per request | process, µs per request | p50 ms | failed |');
  console.log('|---|---|---|---|---|---|');
  for (let round = 1; round <= rounds; round++) {
    for (const system of systems) {
      const [main, all] = [cpuMs(system.pid, system.pid), cpuMs(system.pid)];
      const { failed, p50 } = await send(system, requests);
      const perRequest = (ms: number) => ((ms * 1000) / requests).toFixed(0);
      console.log(
        `| ${round} | ${system.name} | ${perRequest(cpuMs(system.pid, system.pid) - main)} | ${perRequest(cpuMs(system.pid) - all)} | ${p50?.toFixed(3) ?? '—'} | ${failed} |`,
      );
    }
  }
} finally {
  await group.stopAll();
}
