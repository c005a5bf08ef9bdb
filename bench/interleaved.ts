// Runs one measurement per request against several systems in interleaved rounds, one keep-alive
// connection per system, so background noise on a shared machine hits every system alike.
import { Client } from 'undici';
import type { HttpTarget } from './types.js';

export interface InterleavedJob {
  targets: HttpTarget[];
  warmup: number;
  rounds: number;
  perRound: number;
}

/** Samples per system plus its failure count (a measurement that returned null). */
export async function runInterleaved<S>(
  job: InterleavedJob,
  measure: (client: Client, target: HttpTarget) => Promise<S | null>,
): Promise<Map<string, { samples: S[]; failures: number }>> {
  const clients = new Map(
    job.targets.map((t) => [t.name, new Client(t.origin, { pipelining: 1, keepAliveTimeout: 60_000 })]),
  );
  const results = new Map(job.targets.map((t) => [t.name, { samples: [] as S[], failures: 0 }]));
  try {
    for (const target of job.targets) {
      for (let i = 0; i < job.warmup; i++) await measure(clients.get(target.name)!, target);
    }
    for (let round = 0; round < job.rounds; round++) {
      for (const target of job.targets) {
        const client = clients.get(target.name)!;
        const result = results.get(target.name)!;
        for (let i = 0; i < job.perRound; i++) {
          const sample = await measure(client, target);
          if (sample === null) result.failures++;
          else result.samples.push(sample);
        }
      }
    }
  } finally {
    await Promise.all([...clients.values()].map((c) => c.close()));
  }
  return results;
}
