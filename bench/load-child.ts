// The load process: runs autocannon, the sequential latency client and the streaming client on
// behalf of the bench, so the load shares no event loop with anything it measures. Jobs arrive over
// IPC as {id, kind, job}; each answer is {id, result} or {id, error}.
// Run by bench/load.ts: `node bin/run-ts.mjs bench/load-child.ts` with an IPC channel.
import autocannon, { type AutocannonOptions, type AutocannonResult } from 'autocannon';
import { measureLatency } from './latency-client.js';
import { measureStreams } from './stream-client.js';
import type { AutocannonJob, LoadStats } from './types.js';
import { runWrk } from './wrk.js';

const UNIQUE = '[<id>]';
/** Across jobs too: the warm-up and the measured run never send the same body. */
let uniqueCounter = 0;

async function runAutocannon(job: AutocannonJob): Promise<LoadStats> {
  const options: AutocannonOptions = {
    // autocannon takes the path from the URL; a separate `path` option is ignored.
    url: `${job.origin}${job.path}`,
    method: job.method,
    headers: job.headers,
    body: job.body,
    connections: job.connections,
    pipelining: 1,
    timeout: 30,
    ...(job.amount ? { amount: job.amount } : { duration: job.durationSec ?? 10 }),
  };
  // One request template whose path or body changes per request. autocannon's own idReplacement is
  // not used: it assumes a fixed id length when it computes Content-Length.
  if (job.paths?.length || job.uniqueBodies) {
    const paths = job.paths?.length ? job.paths : [job.path];
    const body = job.body ?? '';
    let nextPath = 0;
    options.requests = [
      {
        method: job.method,
        headers: job.headers,
        setupRequest: (request) => {
          const path = paths[nextPath++ % paths.length];
          return {
            ...request,
            path,
            ...(job.uniqueBodies ? { body: body.replaceAll(UNIQUE, String(++uniqueCounter)) } : {}),
          };
        },
      },
    ];
  }
  const startedAtMs = Date.now();
  // This process's CPU over the run: autocannon's share, when no other job runs alongside.
  const cpuBefore = process.cpuUsage();
  const result = await new Promise<AutocannonResult>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const instance = autocannon(options, (error, done) => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(done);
    });
    if (job.maxSec) timer = setTimeout(() => instance.stop(), job.maxSec * 1000);
  });
  const cpu = process.cpuUsage(cpuBefore);
  const statusCodes = Object.fromEntries(
    Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]),
  );
  return {
    requestsPerSec: result.duration > 0 ? result['2xx'] / result.duration : 0,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    durationSec: result.duration,
    statusCodes,
    startedAtMs,
    generator: {
      tool: 'autocannon',
      cpuPct: result.duration > 0 ? ((cpu.user + cpu.system) / 1e6 / result.duration) * 100 : null,
    },
  };
}

/** A timed run goes to wrk when the bench chose it; a number of requests always to autocannon. */
function runLoad(job: AutocannonJob): Promise<LoadStats> {
  return job.tool === 'wrk' && !job.amount ? runWrk(job) : runAutocannon(job);
}

const handlers = {
  autocannon: runLoad,
  latency: measureLatency,
  streams: measureStreams,
} as const;

export type LoadJobKind = keyof typeof handlers;

process.on('message', async (message: { id: number; kind: LoadJobKind; job: never }) => {
  try {
    const result = await handlers[message.kind](message.job);
    process.send!({ id: message.id, result });
  } catch (error) {
    process.send!({
      id: message.id,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
  }
});
process.send!({ ready: true });
process.once('SIGTERM', () => process.exit(0));
