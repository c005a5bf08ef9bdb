// A streaming client (chat completions or Anthropic's Messages): time to the first SSE data event and data events per second, one
// stream at a time per system, systems interleaved round by round like the latency client.
import { createParser } from 'eventsource-parser';
import type { Client } from 'undici';
import { readServerTiming } from '../src/http/server-timing.js';
import { type InterleavedJob, runInterleaved } from './interleaved.js';
import { percentile } from './stats.js';
import type { HttpTarget, StreamSummary } from './types.js';

export type StreamJob = InterleavedJob;

interface StreamSample {
  ttfcMs: number;
  totalMs: number;
  events: number;
  /** The answer's Server-Timing `gateway` duration, when it had one. */
  gatewayMs?: number;
}

async function oneStream(client: Client, target: HttpTarget): Promise<StreamSample | null> {
  const start = process.hrtime.bigint();
  const since = () => Number(process.hrtime.bigint() - start) / 1e6;
  let ttfcMs: number | null = null;
  let events = 0;
  let sawDone = false;
  let gatewayMs: number | undefined;
  const parser = createParser({
    onEvent(event) {
      // OpenAI's streams end with [DONE], Anthropic's with the message_stop event.
      if (event.data === '[DONE]' || event.event === 'message_stop') {
        sawDone = true;
        return;
      }
      ttfcMs ??= since();
      events++;
    },
  });
  try {
    const response = await client.request({
      path: target.path,
      method: target.method,
      headers: target.headers,
      body: target.body,
    });
    if (response.statusCode !== 200) {
      await response.body.dump();
      return null;
    }
    const timing = response.headers['server-timing'];
    gatewayMs = readServerTiming(Array.isArray(timing) ? timing[0] : timing).gatewayMs;
    const decoder = new TextDecoder();
    for await (const bytes of response.body) parser.feed(decoder.decode(bytes as Buffer, { stream: true }));
  } catch {
    return null;
  }
  if (ttfcMs === null || !sawDone) return null;
  return { ttfcMs, totalMs: since(), events, gatewayMs };
}

function summarize(samples: StreamSample[], failures: number): StreamSummary {
  const ttfc = samples.map((s) => s.ttfcMs).sort((a, b) => a - b);
  const events = samples.reduce((acc, s) => acc + s.events, 0);
  const gateway = samples
    .flatMap((s) => (s.gatewayMs === undefined ? [] : [s.gatewayMs]))
    .sort((a, b) => a - b);
  const seconds = samples.reduce((acc, s) => acc + s.totalMs, 0) / 1000;
  return {
    streams: samples.length,
    ttfcP50Ms: percentile(ttfc, 50),
    ttfcP99Ms: percentile(ttfc, 99),
    chunksPerSec: seconds > 0 ? events / seconds : Number.NaN,
    chunksPerStream: samples.length ? events / samples.length : Number.NaN,
    failures,
    gatewayP50Ms: gateway.length > 0 ? percentile(gateway, 50) : undefined,
  };
}

export async function measureStreams(job: StreamJob): Promise<Record<string, StreamSummary>> {
  const results = await runInterleaved(job, oneStream);
  return Object.fromEntries([...results].map(([name, r]) => [name, summarize(r.samples, r.failures)]));
}
