// Sequential requests over one keep-alive connection per system, timed with hrtime, so that the
// added latency of a gateway can be measured in fractions of a millisecond. Systems are measured in
// interleaved rounds, so background noise on a shared machine hits every system alike.
import type { Client } from 'undici';
import { type InterleavedJob, runInterleaved } from './interleaved.js';
import { summarizeLatencies } from './stats.js';
import type { HttpTarget, LatencySummary } from './types.js';

export type LatencyJob = InterleavedJob;

async function timedRequest(client: Client, target: HttpTarget): Promise<number | null> {
  const start = process.hrtime.bigint();
  try {
    const response = await client.request({
      path: target.path,
      method: target.method,
      headers: target.headers,
      body: target.body,
    });
    await response.body.dump();
    if (response.statusCode < 200 || response.statusCode >= 300) return null;
  } catch {
    return null;
  }
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export async function measureLatency(job: LatencyJob): Promise<Record<string, LatencySummary>> {
  const results = await runInterleaved(job, timedRequest);
  return Object.fromEntries(
    [...results].map(([name, r]) => [name, summarizeLatencies(r.samples, r.failures)]),
  );
}
