// Sequential requests over one keep-alive connection per system, timed with hrtime, so that the
// added latency of a gateway can be measured in fractions of a millisecond. Systems are measured in
// interleaved rounds, so background noise on a shared machine hits every system alike.
import { Client } from 'undici';
import { summarizeLatencies } from './stats.js';
import type { LatencySummary } from './types.js';

export interface HttpTarget {
  name: string;
  origin: string;
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

export interface LatencyJob {
  targets: HttpTarget[];
  warmup: number;
  rounds: number;
  perRound: number;
}

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
  const clients = new Map(
    job.targets.map((t) => [t.name, new Client(t.origin, { pipelining: 1, keepAliveTimeout: 60_000 })]),
  );
  const samples = new Map(job.targets.map((t) => [t.name, [] as number[]]));
  const failures = new Map(job.targets.map((t) => [t.name, 0]));
  try {
    for (const target of job.targets) {
      for (let i = 0; i < job.warmup; i++) await timedRequest(clients.get(target.name)!, target);
    }
    for (let round = 0; round < job.rounds; round++) {
      for (const target of job.targets) {
        const client = clients.get(target.name)!;
        for (let i = 0; i < job.perRound; i++) {
          const ms = await timedRequest(client, target);
          if (ms === null) failures.set(target.name, failures.get(target.name)! + 1);
          else samples.get(target.name)!.push(ms);
        }
      }
    }
  } finally {
    await Promise.all([...clients.values()].map((c) => c.close()));
  }
  return Object.fromEntries(
    job.targets.map((t) => [t.name, summarizeLatencies(samples.get(t.name)!, failures.get(t.name)!)]),
  );
}
