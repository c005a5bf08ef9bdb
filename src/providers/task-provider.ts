// The adapter contract between the task runner and an upstream that generates video or images.
// The runner submits once, stores the returned job id BEFORE it polls, and from then on only polls:
// an adapter must be able to resume a job from its id (plus the task), in any process.
import type { Readable } from 'node:stream';

export interface ProviderTask {
  /** Our task id: adapters that support it should pass it upstream as an idempotency key. */
  id: string;
  /** The public model id and the upstream model name it routes to. */
  modelId: string;
  upstreamModel: string;
  kind: 'video' | 'image';
  /** Validated params with defaults applied, without model_name and webhook_url. */
  params: Record<string, unknown>;
  /** How many times this task was re-queued after "Concurrency limit exceeded". */
  requeues: number;
}

/** One generated file: bytes we already hold, or a URL the runner downloads (streamed, size-capped). */
export interface ProviderOutput {
  source:
    | { kind: 'bytes'; data: Buffer }
    | { kind: 'stream'; open: () => Promise<Readable> }
    | { kind: 'url'; url: string };
  contentType?: string;
  width?: number;
  height?: number;
  /** Video length in seconds. */
  durationSec?: number;
}

export type SubmitOutcome =
  | { status: 'submitted'; jobId: string; state?: unknown; retryAfterMs?: number }
  /**
   * The upstream answered with the result at once (a synchronous API, or the simulator at 0 ms):
   * there is no job left to resume, so the task is finalized in one step with `jobId` recorded.
   */
  | { status: 'succeeded'; jobId: string; outputs: ProviderOutput[]; usage?: { tokens?: number } }
  /** "Concurrency limit exceeded": nothing was started; the task is re-queued. */
  | { status: 'busy' }
  | { status: 'failed'; message: string };

export type PollOutcome =
  | { status: 'running'; retryAfterMs?: number }
  | { status: 'succeeded'; outputs: ProviderOutput[]; usage?: { tokens?: number } }
  | { status: 'failed'; message: string }
  /** The job was dropped for lack of capacity; the task is re-queued and submitted again later. */
  | { status: 'busy' };

export interface TaskProvider {
  /** The adapter type, for logs. */
  readonly type: string;
  submit(task: ProviderTask): Promise<SubmitOutcome>;
  poll(jobId: string, task: ProviderTask): Promise<PollOutcome>;
}
