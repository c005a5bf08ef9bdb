// The shapes the bench passes between its parts: load results, figures with targets, the report.

export type Engine = 'sqlite' | 'postgres';

/** One load run against one system, as measured by the load process. */
export interface LoadStats {
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Requests that completed with a 2xx status. */
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  durationSec: number;
  statusCodes: Record<string, number>;
  /** Wall-clock ms (Date.now) when the first request was sent; used for cross-process timing. */
  startedAtMs: number;
  /** What generated the load, and the CPU it used (% of one core over the run; null: unknown). */
  generator?: { tool: string; cpuPct: number | null };
}

/** Latency of sequential requests on one keep-alive connection, in ms with µs resolution. */
export interface LatencySummary {
  count: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  failures: number;
}

/** Streaming as one client sees it. */
export interface StreamSummary {
  streams: number;
  /** Time from sending the request to the first SSE data event. */
  ttfcP50Ms: number;
  ttfcP99Ms: number;
  /** SSE data events per second of streaming time (sum over streams of request start to last byte). */
  chunksPerSec: number;
  chunksPerStream: number;
  failures: number;
  /** Median of the answers' Server-Timing `gateway` durations, when they carried one (gengate's own time). */
  gatewayP50Ms?: number;
}

export type Verdict = 'PASS' | 'MISS' | 'SKIP' | 'INFO';

export interface Target {
  op: '>=' | '<=';
  value: number;
}

/** One line of the targets table: a ratio or an absolute figure, judged against its target. */
export interface Figure {
  id: string;
  label: string;
  engine: Engine | null;
  value: number | null;
  unit: string;
  /** What the value was computed from, for a reader: "gengate 2,310 req/s vs bare 4,020 req/s". */
  detail: string;
  target: Target | null;
  verdict: Verdict;
  /** Why a figure was skipped or missed, or what else a reader should know. */
  note?: string;
}

/** One line of the measurements table: what one system did in one scenario. */
export interface Measurement {
  scenario: string;
  system: string;
  engine: Engine | null;
  load?: LoadStats;
  latency?: LatencySummary;
  stream?: StreamSummary;
  /** Scenario-specific numbers (tasks/s, peak RSS MB, …). */
  extra?: Record<string, number | string>;
}

export interface BenchSettings {
  quick: boolean;
  pg: boolean;
  connections: number;
  durationSec: number;
  warmupSec: number;
  /** Untimed requests each system gets, one by one, before the latency rounds. */
  latencyWarmup: number;
  latencyRounds: number;
  latencyPerRound: number;
  streamRounds: number;
  streamsPerRound: number;
  /** Streams per system and round of the Messages scenario's first-event rounds. */
  messagesStreamsPerRound: number;
  streamChunks: number;
  tasks: number;
  taskTimeoutSec: number;
  /** Completed tasks the GET /tasks/{id} scenario reads in turn. */
  readTasks: number;
  chatModel: string;
  /** The Claude model of the Messages scenario, routed to the fake upstream's /v1/messages. */
  messagesModel: string;
  taskModel: string;
  /** What drives the timed load runs: wrk when installed (autocannon caps itself on 2 cores). */
  loadGenerator: 'wrk' | 'autocannon';
}

export interface RunMeta {
  startedAt: string;
  finishedAt: string;
  commit: string;
  node: string;
  cpus: number;
  cpuModel: string;
  platform: string;
  totalMemMb: number;
  loadAverageAtStart: number[];
  portkeyVersion: string | null;
}

export interface BenchReport {
  meta: RunMeta;
  settings: BenchSettings;
  figures: Figure[];
  measurements: Measurement[];
}

/** One system the latency and stream clients time, request by request. */
export interface HttpTarget {
  name: string;
  origin: string;
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

/** A load run of one system (autocannon or wrk). */
export interface AutocannonJob {
  origin: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  connections: number;
  /** Run for this long… */
  durationSec?: number;
  /** …or send exactly this many requests. */
  amount?: number;
  /** Each request takes the next of these paths in turn (GET of many different tasks). */
  paths?: string[];
  /** Replace `[<id>]` in the body with a number unique to the request, so no two bodies are alike. */
  uniqueBodies?: boolean;
  /** With `amount`: stop after this long even if not every request was answered. */
  maxSec?: number;
  /** wrk for timed runs when it is installed; autocannon otherwise, and for a number of requests. */
  tool?: 'wrk' | 'autocannon';
}
