// The bench's own helper processes: the fake upstream, the bare baselines, the webhook receiver.
import type { Child, ProcessGroup } from './processes.js';

export interface Service {
  name: string;
  origin: string;
  port: number;
  child: Child;
}

const READY = /^ready (\d+)$/m;

async function startService(
  group: ProcessGroup,
  name: string,
  file: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<Service> {
  const child = group.spawnTs(name, file, args, { env });
  const [, port] = await child.ready(READY, 30_000);
  return { name, origin: `http://127.0.0.1:${port}`, port: Number(port), child };
}

export function startFakeUpstream(group: ProcessGroup, streamChunks: number): Promise<Service> {
  return startService(group, 'fake upstream', 'bench/fake-upstream.ts', [], {
    BENCH_STREAM_CHUNKS: String(streamChunks),
  });
}

export function startBaselines(group: ProcessGroup, upstreamBaseUrl: string): Promise<Service> {
  return startService(group, 'bare baselines', 'bench/baselines/server.ts', [upstreamBaseUrl]);
}

export function startWebhookReceiver(group: ProcessGroup): Promise<Service> {
  return startService(group, 'webhook receiver', 'bench/webhook-receiver.ts');
}
