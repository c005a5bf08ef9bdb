// The webhook receiver of the task-throughput scenario, in its own process so that receiving 10,000
// deliveries never competes with the load generator. It answers every POST /hook with 204 and
// remembers the final state of each task_id (deliveries may repeat; the task id deduplicates).
//   GET  /stats          {tasks, completed, failed, deliveries, firstFinalAtMs, lastFinalAtMs,
//                         createdToWebhookMs: {p50, p99, max}}: from the time in each task's UUIDv7 id
//                         (gengate's clock when it accepted the POST) to the first delivery's arrival
//   GET  /ids?limit=N    up to N ids of completed tasks
//   POST /reset          forget everything
// Run as a child: `node bin/run-ts.mjs bench/webhook-receiver.ts`; prints `ready <port>`.
import http from 'node:http';
import { announceReady } from './ready.js';

const finalStatus = new Map<string, string>();
/** Per task: ms from its creation (the UUIDv7's time) to its first webhook's arrival. */
const createdToWebhookMs: number[] = [];
let deliveries = 0;
let malformed = 0;
let firstFinalAtMs: number | null = null;
let lastFinalAtMs: number | null = null;

function record(body: string): void {
  deliveries++;
  let payload: { task_id?: unknown; status?: unknown };
  try {
    payload = JSON.parse(body);
  } catch {
    malformed++;
    return;
  }
  if (
    typeof payload.task_id !== 'string' ||
    (payload.status !== 'completed' && payload.status !== 'failed')
  ) {
    malformed++;
    return;
  }
  if (finalStatus.has(payload.task_id)) return;
  finalStatus.set(payload.task_id, payload.status);
  const now = Date.now();
  const createdAtMs = uuidV7Ms(payload.task_id);
  if (createdAtMs !== undefined) createdToWebhookMs.push(now - createdAtMs);
  firstFinalAtMs ??= now;
  lastFinalAtMs = now;
}

/** The 48-bit millisecond time at the front of a UUIDv7, or undefined for another kind of id. */
function uuidV7Ms(id: string): number | undefined {
  const hex = id.replaceAll('-', '');
  if (hex.length !== 32 || hex[12] !== '7') return undefined;
  return Number.parseInt(hex.slice(0, 12), 16);
}

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function stats() {
  const sorted = [...createdToWebhookMs].sort((a, b) => a - b);
  let completed = 0;
  for (const status of finalStatus.values()) if (status === 'completed') completed++;
  return {
    tasks: finalStatus.size,
    completed,
    failed: finalStatus.size - completed,
    deliveries,
    malformed,
    firstFinalAtMs,
    lastFinalAtMs,
    createdToWebhookMs: {
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted.at(-1) ?? null,
    },
  };
}

function json(res: http.ServerResponse, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (req.method === 'POST' && url.pathname === '/hook') {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      record(Buffer.concat(parts).toString('utf8'));
      res.writeHead(204);
      res.end();
    });
    return;
  }
  if (req.method === 'GET' && url.pathname === '/stats') return json(res, stats());
  if (req.method === 'GET' && url.pathname === '/ids') {
    const limit = Number(url.searchParams.get('limit') ?? 1000);
    const ids: string[] = [];
    for (const [id, status] of finalStatus) {
      if (ids.length >= limit) break;
      if (status === 'completed') ids.push(id);
    }
    return json(res, ids);
  }
  if (req.method === 'POST' && url.pathname === '/reset') {
    finalStatus.clear();
    createdToWebhookMs.length = 0;
    deliveries = 0;
    malformed = 0;
    firstFinalAtMs = null;
    lastFinalAtMs = null;
    return json(res, { ok: true });
  }
  res.writeHead(404);
  res.end();
});
server.keepAliveTimeout = 120_000;

server.listen(0, '127.0.0.1', () => announceReady((server.address() as { port: number }).port));
process.once('SIGTERM', () => process.exit(0));
